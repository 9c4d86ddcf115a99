"""Only the signing-in proxy speaks for a user: a trusted header sent by any other local process is refused.

With `--trusted-header-secret-file`, a request naming a user must carry the proxy's secret; with `--socket`,
the server listens on a Unix socket of mode 0660 in a folder of the proxy's group, and on no port at all.
"""

from __future__ import annotations

import grp
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.web_harness import Terminal, pump, refused_ws, wait_until, web_server, ws_session

SECRET = "0f3c9a7e5b1d4c8a9e2f6b3d7a1c5e9f"
SECRET_HEADER = "X-Stablepay-Proxy-Secret"
PROXY = ("--trusted-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1")
PUBLIC = "http://console.example.test"


def secret_file(folder: Path, text: str = SECRET, mode: int = 0o600) -> Path:
    path = folder / "proxy-secret"
    path.write_text(text + "\n")
    path.chmod(mode)
    return path


async def fetch(url: str, headers: dict[str, str], unix: Path | None = None) -> tuple[int, str]:
    """A plain HTTP GET, as any local process can send one (over TCP, or through the socket `unix`)."""
    connector = aiohttp.UnixConnector(path=str(unix)) if unix else None
    async with aiohttp.ClientSession(connector=connector) as client, client.get(url, headers=headers) as response:
        return response.status, await response.text()




async def test_a_local_process_without_the_proxys_secret_is_refused(isolated_config: Path) -> None:
    secret = secret_file(isolated_config.parent)
    with web_server(isolated_config, *PROXY, "--trusted-header-secret-file", str(secret)) as server:
        url = f"{server.base}/"
        status, page = await fetch(url, {"X-Forwarded-User": "carol"})
        assert status == 403 and "without the proxy&#x27;s secret" in page, page
        status, page = await fetch(url, {"X-Forwarded-User": "carol", SECRET_HEADER: SECRET[:-1] + "0"})
        assert status == 403 and "without the proxy&#x27;s secret" in page, page
        assert await refused_ws(server, headers={"X-Forwarded-User": "carol"}) == 403
        assert not server.consoles()
        status, page = await fetch(url, {"X-Forwarded-User": "alice", SECRET_HEADER: SECRET})
        assert status == 200 and 'class="textual-terminal"' in page
        session, ws = await ws_session(server, headers={"X-Forwarded-User": "alice", SECRET_HEADER: SECRET},
                                       columns=80, lines=24)
        terminal = Terminal(80, 24)
        try:
            assert await pump(ws, terminal, lambda t: " alice " in t.screen.display[0], 60), terminal.text
            [pid] = server.consoles()
            assert SECRET.encode() not in Path(f"/proc/{pid}/environ").read_bytes()
        finally:
            await ws.close()
            await session.close()
        assert wait_until(lambda: not server.consoles(), 15)
        log = server.log()
        assert "refused GET / from=127.0.0.1 status=403: the sign-in header came without the proxy's secret" in log
        assert "user=carol" not in log  # refused before anyone was signed in
        assert SECRET not in log and SECRET not in server.signin_line
        assert SECRET.encode() not in Path(f"/proc/{server.process.pid}/cmdline").read_bytes()


@pytest.mark.parametrize(("text", "mode", "said"), [
    (SECRET, 0o644, "chmod 600"),
    (SECRET, 0o640, "has mode 0640: the accounts of its group may use it"),
    ("short", 0o600, "16 to 256 visible ASCII"),
    ("two words but long enough", 0o600, "16 to 256 visible ASCII"),
])
def test_a_secret_file_others_may_read_or_that_is_not_a_secret_is_refused(
        isolated_config: Path, text: str, mode: int, said: str) -> None:
    path = secret_file(isolated_config.parent, text, mode)
    done = subprocess.run([sys.executable, "-m", "stablepay_console", "web", *PROXY,
                           "--trusted-header-secret-file", str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config)})
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert said in done.stderr and text not in done.stderr


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o620])
def test_a_secret_file_its_group_or_others_may_read_is_refused_naming_the_file_and_its_mode(
        tmp_path: Path, mode: int) -> None:
    """Issue 51, finding 6: 0640 was accepted, and an account of the file's group signed in as a lead."""
    from stablepay_console.web.proxy import read_secret

    path = secret_file(tmp_path, SECRET, mode)
    with pytest.raises(ValueError) as refused:
        read_secret(str(path))
    said = str(refused.value)
    assert f"the proxy's secret file {path} has mode {mode:04o}" in said, said
    assert f"chmod 600 {path}" in said and SECRET not in said


