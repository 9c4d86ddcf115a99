"""A real `stablepay-console web` for the web mode's tests: started as a subprocess on a free loopback port,
read through the printed sign-in line, and a WebSocket client whose frames feed a screen read as text (the
terminal draws into a canvas in the browser; the frames are the same bytes).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from stablepay_console.tui.runtime.hand_over import CONSOLE_NAME, SPARE_NAME
from tests.ci import missing
from tests.plain_screen import PlainScreen

CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1280, "height": 800}
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
START_BACKSTOP = 120.0
"""How long a web server may take to print its sign-in line on a loaded machine (a backstop, not a promise)."""


def need_web() -> None:
    try:
        import aiohttp  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError:
        missing("textual-serve is not installed", 'pip install -e ".[test]"')


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Callable[[], object], seconds: float = 20.0, every: float = 0.05) -> object:
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(every)


@dataclass
class WebServer:
    process: subprocess.Popen[str]
    port: int
    signin_line: str
    log_path: Path
    out_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        found = re.search(r"\?token=(\S+)", self.signin_line)
        return found.group(1) if found else ""

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def consoles(self) -> list[int]:
        """Live console processes this server started and handed to someone (its children's process groups)."""
        return console_pids(self.process.pid)

    def spares(self) -> list[int]:
        """Live console processes this server started that serve nobody yet (its spare)."""
        return console_pids(self.process.pid, SPARE_NAME)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        for pid in [*self.consoles(), *self.spares()]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)


