"""The web server's routes in the test process: the same aiohttp application `stablepay-console web` serves
(its sign-in guard, routes and pages), on a loopback port of aiohttp's own test server, with no spare console.

For what the server decides before any console starts (refusals, cookies, the Origin and proxy checks): no server
process to start and read, no console. What needs a console (a tab's session, the caps, idle, SIGTERM) is proved
against the real server process (tests/web_harness.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from stablepay_console.web.server import ConsoleServer
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import COOKIE, SignIns
from tests.web_harness import need_web

TOKEN = "in-process-sign-in-token-0123456789abcdef0123"
USER = "ops"
ACCESS_LOG = "stablepay_console.web.access"


@dataclass
class Served:
    server: ConsoleServer
    client: TestClient
    caplog: pytest.LogCaptureFixture

    @property
    def settings(self) -> WebSettings:
        return self.server.settings

    def url(self, path: str) -> str:
        return str(self.client.make_url(path))

    def log(self) -> str:
        return "\n".join(r.getMessage() for r in self.caplog.records if r.name == ACCESS_LOG)

    def consoles(self) -> int:
        """Consoles the server counts as running or waiting for a tab (none may start for a refusal)."""
        return len(self.server.consoles.running) + len(self.server.consoles.waiting)

    async def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
        """One GET that follows no redirect: (status, body, headers)."""
        async with self.client.get(path, headers=headers or {}, allow_redirects=False) as response:
            return response.status, await response.text(), {k: v for k, v in response.headers.items()}

    async def head(self, path: str, headers: dict[str, str] | None = None) -> int:
        """A HEAD: the page's answer without starting its console (only a GET of the page starts one)."""
        async with self.client.head(path, headers=headers or {}, allow_redirects=False) as response:
            return response.status

    async def signin_cookie(self) -> str:
        status, _, headers = await self.get(f"/?token={self.server.signins.token}")
        assert status == 303, status
        return headers["Set-Cookie"].split(";")[0].split("=", 1)[1]

    async def refused_ws(self, *, cookie: str | None = None, origin: str | None = "",
                         headers: dict[str, str] | None = None) -> int:
        """The status `/ws` answers instead of upgrading (0 if it upgraded: a failure of the test). `origin=""`:
        the public URL's own, as the console's page sends it; None: no Origin at all."""
        sent = dict(headers or {})
        if origin is not None:
            sent["Origin"] = origin or self.settings.origin
        if cookie:
            sent["Cookie"] = f"{COOKIE}={cookie}"
        try:
            ws = await self.client.ws_connect("/ws", headers=sent)
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status
        await ws.close()
        return 0


@contextlib.asynccontextmanager
async def served(caplog: pytest.LogCaptureFixture, settings: WebSettings | None = None) -> AsyncIterator[Served]:
    """The server's application for `settings` (default: the token sign-in on the default address), no spare."""
    need_web()
    settings = dataclasses.replace(settings or WebSettings(), spare=False)
    server = ConsoleServer(settings, SignIns(settings, USER, token=TOKEN))
    caplog.set_level(logging.INFO, logger=ACCESS_LOG)
    # No cookie jar: each request carries exactly the cookie its test gives it, as a fresh browser would.
    client = TestClient(TestServer(await server._make_app(), host="127.0.0.1"), cookie_jar=aiohttp.DummyCookieJar())
    async with client:
        yield Served(server, client, caplog)