@pytest.mark.parametrize("mode", [0o600, 0o400])
def test_a_secret_file_only_its_owner_may_read_is_accepted(tmp_path: Path, mode: int) -> None:
    from stablepay_console.web.proxy import read_secret

    assert read_secret(str(secret_file(tmp_path, SECRET, mode))) == SECRET


@pytest.fixture
def proxy_folder() -> Iterator[Path]:
    """A folder as docs/web.md makes /run/stablepay: the server's, group www-data, set-group-ID, mode 2750."""
    folder = Path(tempfile.mkdtemp(prefix="stablepay-web-"))
    try:
        if os.geteuid() == 0:
            os.chown(folder, 0, grp.getgrnam("www-data").gr_gid)
            folder.chmod(0o2750)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def listening_tcp(pid: int) -> list[str]:
    """The TCP sockets process `pid` listens on (state 0A in /proc/net/tcp*), as their local address."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                found.append(fields[1])
    return found


def connect_as(user: str, path: Path) -> str:
    """Open the socket as another account of this machine (the system Python, run by runuser)."""
    script = ("import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1])\n"
              "except OSError as e:\n print('refused', e.strerror)\nelse:\n"
              " s.sendall(b'GET /healthz HTTP/1.0\\r\\n\\r\\n'); print(s.recv(200).decode().splitlines()[0])\n")
    done = subprocess.run(["runuser", "-u", user, "--", "/usr/bin/python3", "-c", script, str(path)],
                          capture_output=True, text=True, timeout=30, check=False)
    return done.stdout.strip() or done.stderr.strip()


async def test_over_the_socket_only_its_group_reaches_the_console(isolated_config: Path,
                                                                  proxy_folder: Path) -> None:
    path = proxy_folder / "web.sock"
    args = ("--public-url", PUBLIC, "--trusted-header", "X-Forwarded-User")
    with web_server(isolated_config, *args, socket_path=path) as server:
        assert server.signin_line == f"{PUBLIC}/"
        said = f"listening on the socket {path} for {PUBLIC}/"
        assert wait_until(lambda: said in server.log(), 30), server.log()  # standard error may follow the sign-in
        mode = os.stat(path).st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o660, oct(mode)
        assert listening_tcp(server.process.pid) == []  # no port for a local process to send the header to
        status, page = await fetch("http://localhost/", {"X-Forwarded-User": "alice"}, unix=path)
        assert status == 200 and 'class="textual-terminal"' in page
        session, ws = await ws_session(server, headers={"X-Forwarded-User": "alice"}, origin=PUBLIC, unix=path,
                                       columns=80, lines=24)
        terminal = Terminal(80, 24)
        try:
            assert await pump(ws, terminal, lambda t: " alice " in t.screen.display[0], 60), terminal.text
        finally:
            await ws.close()
            await session.close()
        assert wait_until(lambda: not server.consoles(), 15)
        assert "sign-in user=alice via=header from=socket" in server.log()
        if os.geteuid() == 0 and shutil.which("runuser"):  # other accounts exist to try it with
            assert os.stat(path).st_gid == grp.getgrnam("www-data").gr_gid  # the folder's group, by its set-gid bit
            assert connect_as("www-data", path) == "HTTP/1.0 200 OK"
            assert connect_as("nobody", path).startswith("refused Permission denied")
    assert not path.exists()  # removed when the server stops


def test_a_file_in_the_sockets_place_is_left_alone(isolated_config: Path, proxy_folder: Path) -> None:
    path = proxy_folder / "web.sock"
    path.write_text("someone's file")
    done = subprocess.run([sys.executable, "-m", "stablepay_console", "web", "--socket", str(path),
                           "--public-url", PUBLIC, "--trusted-header", "X-Forwarded-User"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config)})
    assert done.returncode == 2 and "not a socket" in done.stderr, done.stderr
    assert path.read_text() == "someone's file"


def test_a_socket_left_by_an_earlier_run_is_replaced(isolated_config: Path, proxy_folder: Path) -> None:
    path = proxy_folder / "web.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()  # bound, never listened: nothing answers on it
    with web_server(isolated_config, "--public-url", PUBLIC, socket_path=path) as server:
        assert server.signin_line.startswith(f"{PUBLIC}/?token=")
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o660
