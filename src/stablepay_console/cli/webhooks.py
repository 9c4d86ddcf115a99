"""`rfis watch --webhooks HOST:PORT --webhook-key FILE`: the provider's deliveries, heard as they come.

The receiver (`services.webhooks.receiver`) runs on uvicorn in the watch's own event loop, beside its polls:
one gate for both, one tracker. uvicorn bounds the rest: a request's head must fit in `MAX_HEAD` bytes, an
idle kept-alive connection is closed after `KEEP_ALIVE` seconds, and at most `MAX_CONNECTIONS` are served at
once (past that, 503: the provider retries). uvicorn has no deadline for a request's head, so a connection
whose head is not complete within `HEAD_SECONDS` (of its opening, or of its last response) is closed here
(`_head_limited`); the body has its own deadline (`receiver.BODY_SECONDS`).
Plain HTTP, loopback by default: the company's TLS proxy sits in front (see docs/webhooks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stablepay_console.cli.arguments import quoted

if TYPE_CHECKING:
    import uvicorn
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
    from starlette.types import ASGIApp

DEFAULT_HOST = "127.0.0.1"
MAX_HEAD = 16 * 1024
KEEP_ALIVE = 5
MAX_CONNECTIONS = 64
HEAD_SECONDS = 10.0
SLOWER_POLL_MINUTES = 10
"""With webhooks on, the newest-page poll's default interval: deliveries bring new requests at once."""


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}/webhooks"


def listen_address(text: str) -> Listen:
    """`HOST:PORT`, `[::1]:PORT` or `PORT` (loopback)."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: give HOST:PORT (or PORT, on loopback), e.g. 127.0.0.1:8788")
    return Listen(host, int(port_text))


def load_key(path: Path) -> RSAPublicKey:
    """The dashboard's public key; KeyFileError (its message says what is wrong) otherwise."""
    from stablepay_console.services.webhooks.verify import load_public_key

    return load_public_key(path)


def _head_limited(seconds: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose next request head is not in within `seconds`."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadLimited(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def _arm(self) -> None:
            armed = self.cycle  # a head that comes in makes a new cycle

            def late() -> None:
                if self.cycle is armed and not self.transport.is_closing():
                    self.transport.close()

            self.loop.call_later(seconds, late)

    return HeadLimited


class _Server:
    """uvicorn in the running loop, with no signal handlers of its own (the watch's Ctrl+C stops both)."""

    def __init__(self, app: ASGIApp, where: Listen, head_seconds: float = HEAD_SECONDS) -> None:
        import uvicorn

        config = uvicorn.Config(
            app, host=where.host, port=where.port, log_level="warning", access_log=False, lifespan="off",
            http=_head_limited(head_seconds), timeout_keep_alive=KEEP_ALIVE, h11_max_incomplete_event_size=MAX_HEAD,
            limit_concurrency=MAX_CONNECTIONS, server_header=False, date_header=False,
        )
        self.server: uvicorn.Server = uvicorn.Server(config)
        self.where = where

    async def start(self) -> None:
        """Listening once this returns; OSError (the port is taken) otherwise."""
        config = self.server.config
        if not config.loaded:
            config.load()
        self.server.lifespan = config.lifespan_class(config)
        family = socket.AF_INET6 if ":" in self.where.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.where.host, self.where.port))
        except OSError:
            sock.close()
            raise
        sock.set_inheritable(True)
        await self.server.startup(sockets=[sock])
        if self.server.should_exit:
            raise OSError(f"could not listen on {self.where.url}")

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.server.shutdown()


def server(app: ASGIApp, where: Listen, head_seconds: float = HEAD_SECONDS) -> _Server:
    return _Server(app, where, head_seconds)