class SignInProxy:
    """A stand-in for the sign-in proxy in front of the web server (oauth2-proxy, say), on a free loopback port.

    It forwards every connection to the server and says who is signed in the way such a proxy does: the request
    head gets `X-Forwarded-User` from the stand-in's own session cookie (`COOKIE`, whose value is the user),
    whatever the browser sent in that header itself. The WebSocket's upgrade request carries the cookie as every
    request does, so the console's socket is signed in too. One request a connection (`Connection: close` on all
    but an upgrade): a keep-alive connection's next request would pass the proxy unread."""

    COOKIE = "standin_user"

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.thread = threading.Thread(target=self.serve, name="sign-in-proxy", daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> SignInProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.listener.close()

    def serve(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            threading.Thread(target=self.forward, args=(client,), daemon=True).start()

    def forward(self, client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(65536)
                if not chunk:
                    return
                head += chunk
            head, rest = head.split(b"\r\n\r\n", 1)
            with socket.create_connection(("127.0.0.1", self.upstream)) as server:
                server.sendall(self.signed(head) + b"\r\n\r\n" + rest)
                back = threading.Thread(target=relay, args=(server, client), daemon=True)
                back.start()
                relay(client, server)
                back.join()

    def signed(self, head: bytes) -> bytes:
        request, *lines = head.decode("latin-1").split("\r\n")
        names = {line.split(":", 1)[0].strip().lower(): line for line in lines}
        user = ""
        for part in names.get("cookie", "cookie:").split(":", 1)[1].split(";"):
            name, _, value = part.strip().partition("=")
            if name == self.COOKIE:
                user = value
        upgrade = "websocket" in names.get("upgrade", "").lower()
        dropped = {"x-forwarded-user"} if upgrade else {"x-forwarded-user", "connection"}
        kept = [line for line in lines if line.split(":", 1)[0].strip().lower() not in dropped]
        if user:
            kept.append(f"X-Forwarded-User: {user}")
        if not upgrade:
            kept.append("Connection: close")
        return "\r\n".join([request, *kept]).encode("latin-1")


def relay(source: socket.socket, sink: socket.socket) -> None:
    """Bytes from `source` to `sink` until `source` ends; then `sink` hears that nothing more comes."""
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def console_pids(server_pid: int, name: str = CONSOLE_NAME) -> list[int]:
    """The server's children named `name`: a console names itself `stablepay-web` once handed to someone, and
    `stablepay-spare` while it waits (tui/runtime/hand_over.py); each was started for the web server."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == server_pid and state != "Z" and comm == name and b"STABLEPAY_WEB_HAND_OVER=1" in environ:
            found.append(pid)
    return found


@contextlib.contextmanager
def web_server(config_dir: Path, *args: str, env: dict[str, str] | None = None,
               host: str = "127.0.0.1", socket_path: Path | None = None, spare: bool = False,
               port: int | None = None) -> Iterator[WebServer]:
    """The server on a free loopback port (or `port`), or (`socket_path`) on that Unix socket and no port at all.

    Without a spare (`--no-spare`) unless `spare`: a spare is a whole console process started ahead, and again
    after each hand-over, so a server whose test opens one console or none would start one or two for nothing.
    The tests of the spare itself, of what a handed-over console may hold, and the browser's own flows keep it."""
    need_web()
    if not spare and "--no-spare" not in args:
        args = (*args, "--no-spare")
    port = port or free_port()
    out, err = config_dir.parent / f"web-{port}.out", config_dir.parent / f"web-{port}.log"
    environment = {**os.environ, "STABLEPAY_CONFIG_DIR": str(config_dir),
                   "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **(env or {})}
    where = ["--socket", str(socket_path)] if socket_path else ["--host", host, "--port", str(port)]
    with open(out, "w") as stdout, open(err, "w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "stablepay_console", "web", *where, *args],
            stdout=stdout, stderr=stderr, env=environment, text=True, cwd=config_dir.parent,
        )
    server = WebServer(process, port, "", err, out)
    try:
        line = wait_until(lambda: out.read_text().strip() or process.poll() is not None, START_BACKSTOP)
        if process.poll() is not None:
            raise AssertionError(f"the web server ended: {err.read_text()[-2000:]}")
        assert line, "the web server printed no sign-in line"
        server.signin_line = out.read_text().strip()
        yield server
    finally:
        server.stop()


@dataclass
class Terminal:
    """A console over the WebSocket, its frames drawn on a screen read as text (tests/plain_screen.py)."""

    columns: int = 120
    lines: int = 40
    frames: list[bytes] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.screen = PlainScreen(self.columns, self.lines)

    def feed(self, data: bytes) -> None:
        self.frames.append(data)
        self.screen.feed(data)

    @property
    def text(self) -> str:
        return self.screen.text


async def ws_session(server: WebServer, cookie: str | None = None, headers: dict[str, str] | None = None,
                     origin: str | None = "", columns: int = 120, lines: int = 40,
                     local_addr: tuple[str, int] | None = None,
                     unix: Path | None = None):  # type: ignore[no-untyped-def]
    """Open `/ws` as a browser would (through the Unix socket `unix`, if given: as the proxy does); returns
    (session, websocket) or raises aiohttp's error."""
    import aiohttp

    sent = dict(headers or {})
    if origin is not None:
        sent["Origin"] = origin or server.base
    if cookie:
        sent["Cookie"] = f"stablepay_session={cookie}"
    connector: aiohttp.BaseConnector | None = None
    if unix is not None:
        connector = aiohttp.UnixConnector(path=str(unix))
    elif local_addr:
        connector = aiohttp.TCPConnector(local_addr=local_addr)
    base = "ws://localhost" if unix is not None else server.base.replace("http", "ws", 1)
    session = aiohttp.ClientSession(connector=connector)
    try:
        ws = await session.ws_connect(f"{base}/ws?width={columns}&height={lines}", headers=sent)
    except BaseException:
        await session.close()
        raise
    return session, ws


async def refused_ws(server: WebServer, **kwargs: object) -> int:
    """The status /ws answers instead of upgrading (0 if it upgraded: a failure of the test)."""
    import aiohttp

    try:
        session, ws = await ws_session(server, **kwargs)  # type: ignore[arg-type]
    except aiohttp.WSServerHandshakeError as exc:
        return exc.status
    await ws.close()
    await session.close()
    return 0


def get(url: str, headers: dict[str, str] | None = None, *, timeout: float = 20.0) -> tuple[int, str, dict[str, str]]:
    """One plain GET that follows no redirect: (status, body, headers), an HTTP error's included."""
    import urllib.error
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace"), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace"), dict(exc.headers)


async def console_refusal(server: WebServer, **kwargs: object) -> str:
    """Why `/ws` gave no console: "HTTP 403" when it did not upgrade (not signed in, a foreign page), or the
    reason the server sent its page before closing. Fails the test if a console started instead."""
    import aiohttp

    try:
        session, ws = await ws_session(server, **kwargs)  # type: ignore[arg-type]
    except aiohttp.WSServerHandshakeError as exc:
        return f"HTTP {exc.status}"
    try:
        reasons = []
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                raise AssertionError(f"a console started: {message.data[:200]!r}")
            if message.type == aiohttp.WSMsgType.TEXT:
                found = json.loads(message.data)
                if found[0] == "stablepay_reason":
                    reasons.append(str(found[1]))
        assert ws.close_code == aiohttp.WSCloseCode.POLICY_VIOLATION, ws.close_code
        return " ".join(reasons)
    finally:
        await ws.close()
        await session.close()


async def pump(ws, terminal: Terminal, until: Callable[[Terminal], bool], seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    """Read frames into the terminal until `until(terminal)` or the deadline."""
    import aiohttp

    deadline = time.monotonic() + seconds
    while not until(terminal):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            message = await asyncio.wait_for(ws.receive(), left)
        except TimeoutError:
            return until(terminal)
        if message.type == aiohttp.WSMsgType.BINARY:
            terminal.feed(message.data)
        elif message.type == aiohttp.WSMsgType.TEXT:
            terminal.texts.append(message.data)
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
            return until(terminal)
    return True


async def send_keys(ws, text: str) -> None:  # type: ignore[no-untyped-def]
    await ws.send_str(json.dumps(["stdin", text]))


def signin_cookie(server: WebServer) -> str:
    """Exchange the token for a session cookie, as a browser's first visit does."""
    import urllib.request

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(f"{server.base}/?token={server.token}")
    except urllib.error.HTTPError as exc:
        assert exc.code == 303, exc.code
        found = re.search(r"stablepay_session=([^;]+)", exc.headers.get("Set-Cookie", ""))
        assert found
        return found.group(1)
    raise AssertionError("the token was not exchanged for a cookie")


def deliveries(terminal: Terminal) -> list[str]:
    """The download keys a console announced to its browser (textual-serve's `deliver_file_start`)."""
    keys = []
    for text in terminal.texts:
        message = json.loads(text)
        if isinstance(message, list) and message and message[0] == "deliver_file_start":
            keys.append(str(message[1]))
    return keys


OSC52 = re.compile(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


class Browser:
    """One page of the console: every response body, every frame, drawn on a screen as large as any fit."""

    def __init__(self, context, page) -> None:  # type: ignore[no-untyped-def]
        self.context, self.page = context, page
        self.terminal = Terminal(240, 80)
        self.bodies: list[bytes] = []
        self.sockets: list[str] = []
        page.on("websocket", self._socket)
        page.on("response", self._response)

    def _socket(self, ws) -> None:  # type: ignore[no-untyped-def]
        self.sockets.append(ws.url)

        def received(payload: str | bytes) -> None:
            if isinstance(payload, bytes):
                self.terminal.feed(payload)
            else:
                self.terminal.texts.append(payload)

        ws.on("framereceived", received)

    def _response(self, response) -> None:  # type: ignore[no-untyped-def]
        try:
            self.bodies.append(response.body())
        except Exception:  # a redirect has no body
            self.bodies.append(response.status_text.encode())

    def wait_for(self, check, seconds: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + seconds
        while not check(self.terminal.text):
            if time.monotonic() > deadline:
                return False
            self.page.wait_for_timeout(50)
        return True

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)

    def copied(self) -> list[str]:
        """What the console put on the clipboard (OSC 52 in its frames, which the page hands the browser)."""
        return [base64.b64decode(m).decode() for m in OSC52.findall(b"".join(self.terminal.frames))]


@contextlib.contextmanager
def headless_chromium() -> Iterator[object]:
    """Debian's chromium under Playwright, for one test."""
    need_web()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


def open_console(chromium, url: str, click: bool = True) -> Browser:  # type: ignore[no-untyped-def]
    """A page of the console at 1280x800; `click`: focused by a click, as a user's first click does."""
    context = chromium.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.split("/?", 1)[0])
    page = context.new_page()
    browser = Browser(context, page)
    page.goto(url)
    if not click:
        return browser
    # Focus, as a user's first click does: on the banner's corner, not the middle, where a click that lands
    # after the inbox has loaded would move its cursor to whichever request sits there.
    page.locator("#terminal").click(position={"x": 4, "y": 4})
    return browser


def launch_chromium(playwright):  # type: ignore[no-untyped-def]
    """Debian's chromium, headless (Playwright's own browser download is not used)."""
    if not Path(CHROMIUM).exists():
        missing("no chromium at /usr/bin/chromium", "apt-get install chromium")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
