"""The browser page's proxy set-up, as printed: its set-up commands, its server command and its nginx server block
(all read from docs/web.md, as tests/test_readme.py reads the README's test command), with Debian's nginx in front
of the web server and a small stand-in for oauth2-proxy's sign-in.

Only what must differ on a test machine is replaced, each exactly once: the paths under /run and /etc become
a temporary folder's, `listen 443 ssl` a free loopback port, oauth2-proxy's 127.0.0.1:4180 the stand-in's
port, and the public URL nginx's own address.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import re
import shlex
import shutil
import signal
import socket
import socketserver
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from tests.ci import missing
from tests.web_harness import (
    Terminal,
    console_refusal,
    deliveries,
    free_port,
    pump,
    send_keys,
    wait_until,
    web_server,
    ws_session,
)
from tests.web_harness import get as harness_get

ROOT = Path(__file__).resolve().parent.parent
NGINX = "/usr/sbin/nginx"
SIGNED_IN = "_oauth2_proxy"
"""The stand-in's session cookie: its value is the signed-in user (oauth2-proxy's is encrypted, of course)."""


def web_page() -> str:
    return (ROOT / "docs" / "web.md").read_text(encoding="utf-8")


def code_blocks() -> list[str]:
    return re.findall(r"```\n(.*?)\n```", web_page(), flags=re.S)


def block_with(marker: str) -> str:
    [found] = [block for block in code_blocks() if marker in block]
    return found


def replaced(text: str, changes: list[tuple[str, str]]) -> str:
    """`text` with each (old, new) replaced; each `old` must be there (docs/web.md changed otherwise)."""
    for old, new in changes:
        assert old in text, f"docs/web.md no longer has {old!r}"
        text = text.replace(old, new)
    return text


class StandIn(BaseHTTPRequestHandler):
    """oauth2-proxy's part: /oauth2/auth says 202 with X-Auth-Request-User to a signed-in browser, else 401."""

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        cookies = dict(part.strip().split("=", 1) for part in self.headers.get("Cookie", "").split(";") if "=" in part)
        user = cookies.get(SIGNED_IN, "")
        if path == "/oauth2/auth" and user:
            self.answer(202, headers={"X-Auth-Request-User": user})
        elif path == "/oauth2/auth":
            self.answer(401)
        elif path == "/oauth2/sign_in":
            self.answer(200, b"Sign in with your company account")
        else:
            self.answer(404)

    def answer(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@dataclass
class SetUp:
    folder: Path
    socket: Path
    secret_file: Path
    nginx_secret: Path
    public: str
    nginx_port: int
    stand_in_port: int


def need_nginx() -> None:
    if not Path(NGINX).exists():
        missing("no nginx at /usr/sbin/nginx", "apt-get install nginx")


@pytest.fixture
def set_up() -> Iterator[SetUp]:
    """The page's commands as root, into a temporary folder (as another account: its own group for www-data)."""
    need_nginx()
    folder = Path(tempfile.mkdtemp(prefix="stablepay-nginx-"))
    folder.chmod(0o755)  # nginx's workers pass through it to the socket's folder
    me = pwd.getpwuid(os.geteuid()).pw_name
    group = "www-data" if os.geteuid() == 0 else grp.getgrgid(os.getegid()).gr_name
    for name in ("etc-nginx", "tmpfiles.d"):
        (folder / name).mkdir()
    # The server's account `stablepay` (a word of its own, not in a path) is this one; nginx's group is www-data.
    commands = re.sub(r"(?<![/\w.-])stablepay(?![\w./-])", me, block_with("openssl rand")).replace("www-data", group)
    commands = replaced(commands, [
        ("/run/stablepay", str(folder / "run")),
        ("/etc/tmpfiles.d/stablepay.conf", str(folder / "tmpfiles.d" / "stablepay.conf")),
        ("/etc/stablepay", str(folder / "etc-stablepay")),
        ("/etc/nginx/", str(folder / "etc-nginx") + "/"),
    ])
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    try:
        yield SetUp(folder, folder / "run" / "web.sock", folder / "etc-stablepay" / "proxy-secret",
                    folder / "etc-nginx" / "stablepay-secret.conf", "", free_port(), 0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def stand_in(set_up: SetUp) -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    set_up.stand_in_port = int(server.server_address[1])
    try:
        yield set_up.stand_in_port
    finally:
        server.shutdown()
        thread.join(10)


@contextlib.contextmanager
def nginx(set_up: SetUp) -> Iterator[None]:
    """Debian's nginx, not a daemon, with its own prefix and the page's server block."""
    server_block = replaced(block_with("server {"), [
        ("listen 443 ssl;", f"listen 127.0.0.1:{set_up.nginx_port};"),
        ("127.0.0.1:4180", f"127.0.0.1:{set_up.stand_in_port}"),
        ("/run/stablepay/web.sock", str(set_up.socket)),
        ("/etc/nginx/stablepay-secret.conf", str(set_up.nginx_secret)),
    ])
    prefix = set_up.folder / "nginx"
    prefix.mkdir()
    temp = "\n".join(f"    {kind}_temp_path {prefix}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                            "scgi"))
    user = "user www-data;\n" if os.geteuid() == 0 else ""
    conf = prefix / "nginx.conf"
    conf.write_text(f"{user}worker_processes 1;\ndaemon off;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
                    f"events {{ worker_connections 64; }}\nhttp {{\n    access_log {prefix}/access.log;\n{temp}\n"
                    f"{server_block}\n}}\n")
    process = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        def listening() -> bool:
            if process.poll() is not None:
                return True
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", set_up.nginx_port)) == 0

        assert wait_until(listening, 20)
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        yield
    finally:
        process.send_signal(signal.SIGQUIT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def server_args(set_up: SetUp) -> list[str]:
    """The page's server command, its arguments after `web`, as they run here (the socket given apart)."""
    [command] = [b for b in code_blocks() if b.startswith(".venv/bin/stablepay-console web --socket")]
    words = shlex.split(replaced(command.replace("\\\n", " "), [
        ("/run/stablepay/web.sock", str(set_up.socket)),
        ("https://console.example.com", set_up.public),
        ("/etc/stablepay/proxy-secret", str(set_up.secret_file)),
    ]))
    assert words[:2] == [".venv/bin/stablepay-console", "web"]
    at = words.index("--socket")
    assert words[at + 1] == str(set_up.socket)
    return words[2:at] + words[at + 2:]


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    return harness_get(url, headers, timeout=30.0)  # through nginx, on a busy machine


def test_the_readme_commands_run_from_the_projects_venv() -> None:
    for block in code_blocks():
        for line in block.splitlines():
            if re.search(r"(^|\s)(stablepay-console|pip) ", line) and not line.lstrip().startswith("#"):
                assert re.search(r"\.venv/bin/(stablepay-console|pip) ", line), line


async def test_the_readme_proxy_in_front_of_the_console(isolated_config: Path, set_up: SetUp, stand_in: int) -> None:
    set_up.public = f"http://127.0.0.1:{set_up.nginx_port}"
    base = set_up.public
    alice = {"Cookie": f"{SIGNED_IN}=alice"}
    args = [*server_args(set_up), "--max-sessions-per-user", "1"]
    with web_server(isolated_config, *args, socket_path=set_up.socket) as server, nginx(set_up):
        assert server.signin_line == f"{base}/"
        # A load balancer's check passes without signing in, and is answered by the console's server.
        assert get(f"{base}/healthz")[:2] == (200, "ok")
        # A signed-out browser is sent to sign in, with where it was going.
        status, _, headers = get(f"{base}/", {"X-Forwarded-User": "carol"})  # its own header counts for nothing
        where = urlsplit(headers.get("Location", ""))
        assert status == 302 and where.path == "/oauth2/sign_in", headers
        assert where.query == "rd=http://127.0.0.1/", headers
        # Signed in: the console's page, as the user the sign-in named, whatever header the browser sent.
        status, page, _ = get(f"{base}/", {**alice, "X-Forwarded-User": "carol", "X-Stablepay-Proxy-Secret": "guess"})
        assert status == 200 and 'class="textual-terminal"' in page
        assert "sign-in user=alice via=header from=socket" in server.log()
        assert "user=carol" not in server.log()
        # The terminal's WebSocket from another site's page is refused through the proxy too.
        endpoint = SimpleNamespace(base=base)
        assert await console_refusal(endpoint, headers=alice, origin="https://evil.example") == "HTTP 403"
        # The console, and an export downloaded through the proxy.
        session, ws = await ws_session(endpoint, headers={**alice, "X-Forwarded-User": "carol"}, columns=100,
                                       lines=30)
        terminal = Terminal(100, 30)
        try:
            assert await pump(ws, terminal, lambda t: " issued " in t.text and " alice " in t.text, 60), terminal.text
            assert " carol " not in terminal.screen.display[0]
            await ws.send_str('["focus"]')
            assert await pump(ws, terminal, lambda t: "n Next" in t.text, 30), terminal.text
            await send_keys(ws, "e")
            assert await pump(ws, terminal, lambda t: "Delivered to your browser" in t.text, 20), terminal.text
            await send_keys(ws, "\r")
            assert await pump(ws, terminal, lambda t: bool(deliveries(t)), 60), terminal.text
            [key] = deliveries(terminal)
            assert await pump(ws, terminal, lambda t: "your browser downloads" in t.text, 20), terminal.text
            status, body, headers = get(f"{base}/download/{key}", alice)
            assert status == 200 and headers["Content-Disposition"].startswith('attachment; filename="rfis-')
            assert len(body.splitlines()) == 241
            # A second tab over the per-user limit is told why, through the proxy.
            why = await console_refusal(endpoint, headers=alice)
            assert why == "No console for you here: you have 1 consoles open, the limit per user; close a tab first"
        finally:
            await ws.close()
            await session.close()
        assert wait_until(lambda: not server.consoles(), 15)
        server.stop()
        # With the console's server down, the check fails: a load balancer sees it.
        assert get(f"{base}/healthz")[0] == 502


class Recorder(BaseHTTPRequestHandler):
    """Whatever listens behind a block: answers 200 and keeps each request's path and X-Forwarded-User."""

    seen: list[tuple[str, str | None]]

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("X-Forwarded-User")))
        self.answer()

    def answer(self) -> None:
        if self.path.startswith("/oauth2/auth"):  # the stand-in's part: a signed-in browser is alice
            signed_in = f"{SIGNED_IN}=alice" in self.headers.get("Cookie", "")
            self.send_response(202 if signed_in else 401)
            if signed_in:
                self.send_header("X-Auth-Request-User", "alice")
        else:
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


class UnixRecorderServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


PROBES = {
    "/oauth2/": ["/oauth2/start", "/oauth2/sign_in"],
    "= /oauth2/auth": ["/oauth2/auth"],  # internal: nginx answers 404 itself
    "@oauth2_signin": ["/"],  # signed out: sent to sign in
    "= /healthz": ["/healthz", "//healthz", "/static/../healthz", "/%68ealthz", "/healthz?x=1"],
    "/": ["/", "/ws", "/static/x.js", "/download/k"],
}
"""Each location of the page's server block, and requests nginx gives to it."""


def test_every_block_of_the_readme_proxy_clears_the_browsers_own_user_header(set_up: SetUp) -> None:
    """Issue 51, finding 7: `location = /healthz` passed the browser's own X-Forwarded-User to the console (and
    `/static/../healthz` reaches the console as written: a path its sign-in guards, named by that header)."""
    locations = re.findall(r"^\s*location\s+([^{]+?)\s*\{", block_with("server {"), flags=re.M)
    assert sorted(locations) == sorted(PROBES), "a block of docs/web.md's server block has no probe here"
    console_seen: list[tuple[str, str | None]] = []
    proxy_seen: list[tuple[str, str | None]] = []
    set_up.socket.parent.mkdir(exist_ok=True)
    console = UnixRecorderServer(str(set_up.socket), type("Console", (Recorder,), {"seen": console_seen}))
    os.chmod(set_up.socket, 0o666)
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), type("Proxy", (Recorder,), {"seen": proxy_seen}))
    set_up.stand_in_port = int(proxy.server_address[1])
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in (console, proxy)]
    for thread in threads:
        thread.start()
    try:
        with nginx(set_up):
            for location, paths in PROBES.items():
                for path in paths:
                    for cookie in ("", f"{SIGNED_IN}=alice"):
                        forged = {"X-Forwarded-User": "carol", **({"Cookie": cookie} if cookie else {})}
                        status = raw_get(set_up.nginx_port, path, forged)
                        assert status in (200, 302, 404), (location, path, status)
    finally:
        for server in (console, proxy):
            server.shutdown()
            server.server_close()
    assert console_seen and proxy_seen
    reached = {path for path, _ in console_seen}
    assert {"/healthz", "/static/../healthz", "/", "/ws"} <= reached, console_seen
    assert all(user in (None, "alice") for _, user in console_seen), console_seen
    assert all(user is None for _, user in proxy_seen), proxy_seen


def raw_get(port: int, path: str, headers: dict[str, str]) -> int:
    """A GET of `path` exactly as written (urllib would tidy `//healthz` and `..`): the status nginx answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
                 *(f"{name}: {value}" for name, value in headers.items())]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return int(answer.split(b" ", 2)[1])
