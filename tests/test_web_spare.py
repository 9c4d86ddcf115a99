"""A console is started before anyone asks for it: the server keeps one spare (imported, nobody's), a page starts
its tab's console as it is served, and who it serves comes in one hand-over packet on its standard input.

A spare never has a user in its environment (not even one the server's own environment holds), each process
is handed over once, a console started for a page counts against the caps and goes to its own sign-in only,
and one no tab claims is ended.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stablepay_console.tui.runtime.hand_over import HandOver, HandOverError, decode, encode
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

IDENTITY = (b"STABLEPAY_WEB_USER=", b"STABLEPAY_RECORD_ROLE=")
PROXY = ("--trusted-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1")


def environ(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def test_a_hand_over_round_trips_and_nothing_else_passes_for_one() -> None:
    packet = encode(HandOver("alice", "alice", 142, 42))
    assert packet[:1] == b"M" and int.from_bytes(packet[1:5], "big") == len(packet) - 5
    assert decode(packet[5:]) == HandOver("alice", "alice", 142, 42)
    assert decode(encode(HandOver("bob", None, 9999, 1))[5:]) == HandOver("bob", None, 500, 5)  # sizes bounded
    for payload in (
        b"not json",
        json.dumps({"type": "resize", "width": 80, "height": 24}).encode(),  # a driver's packet is no hand-over
        json.dumps({"type": "hand_over", "user": "", "role": None, "width": 80, "height": 24}).encode(),
        json.dumps({"type": "hand_over", "user": "al\x1bice", "role": None, "width": 80, "height": 24}).encode(),
        json.dumps({"type": "hand_over", "user": "alice", "role": "carol", "width": 80, "height": 24}).encode(),
        json.dumps({"type": "hand_over", "user": "alice", "role": None}).encode(),
    ):
        with pytest.raises(HandOverError):
            decode(payload)


@pytest.mark.parametrize(("given", "code", "said"), [
    (b"", 0, ""),  # the server stopped the spare: it ends quietly
    (b"D\x00\x00\x00\x01q", 2, "the first packet is not a hand-over"),  # keys before anyone was handed it
    (b"M\x00\x10\x00\x00", 2, "the first packet is not a hand-over"),  # longer than a hand-over can be
])
def test_a_waiting_console_starts_on_a_hand_over_only(given: bytes, code: int, said: str,
                                                     isolated_config: Path) -> None:
    environment = {**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config), "STABLEPAY_WEB_HAND_OVER": "1"}
    done = subprocess.run([sys.executable, "-m", "stablepay_console"], input=given, capture_output=True, timeout=60,
                          env=environment, check=False)
    assert done.returncode == code, done.stderr
    assert done.stdout == b""  # nothing drawn
    assert done.stderr.decode().strip() == (f"stablepay-console: {said}" if said else "")


async def test_a_spare_never_carries_anyones_identity(isolated_config: Path) -> None:
    # Even a server whose own environment names someone starts its spares with nobody's name.
    env = {"STABLEPAY_WEB_USER": "mallory", "STABLEPAY_RECORD_ROLE": "mallory"}
    with web_server(isolated_config, *PROXY, env=env, spare=True) as server:
        assert wait_until(lambda: server.spares(), 30), server.log()
        [first] = server.spares()
        assert not any(e.startswith(IDENTITY) for e in environ(first))
        assert b"mallory" not in b"".join(environ(first))
        seen = {}
        for user in ("alice", "bob"):
            session, ws = await ws_session(server, headers={"X-Forwarded-User": user}, columns=100, lines=30)
            terminal = Terminal(100, 30)
            assert await pump(ws, terminal, lambda t, user=user: f" {user} " in t.screen.display[0], 60), \
                terminal.text
            assert "mallory" not in terminal.text
            [pid] = server.consoles()
            seen[user] = pid
            # The next spare: a new process, with nobody's name either.
            assert wait_until(lambda pid=pid: server.spares() and pid not in server.spares(), 30), server.log()
            [spare] = server.spares()
            assert not any(e.startswith(IDENTITY) for e in environ(spare))
            await ws.close()
            await session.close()
            assert wait_until(lambda: not server.consoles(), 15)
        assert seen["alice"] == first  # the spare was handed to alice...
        assert seen["bob"] != seen["alice"]  # ...once: bob got another process


async def test_a_page_starts_one_console_that_only_its_own_tab_gets(isolated_config: Path) -> None:
    with web_server(isolated_config, "--max-sessions-per-user", "1", "--unclaimed-seconds", "120",
                    spare=True) as server:
        mine, theirs = signin_cookie(server), signin_cookie(server)
        for _ in range(3):  # a page loaded three times: one console waits for its tab
            status, page, _ = get(f"{server.base}/", {"Cookie": f"stablepay_session={mine}"})
            assert status == 200 and 'class="textual-terminal"' in page
        assert server.log().count("console started for a page") == 1
        assert wait_until(lambda: len(server.consoles()) == 1, 30)
        [waiting] = server.consoles()
        # It counts against the cap, and another sign-in (even of the same user) does not get it.
        why = await console_refusal(server, cookie=theirs)
        assert why == "No console for you here: you have 1 consoles open, the limit per user; close a tab first"
        session, ws = await ws_session(server, cookie=mine, columns=100, lines=30)
        terminal = Terminal(100, 30)
        assert await pump(ws, terminal, lambda t: " issued " in t.text, 60), terminal.text
        assert server.consoles() == [waiting]
        assert "(started with its page)" in server.log()
        await ws.close()
        await session.close()
        assert wait_until(lambda: not server.consoles(), 15)


async def test_a_console_no_tab_claims_is_ended(isolated_config: Path) -> None:
    with web_server(isolated_config, "--unclaimed-seconds", "1", spare=True) as server:
        cookie = signin_cookie(server)
        assert get(f"{server.base}/", {"Cookie": f"stablepay_session={cookie}"})[0] == 200
        assert wait_until(lambda: "console unclaimed" in server.log(), 30), server.log()
        assert "no tab attached" in server.log()
        assert wait_until(lambda: not server.consoles(), 15)
        # The tab that comes later still gets a console: the WebSocket starts one.
        session, ws = await ws_session(server, cookie=cookie, columns=100, lines=30)
        terminal = Terminal(100, 30)
        assert await pump(ws, terminal, lambda t: " issued " in t.text, 60), terminal.text
        await ws.close()
        await session.close()
