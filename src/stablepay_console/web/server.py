"""textual-serve's Server with our sign-in in front, consoles of our own, downloads kept to their owner, a
page of our own, an access log that never holds the token, and a stop within seconds on SIGTERM.

A console starts as its page is served, from a spare started earlier (web/spares.py), and waits for the
page's WebSocket (web/running.py); without one the WebSocket starts it, as textual-serve does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve import download_manager
from textual_serve.server import Server, to_int

from stablepay_console.web.access_log import start_access_log
from stablepay_console.web.connections import SERVER_LIMITS, CappedSite, Limits, connection_room
from stablepay_console.web.consoles import ConsoleProcess, console_command
from stablepay_console.web.downloads import download_headers, safe_file_name
from stablepay_console.web.guard import make_guard, refuse, signed_in
from stablepay_console.web.pages import (
    REASON_MESSAGE,
    SIGNED_OUT,
    SIGNED_OUT_PROXY,
    console_page,
    refusal_page,
    security_headers,
)
from stablepay_console.web.proxy import peer, remove_socket
from stablepay_console.web.running import Consoles
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import COOKIE, SignIn, SignIns
from stablepay_console.web.spares import Spares
from stablepay_console.web.statics import Statics

if TYPE_CHECKING:
    from stablepay_console.storage.postgres.url import TeamUrl

log = logging.getLogger("stablepay_console.web.access")

TITLE = "stablepay-console"
SHUTDOWN_SECONDS = 4.0
"""SIGTERM: every console asked to leave, then ended; the server is gone within 5 s."""
MAX_MESSAGE = 1 << 20
PAGE_FILES = ("js/textual.js", "css/xterm.css")
"""textual-serve's terminal script and its style sheet, which the console's page loads."""
SERVER_KEY: web.AppKey[ConsoleServer] = web.AppKey("stablepay.server")

download_manager.DOWNLOAD_TIMEOUT = 30
"""Seconds a download waits for each chunk from its console. textual-serve's 4 s is missed by a console on a busy
machine, and its timeout path then raises (`task_done()` called too many times): the browser got a 200 whose body
broke off with nothing in it (tests/test_web_downloads.py, under load, 4.0 s after the request)."""


async def say_why(websocket: web.WebSocketResponse, why: str) -> None:
    """Tell the page why its tab has no console (it shows it in place of "Session ended"), then close."""
    with contextlib.suppress(Exception):
        await websocket.send_str(json.dumps([REASON_MESSAGE, why]))
        await websocket.close(code=WSCloseCode.POLICY_VIOLATION, message=b"no console")


class ConsoleServer(Server):
    def __init__(self, settings: WebSettings, signins: SignIns, team: TeamUrl | None = None,
                 listener: socket.socket | None = None) -> None:
        super().__init__(console_command(), host=settings.host, port=settings.port, title=TITLE,
                         public_url=settings.base_url)
        self.settings = settings
        self.signins = signins
        self.team = team
        self.consoles = Consoles(settings)
        self.spares = Spares(self.new_console, settings.spare)
        self._tasks: set[asyncio.Task[None]] = set()
        self.statics = Statics(self.statics_path)
        self.listener = listener
        """With --socket: the Unix socket made (mode 0660) before the server starts."""
        self._idle_task: asyncio.Task[None] | None = None

    # --- the application ------------------------------------------------------------------

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[make_guard(self.settings, self.signins)], client_max_size=64 * 1024)
        app[SERVER_KEY] = self
        app.add_routes([
            web.get("/healthz", self.handle_healthz, name="healthz"),
            web.post("/signout", self.handle_signout, name="signout"),
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.get("/static/{name:.+}", self.statics.handle, name="static"),
        ])
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def sign_in_line(self) -> str:
        """The line on standard output once the server listens: always a URL to open (behind a proxy, the
        public one, as is; with the token, the sign-in link)."""
        if self.settings.by_header:
            return f"{self.settings.base_url}/"
        return f"{self.settings.base_url}/?token={self.signins.token}"

    def listening_line(self) -> str:
        """The same, in words, for the log: where it listens and how people sign in."""
        where = f"the socket {self.settings.socket_path}" if self.listener is not None else f"{self.host}:{self.port}"
        if self.settings.by_header:
            secret = " with the proxy's secret" if self.settings.proxy_secret else ""
            how = f"people sign in through the proxy's {self.settings.trusted_header} header{secret}"
        else:
            how = "people sign in with the link printed on standard output"
        return f"listening on {where} for {self.settings.base_url}/; {how}"

    async def on_startup(self, app: web.Application) -> None:
        self._idle_task = asyncio.create_task(self.consoles.watch_idle())
        for name in PAGE_FILES:  # read and compressed once, before the first page names them
            await asyncio.to_thread(self.statics.find, name)
        self._later(self.spares.fill())

    async def on_shutdown(self, app: web.Application) -> None:
        if self._idle_task is not None:
            self._idle_task.cancel()
        processes = [p for p, _ in self.consoles.running.values()]
        self.consoles.end_all()
        stops = [asyncio.create_task(p.stop()) for p in processes]
        stops.append(asyncio.create_task(self.spares.stop()))
        if stops:
            await asyncio.wait(stops, timeout=SHUTDOWN_SECONDS - 0.5)
        for task in list(self._tasks):  # the watches over consoles waiting for their tab: those are ended above
            task.cancel()
        log.info("server stopped, %d console(s) ended", len(processes))

    # --- routes ---------------------------------------------------------------------------

    async def handle_healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok", headers={"Cache-Control": "no-store"})

    async def team_refusal(self, user: str) -> str | None:
        if self.team is None:
            return None
        from stablepay_console.services.team.signin import refusal as signin_refusal

        return await asyncio.to_thread(signin_refusal, self.team, user)

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        signin = signed_in(request)
        why = await self.team_refusal(signin.user)
        if why is not None:
            log.info("refused console user=%s: %s", signin.user, why)
            return web.Response(status=403, content_type="text/html", headers={"Cache-Control": "no-store"},
                                text=refusal_page("No console for you here", why))
        if request.method == "GET" and not signin.ended:  # signed out while the team record was asked
            self.start_for_page(signin)
        base = self.settings.base_url
        ws_origin = ("wss:" if self.settings.https else "ws:") + base.split(":", 1)[1]
        static = f"{base}/static/"
        script, style = (self.statics.url(static, name) for name in PAGE_FILES)
        page = console_page(title=TITLE, script_url=script, style_url=style, ws_url=f"{ws_origin}/ws",
                            font_size=to_int(request.query.get("fontsize", "16"), 16) % 64 or 16)
        return web.Response(text=page, content_type="text/html", headers=security_headers(ws_origin))

    async def handle_signout(self, request: web.Request) -> web.Response:
        """The sign-in ends: its cookie opens nothing any more, and every console of it ends (its tabs say so)."""
        signin = signed_in(request)
        self.signins.end(signin)
        ending = [p for p, _ in self.consoles.running.values() if p.signin is signin]
        for process in ending:
            self.consoles.end(process)
        log.info("sign-out user=%s from=%s session=%s consoles=%d", signin.user, peer(request), signin.short,
                 len(ending))
        message = SIGNED_OUT_PROXY if self.settings.by_header else SIGNED_OUT
        response = web.Response(text=refusal_page("Signed out", message), content_type="text/html",
                                headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})
        response.del_cookie(COOKIE, path="/")
        return response

    # --- consoles ---------------------------------------------------------------------------

    def new_console(self) -> ConsoleProcess:
        return ConsoleProcess(self.command, download_manager=self.download_manager, settings=self.settings,
                              team=self.team is not None)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def start_for_page(self, signin: SignIn) -> None:
        """The page is on its way to the browser: its console starts now (at the size of this sign-in's last tab,
        resized when the tab says), unless one already waits for this sign-in or the caps say no (the WebSocket
        then tells the tab why). Checked and counted with no await between."""
        if self.consoles.waits_for(signin) or self.consoles.refusal(signin.user) is not None:
            return
        process, ended = self._hand_out(signin, *self.consoles.size_guess(signin))
        self.consoles.hold_for(signin, process)
        log.info("console started for a page user=%s console=%s", signin.user, process.app_service_id[:8])
        self._later(self.end_unclaimed(process, ended))

    def _hand_out(self, signin: SignIn, width: int, height: int) -> tuple[ConsoleProcess, asyncio.Event]:
        """The spare (or a console started now) given to `signin` at that size, counted against the caps; the event
        is set when it must end."""
        process = self.spares.take()
        ended = self.consoles.add(process)
        process.give_to(signin, width, height)
        return process, ended

    async def end_unclaimed(self, process: ConsoleProcess, ended: asyncio.Event) -> None:
        """End a console started for a page if no tab of its sign-in attached in time (or it drew too much)."""
        waits = [asyncio.create_task(e.wait()) for e in (process.attached, ended, process.overflowed)]
        try:
            await asyncio.wait(waits, timeout=self.settings.unclaimed_seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        if process.attached.is_set() or not self.consoles.unclaim(process):
            return  # a tab has it
        why = "it drew too much" if process.overflowed.is_set() else "no tab attached"
        log.info("console unclaimed user=%s console=%s: %s", process.user, process.app_service_id[:8], why)
        await process.stop()
        self.consoles.remove(process)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:  # type: ignore[override]
        signin = signed_in(request)
        why = await self.team_refusal(signin.user)
        claimed = None
        if why is None and signin.ended:  # signed out while the team record was asked
            why = "you signed out"
        if why is None:
            # The console its page started, or a cap check and a console counted with no await between: two tabs
            # at once cannot both pass.
            claimed = self.consoles.claim(signin)
            why = None if claimed is not None else self.consoles.refusal(signin.user)
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        if why is not None:
            # Signed in, from the console's own page: the tab is told why, in the page, and gets no console.
            log.info("refused console user=%s: %s", signin.user, why)
            await websocket.prepare(request)
            await say_why(websocket, f"No console for you here: {why}")
            return websocket
        width = min(max(to_int(request.query.get("width", "80"), 80), 10), 500)
        height = min(max(to_int(request.query.get("height", "24"), 24), 5), 300)
        self.consoles.note_size(signin, (width, height))
        if claimed is not None:
            process, ended = claimed
        else:
            process, ended = self._hand_out(signin, width, height)
        tasks: list[asyncio.Task[Any]] = []
        try:
            await websocket.prepare(request)
            assert process.starting is not None
            await process.starting
            if process.size != (width, height):  # a page's console draws at a guess until then
                await process.set_terminal_size(width, height)
            await process.attach(websocket)
            log.info("session start user=%s console=%s pid=%s from=%s%s", signin.user, process.app_service_id[:8],
                     process.pid, peer(request), " (started with its page)" if claimed else "")
            console = process.task
            assert console is not None
            tasks = [asyncio.create_task(self._process_messages(websocket, process)),
                     asyncio.create_task(ended.wait())]
            done, _ = await asyncio.wait({*tasks, console}, return_when=asyncio.FIRST_COMPLETED)
            if console in done and not process.quit:  # it ended on its own: the tab is told why
                log.warning("session failed user=%s console=%s: %s", signin.user, process.app_service_id[:8],
                            process.last_error_line())
                await say_why(websocket, process.ended_why())
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # never a traceback with locals: it would hold the request
            log.warning("session failed user=%s: %s", signin.user, type(exc).__name__)
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(Exception):
                await websocket.close()
            await process.stop()
            self.consoles.remove(process)
            log.info("session end user=%s console=%s after=%.1fs", signin.user, process.app_service_id[:8],
                     time.monotonic() - process.started)
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: Any) -> None:
        try:
            async for message in websocket:
                if message.type != WSMsgType.TEXT:
                    continue
                envelope = message.json()
                if not isinstance(envelope, list) or not envelope:
                    continue
                # The page sends ["focus"] and ["blur"] with no data: they count as much as the others.
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                if kind == "stdin" and isinstance(data, str):
                    await app_service.send_bytes(data.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    width = min(max(to_int(str(data.get("width", 80)), 80), 10), 500)
                    height = min(max(to_int(str(data.get("height", 24)), 24), 5), 300)
                    await app_service.set_terminal_size(width, height)
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await app_service.blur()
                elif kind == "focus":
                    await app_service.focus()
        except ValueError:  # not JSON: the session ends
            return

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        signin = signed_in(request)
        key = request.match_info["key"]
        try:
            meta = await self.download_manager.get_download_metadata(key)
        except KeyError:
            meta = None
        owner = getattr(meta.app_service, "signin", None) if meta is not None else None
        if meta is None or owner is None or owner.id != signin.id:
            return refuse(request, 404, "Not found", "no such download for this sign-in")
        response = web.StreamResponse(headers=download_headers(meta.file_name, meta.mime_type, meta.encoding))
        await response.prepare(request)
        async for chunk in self.download_manager.download(key):
            await response.write(chunk)
        await response.write_eof()
        log.info("download user=%s file=%s", signin.user, safe_file_name(meta.file_name))
        return response

    # --- running --------------------------------------------------------------------------

    def initialize_logging(self) -> None:
        """Plain lines on standard error, every value escaped (web/access_log.py)."""
        start_access_log()

    def serve(self, debug: bool = False) -> None:
        self.initialize_logging()
        asyncio.run(self._serve())

    async def runner(self) -> web.AppRunner:
        """The application, ready to listen, with aiohttp's limits on every connection (web/connections.py)."""
        runner = web.AppRunner(
            await self._make_app(), handle_signals=False, shutdown_timeout=1.0,
            access_log=None,  # aiohttp's own access log would write `?token=…`: ours says who, never it
            **SERVER_LIMITS,  # a request's head and body within seconds
        )
        await runner.setup()
        return runner

    async def listen(self, runner: web.AppRunner) -> None:
        """Listen on the socket or the port, each connection counted against the caps."""
        limits = Limits(self.settings.trusted_proxies, total=connection_room())
        if self.listener is not None:
            await CappedSite(runner, limits, sock=self.listener).start()
        else:
            await CappedSite(runner, limits, host=self.host, port=self.port).start()

    async def _serve(self) -> None:
        runner = await self.runner()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await self.listen(runner)
            # Only once it listens, so whoever reads the line can connect at once. Standard output, never the log.
            print(self.sign_in_line(), flush=True)
            log.info("%s", self.listening_line())
            await stop.wait()
        finally:
            await runner.cleanup()  # on_shutdown ends every console, then open handlers get a second
            if self.listener is not None:
                remove_socket(self.settings.socket_path)
