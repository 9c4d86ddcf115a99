"""What a connection may cost the server before it is anyone's: a few seconds to send a request's head, a few to
send its body, a cap on connections per address and in all, and one line per kind of trouble per minute.

The time limits are aiohttp's own settings (`SERVER_LIMITS`): its keep-alive timer runs from the moment a
connection is made and closes one whose request head has not come whole within `HEAD_SECONDS`, and a body the
server did not read is read for at most `BODY_SECONDS` after the answer, then the connection is closed. What
aiohttp has no setting for, the caps, is `Capped`: aiohttp's protocol for one connection, behind a count of the
connections open per address. A connection over a cap is answered 503 and closed before aiohttp sees a byte of it.

Connections through the console's Unix socket, and from a `--trusted-proxy` address, are the proxy's: they
carry everyone, and count only against the total.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

from stablepay_console.web.settings import Network

log = logging.getLogger("stablepay_console.web.connections")

HEAD_SECONDS = 5.0
"""From the connection's start (or the end of its last answer), a request's head must come whole within this."""
BODY_SECONDS = 5.0
"""A request's body the server does not read (none of its routes reads one) is drained this long at most."""
PER_ADDRESS = 64
"""Connections open at once from one address (a browser opens 6 to 8, and one per tab)."""
MAX_CONNECTIONS = 4096
"""Connections open at once in all."""
BACKLOG = 1024
"""Connections the kernel holds for the server to accept (a burst of them is accepted, then counted)."""
SERVER_LIMITS: dict[str, Any] = {
    "keepalive_timeout": HEAD_SECONDS,
    "lingering_time": BODY_SECONDS,
    "max_line_size": 8190,
    "max_field_size": 8190,
}
"""aiohttp's own settings for every connection (web.AppRunner's keyword arguments)."""
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
        b"Retry-After: 5\r\nContent-Length: 46\r\n\r\nToo many connections at once; try again later.")


FILES_KEPT = 256
"""Open files the server keeps for itself beyond its connections (consoles' pipes, static files, its logs)."""


def connection_room() -> int:
    """How many connections may be open at once: MAX_CONNECTIONS, or fewer if the process may not open that many
    files (its soft limit raised to the hard one first), so the next connection is refused with a 503 rather than
    failing to be accepted at all."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = MAX_CONNECTIONS + FILES_KEPT
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft - FILES_KEPT))


class Limits:
    """The connections open now, per address and in all."""

    def __init__(self, proxies: tuple[Network, ...] = (), per_address: int = PER_ADDRESS,
                 total: int = MAX_CONNECTIONS) -> None:
        self.proxies = proxies
        self.per_address = per_address
        self.total = total
        self.open: Counter[str] = Counter()
        self.count = 0

    def is_proxy(self, address: str) -> bool:
        if not address:  # the Unix socket: the proxy's
            return True
        try:
            found = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        return any(found in network for network in self.proxies)

    def admit(self, address: str) -> str | None:
        """Count a connection from `address` in, or say which cap it is over (then it is not counted)."""
        if self.count >= self.total:
            return f"refused a connection: the server has {self.total} connections open, its limit"
        if not self.is_proxy(address) and self.open[address] >= self.per_address:
            return f"refused a connection: {self.per_address} connections are open from its address, the limit"
        self.count += 1
        self.open[address] += 1
        return None

    def release(self, address: str) -> None:
        self.count -= 1
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]


def address_of(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else ""


class Capped(asyncio.Protocol):
    """aiohttp's protocol for one connection, made once the caps let it in; everything else is aiohttp's."""

    def __init__(self, make: Callable[[], asyncio.Protocol], limits: Limits) -> None:
        self.make = make
        self.limits = limits
        self.inner: asyncio.Protocol | None = None
        """aiohttp's, once counted in (None: refused, or not yet made)."""
        self.address = ""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.address = address_of(transport)
        why = self.limits.admit(self.address)
        if why is not None:
            log.warning(why)  # a fixed sentence per cap: one kind each
            if isinstance(transport, asyncio.WriteTransport):
                transport.write(BUSY)
            transport.close()
            return
        self.inner = self.make()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def connection_lost(self, exc: Exception | None) -> None:
        inner, self.inner = self.inner, None
        if inner is None:
            return
        self.limits.release(self.address)
        inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()


class CappedSite(web.BaseSite):
    """aiohttp's TCPSite or SockSite (a `sock` given), each connection `Capped`."""

    def __init__(self, runner: web.BaseRunner, limits: Limits, *, host: str = "127.0.0.1", port: int = 0,
                 sock: socket.socket | None = None) -> None:
        super().__init__(runner, backlog=BACKLOG)
        self.limits = limits
        self.host, self.port, self.sock = host, port, sock

    @property
    def name(self) -> str:
        return f"unix:{self.sock.getsockname()}" if self.sock is not None else f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        limits = self.limits

        def protocol() -> asyncio.Protocol:
            return Capped(server, limits)

        if self.sock is not None:
            self._server = await loop.create_server(protocol, sock=self.sock, backlog=self._backlog)
        else:
            self._server = await loop.create_server(protocol, self.host, self.port, backlog=self._backlog,
                                                    reuse_address=True)


# --- one line per kind of trouble per minute ------------------------------------------------------------------------

TROUBLE_SECONDS = 60.0


class OncePerMinute(logging.Filter):
    """Lets through the first record of each kind per `seconds` (its logger, its message's template and its error's
    type); the next one let through says how many like it were left out meanwhile. Lines of the access log (one per
    sign-in, console, refusal, download) are not troubles: they all pass."""

    def __init__(self, seconds: float = TROUBLE_SECONDS, passes: Callable[[logging.LogRecord], bool] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.seconds = seconds
        self.passes = passes or (lambda record: False)
        self.clock = clock
        self.said: dict[tuple[str, str, str], float] = {}
        self.left_out: Counter[tuple[str, str, str]] = Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        if self.passes(record):
            return True
        failure = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        kind = (record.name, str(record.msg), failure)
        now = self.clock()
        if now - self.said.get(kind, float("-inf")) < self.seconds:
            self.left_out[kind] += 1
            return False
        if len(self.said) > 1000:  # kinds are few; a flood of new ones is forgotten, not kept
            self.said.clear()
        self.said[kind] = now
        if left := self.left_out.pop(kind, 0):
            record.msg = f"{record.msg} (and {left} more like it in the last minute, not shown)"
        return True

