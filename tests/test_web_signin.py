"""`stablepay-console web` over real HTTP, the server a process of its own: the token becomes a cookie that opens
the page, a console starts for the signed-in user (or the user the trusted proxy names) and ends with its tab,
consoles are capped, idle ones end, SIGTERM or SIGKILL ends them all. What the server refuses before any console
starts is proved in process: tests/test_web_refusals.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import signal
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from stablepay_console.web.proxy import from_trusted
from stablepay_console.web.settings import WebSettings, proxy_network
from stablepay_console.web.signin import SignIn, SignIns
from tests.web_harness import (
    Terminal,
    console_refusal,
    get,
    pump,
    signin_cookie,
    wait_until,
    web_server,
    ws_session,
)


def test_the_token_becomes_a_strict_cookie_and_leaves_the_address(isolated_config: Path) -> None:
    with web_server(isolated_config) as server:
        assert get(f"{server.base}/healthz")[:2] == (200, "ok")
        assert get(f"{server.base}/")[0] == 401  # not signed in (every refusal: tests/test_web_refusals.py)
        status, _, headers = get(server.signin_line)
        assert status == 303 and headers["Location"] == "/"
        cookie = headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
        assert server.token not in cookie
        value = cookie.split(";")[0].split("=", 1)[1]
        status, page, headers = get(f"{server.base}/", {"Cookie": f"stablepay_session={value}"})
        assert status == 200 and 'class="textual-terminal"' in page
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert "fonts.googleapis" not in page and server.token not in page
        assert get(f"{server.base}/static/js/textual.js", {"Cookie": f"stablepay_session={value}"})[0] == 200
        assert get(f"{server.base}/", {"Cookie": "stablepay_session=forged"})[0] == 401
        assert server.token not in server.log()
        assert "sign-in user=" in server.log()


async def test_a_console_starts_for_the_signed_in_user_and_ends_with_its_tab(isolated_config: Path) -> None:
    with web_server(isolated_config, spare=True) as server:
        session, ws = await ws_session(server, cookie=signin_cookie(server), columns=80, lines=24)
        terminal = Terminal(80, 24)
        assert await pump(ws, terminal, lambda t: "SANDBOX" in t.text and " issued " in t.text, 60), terminal.text
        [pid] = server.consoles()
        user = os.environ.get("USER") or __import__("getpass").getuser()
        assert f" {user} " in terminal.screen.display[0]  # the banner names who signed in
        command = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
        assert command == [sys.executable.encode(), b"-m", b"stablepay_console"]  # the name is never in argv
        # Started before anyone signed in (a spare): the name came in its hand-over, on its standard input.
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert not any(e.startswith((b"STABLEPAY_WEB_USER=", b"STABLEPAY_RECORD_ROLE=")) for e in environ)
        assert os.getpgid(pid) == pid  # a process group of its own
        await ws.close()
        await session.close()
        assert wait_until(lambda: not server.consoles(), 15), "the console outlived its tab"
        # The server logs the end once it has reaped the console: a moment after the process is gone.
        assert wait_until(lambda: "session end user=" in server.log(), 15), server.log()
        assert "session start user=" in server.log()


def test_idle_signins_are_forgotten() -> None:
    signins = SignIns(WebSettings(), "ops")
    idle, used = signins.start("ops", "token"), signins.start("ops", "token")
    twelve_hours = 12 * 3600.0
    idle.last_seen -= twelve_hours + 1  # unused for just over twelve hours
    used.last_seen -= twelve_hours - 60  # a minute short of it: this browser comes back in time
    assert signins.by_cookie(used.id) is used
    assert signins.by_cookie(idle.id) is None, "a browser unused for twelve hours was still signed in"
    used.last_seen -= 120  # its visit above started its twelve hours again
    assert signins.by_cookie(used.id) is used
    idle.last_seen += twelve_hours  # forgotten for good: no later clock brings it back
    assert signins.by_cookie(idle.id) is None
    assert signins.by_cookie("") is None and signins.by_cookie(None) is None


def test_a_signed_out_sign_in_is_ended_and_its_cookie_opens_nothing() -> None:
    signins = SignIns(WebSettings(), "ops")
    out, kept = signins.start("ops", "token"), signins.start("ops", "token")
    signins.end(out)
    assert out.ended, "what the server's handlers check before they open a page or a console"
    assert signins.by_cookie(out.id) is None, "a signed-out cookie still signed in"
    assert signins.by_cookie(kept.id) is kept and not kept.ended, "signing one browser out signs out no other"
    signins.end(out)  # a second sign-out of the same browser (two tabs) is no error


NOT_A_NAME = "the sign-in header does not hold a valid user name"


def test_a_proxy_header_counts_only_from_a_trusted_address(caplog: pytest.LogCaptureFixture) -> None:
    settings = WebSettings(trusted_header="X-Forwarded-User",
                           trusted_proxies=(proxy_network("10.1.0.0/16"), proxy_network("::1")))
    signins = SignIns(settings, "ops")
    assert signins.by_header("10.1.2.3", None) is None  # no header at all: not a header sign-in
    for remote in ("10.2.0.1", None, "", "proxy.example", "10.1.2.3.4"):  # the proxy's address is checked first
        assert not from_trusted(remote, settings.trusted_proxies), remote
    assert from_trusted("10.1.2.3", settings.trusted_proxies) and from_trusted("::1%lo", settings.trusted_proxies)
    for name in ("", " ", "-alice", ".alice", "al ice", "al;ice", "a" * 64, "alice\x1b[2J"):
        assert signins.by_header("10.1.2.3", name) == NOT_A_NAME, name
    with caplog.at_level(logging.INFO, logger="stablepay_console.web.access"):
        alice = signins.by_header("10.1.2.3", " alice ")
    assert isinstance(alice, SignIn) and (alice.user, alice.via) == ("alice", "header")
    assert caplog.messages == [f"sign-in user=alice via=header from=10.1.2.3 session={alice.short}"]
    assert alice.id not in caplog.text  # the cookie's value is never logged
    signins.start("alice", "token")  # a browser of the same name signed in with the token is another sign-in
    alice.last_seen -= 600
    assert signins.by_header("::1%lo", "alice") is alice  # one sign-in per user through the proxy, seen again
    assert alice.last_seen > time.monotonic() - 60
    bob = signins.by_header("10.1.255.255", "bob.smith@example")
    assert isinstance(bob, SignIn) and bob is not alice and bob.user == "bob.smith@example"
    assert isinstance(signins.by_header("10.1.2.3", "b" * 63), SignIn)


def test_a_cookie_or_token_counts_only_whole() -> None:
    signins = SignIns(WebSettings(), "ops", token="the-server-token")
    assert signins.user == "ops"  # who signs in with the token: the server's own user
    assert signins.token_matches("the-server-token")
    assert not any(signins.token_matches(t) for t in ("the-server-toke", "the-server-tokenX", "", "THE-SERVER-TOKEN"))
    made = SignIns(WebSettings(), "ops").token
    assert len(made) >= 43 and made != SignIns(WebSettings(), "ops").token  # 32 random bytes, new each start
    signin = signins.start("ops", "token")
    assert signins.by_cookie(signin.id) is signin
    assert signins.by_cookie(signin.id[:-1]) is None and signins.by_cookie(signin.id + "x") is None
    assert signin.short == hashlib.sha256(signin.id.encode()).hexdigest()[:8] and signin.short not in signin.id
    assert len(signin.id) >= 43 and signins.start("ops", "token").id != signin.id


async def test_the_trusted_proxys_header_signs_in_and_its_console_names_the_user(isolated_config: Path) -> None:
    """The header's refusals (no header, a bad name, an address that is not the proxy's) are proved in process
    (tests/test_web_refusals.py); here the real server, told its proxy on the command line, gives alice a console."""
    args = ("--trusted-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1")
    with web_server(isolated_config, *args) as server:
        header = {"X-Forwarded-User": "alice"}
        assert server.signin_line == f"{server.base}/"  # a URL to open, nothing else on the line
        assert get(f"{server.base}/")[0] == 401  # no header: not signed in
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))) as client:
            async with client.get(f"{server.base}/", headers=header) as response:
                assert response.status == 403  # the header from an address that is not the proxy's
        assert "not a trusted proxy" in server.log()
        status, page, _ = get(f"{server.base}/", header)  # the page: its console starts as it is served
        assert status == 200 and 'class="textual-terminal"' in page
        session, ws = await ws_session(server, headers=header, columns=80, lines=24)
        terminal = Terminal(80, 24)
        assert await pump(ws, terminal, lambda t: " alice " in t.screen.display[0], 60), terminal.text
        assert "session start user=alice" in server.log() and "(started with its page)" in server.log()
        await ws.close()
        await session.close()
        assert wait_until(lambda: not server.consoles(), 15)


async def test_consoles_are_capped_per_user(isolated_config: Path) -> None:
    with web_server(isolated_config, "--max-sessions-per-user", "1") as server:
        cookie = signin_cookie(server)
        session, ws = await ws_session(server, cookie=cookie)
        assert wait_until(lambda: server.consoles(), 30)
        why = await console_refusal(server, cookie=cookie)  # signed in, from the page: told why
        assert why == "No console for you here: you have 1 consoles open, the limit per user; close a tab first"
        assert "limit per user" in server.log() and len(server.consoles()) == 1
        await ws.close()
        await session.close()
        assert wait_until(lambda: not server.consoles(), 15)


async def test_an_idle_console_ends(isolated_config: Path) -> None:
    with web_server(isolated_config, "--idle-minutes", "0.05") as server:  # 3 s
        session, ws = await ws_session(server, cookie=signin_cookie(server))
        terminal = Terminal()
        closed = await pump(ws, terminal, lambda t: ws.closed, 30)
        assert closed, "the idle console was not ended"
        await session.close()
        assert wait_until(lambda: not server.consoles(), 15)
        assert "session idle" in server.log()


async def test_sigterm_ends_every_console_and_the_server(isolated_config: Path) -> None:
    with web_server(isolated_config) as server:
        cookie = signin_cookie(server)
        opened = [await ws_session(server, cookie=cookie) for _ in range(2)]
        assert wait_until(lambda: len(server.consoles()) == 2, 40)
        terminals = [Terminal() for _ in opened]
        for (_, ws), terminal in zip(opened, terminals, strict=True):
            assert await pump(ws, terminal, lambda t: "SANDBOX" in t.text, 60)
        pids = server.consoles()
        server.process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        code = await loop.run_in_executor(None, server.process.wait, 10)
        took = time.monotonic() - started
        assert code is not None
        for session, _ in opened:
            await session.close()
        for pid in pids:
            assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
        print(f"SIGTERM to gone: {took:.2f} s")  # a figure, not an assertion: benchmarks/ times things


def test_a_bad_flag_ends_the_command_with_status_2_before_anything_listens(isolated_config: Path) -> None:
    """Each refused flag is proved in process (tests/test_web_refusals.py); here the command itself exits 2."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "stablepay_console", "web", "--trusted-header", "X-Forwarded-User"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config)})
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert "--trusted-header needs --socket or at least one --trusted-proxy" in done.stderr


async def test_a_console_ends_when_its_server_is_killed_outright(isolated_config: Path) -> None:
    """The server is the console's terminal: killed with SIGKILL (no shutdown of its own), its consoles get SIGHUP
    from the kernel and end within the exit guard's 2 s, instead of running on with nobody to see them."""
    with web_server(isolated_config) as server:
        session, ws = await ws_session(server, cookie=signin_cookie(server), columns=80, lines=24)
        terminal = Terminal(80, 24)
        assert await pump(ws, terminal, lambda t: "SANDBOX" in t.text, 60), terminal.text
        [pid] = server.consoles()
        server.process.kill()
        server.process.wait(10)
        assert wait_until(lambda: not Path(f"/proc/{pid}").exists()
                          or " Z " in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3], 15), \
            f"console {pid} outlived its server"
        await session.close()
