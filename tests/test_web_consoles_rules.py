"""A console process's rules on the server's side (web/consoles.py), in the test process, with real processes: the
command a `ConsoleProcess` runs is its parameter, so here it runs a small script that speaks textual-serve's
packets (the prelude, data and meta packets) and writes down what it was sent and what its environment held.

- the environment: no user's name (not even one the server's own environment or `extra_env` holds), no
  devtools switches, the profile and the hand-over switch;
- the hand-over is the first packet the console reads, with the user (and the role only in team mode) and the
  size it draws at; a console is handed over once;
- what it draws before its tab attaches is held, in order, and sent first on attach; past HELD_MAX it is dropped
  and the console marked overflowed; its first screenful marks it drawn, and shown once it reached the tab;
- a resize asked before its first screen waits for it (and is not sent if the size is the one it drew at);
- its standard error's tail says why it ended, in the console's own words, escaped;
- stop: quit asked, then its whole process group terminated, then killed; nothing is left running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from textual_serve.download_manager import DownloadManager

from stablepay_console.web import consoles
from stablepay_console.web.consoles import ConsoleProcess
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import SignIn
from tests.conftest import settles

SCRIPT = r'''
import json, os, signal, subprocess, sys, time
mode, record = sys.argv[1], sys.argv[2]
out, inp = sys.stdout.buffer, sys.stdin.buffer

def note(kind, value):
    with open(record, "a") as f:
        f.write(json.dumps([kind, value]) + "\n")

def packet(kind, payload):
    out.write(kind + len(payload).to_bytes(4, "big") + payload)
    out.flush()

def read():
    head = inp.read(5)
    if len(head) < 5:
        return None
    return head[:1], inp.read(int.from_bytes(head[1:], "big"))

note("env", dict(os.environ))
if mode == "fails":
    sys.stderr.write("z" * 9000 + "\nstarting\nstablepay-console: no profile named \x1b[31mx\nlast words\n")
    sys.exit(2)
if mode == "rambles":
    sys.stderr.buffer.write(b"\xff\xfe\nstablepay-console: " + b"w" * 600 + b"\n" + b"v" * 600 + b"\n")
    sys.exit(2)
if mode == "early":
    sys.exit(3)
first = read()
note("first", [first[0].decode(), json.loads(first[1])])
if mode == "deaf":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode in ("deaf", "gone"):
    quiet = subprocess.DEVNULL
    child = subprocess.Popen(["sleep", "60"], stdin=quiet, stdout=quiet, stderr=quiet)
    note("child", child.pid)
out.write(b"warming up\n__GANGLION__\n")
out.flush()
packet(b"D", b"\x1b[?1049h")
if mode == "flood":
    for _ in range(9):
        packet(b"D", b"y" * (1 << 20))
packet(b"D", b"x" * 2000)
if mode == "link":
    packet(b"M", json.dumps({"type": "open_url", "url": "javascript:alert(1)", "new_tab": False}).encode())
    packet(b"M", json.dumps({"type": "open_url", "url": "https://hosted.example/a", "new_tab": False}).encode())
    packet(b"M", b"not json")
if mode in ("deaf", "gone"):
    os.close(1)
    os.close(2)
    while True:
        time.sleep(1)
while (got := read()) is not None:
    kind, payload = got
    note(kind.decode(), json.loads(payload) if kind == b"M" else payload.decode())
    if kind == b"D":
        packet(b"D", b"echo:" + payload)
    if kind == b"M" and json.loads(payload)["type"] == "quit":
        sys.stderr.write("stablepay-console: you quit\n")
        packet(b"M", json.dumps({"type": "exit"}).encode())
        sys.exit(0)
'''


class Tab:
    """A tab's WebSocket, as the console process sees it: what it was sent, in order."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    async def send_bytes(self, data: bytes) -> None:
        assert isinstance(data, bytes), "text sent to the tab as a binary frame"
        self.got.append(data)

    async def send_str(self, data: str) -> None:
        assert isinstance(data, str), "a binary frame sent to the tab as text"
        self.got.append(data)

    async def close(self) -> None:
        self.got.append("closed")


class Scripted:
    def __init__(self, tmp_path: Path) -> None:
        self.script = tmp_path / "console.py"
        self.script.write_text(SCRIPT)
        self.record = tmp_path / "record"

    def process(self, mode: str = "plain", *, team: bool = False, **settings: Any) -> ConsoleProcess:
        command = f"exec {sys.executable} {self.script} {mode} {self.record}"
        return ConsoleProcess(command, download_manager=DownloadManager(), settings=WebSettings(**settings),
                              team=team)

    def notes(self, kind: str) -> list[Any]:
        if not self.record.exists():
            return []
        rows = [json.loads(line) for line in self.record.read_text().splitlines()]
        return [value for k, value in rows if k == kind]


@pytest.fixture
def scripted(tmp_path: Path) -> Scripted:
    return Scripted(tmp_path)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
    return ") Z " not in stat


def alice() -> SignIn:
    return SignIn("id-alice", "alice", "token")


# --- the environment and the hand-over -------------------------------------------------------------------------


async def test_a_console_starts_with_nobodys_name_and_gets_it_in_its_hand_over_first(
        scripted: Scripted, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STABLEPAY_WEB_USER", "mallory")
    monkeypatch.setenv("STABLEPAY_RECORD_ROLE", "mallory")
    monkeypatch.setenv("TEXTUAL", "devtools")
    monkeypatch.setenv("TEXTUAL_LOG", "/tmp/x")
    process = scripted.process(profile="sandbox", extra_env={"STABLEPAY_WEB_USER": "eve", "EXTRA": "1"})
    await process.spawn()
    await settles(lambda: bool(scripted.notes("env")), "the console never started")
    [env] = scripted.notes("env")
    for name in ("STABLEPAY_WEB_USER", "STABLEPAY_RECORD_ROLE", "TEXTUAL", "TEXTUAL_LOG"):
        assert name not in env, f"{name} reached the console's environment"
    assert env["COLUMNS"] == "80" and env["ROWS"] == "24", "a spare draws at 80x24 until its hand-over says"
    assert env["EXTRA"] == "1" and env["STABLEPAY_PROFILE"] == "sandbox" and env["STABLEPAY_WEB_HAND_OVER"] == "1"
    assert os.getpgid(process.pid or 0) == process.pid, "the console is not the leader of a process group of its own"
    pid = process.pid
    await process.give_to(alice(), 132, 43)
    assert process.pid == pid, "a spare already started was started again"
    await settles(lambda: bool(scripted.notes("first")), "the console never read its hand-over")
    [first] = scripted.notes("first")
    assert first == ["M", {"type": "hand_over", "user": "alice", "role": None, "width": 132, "height": 43}]
    assert process.user == "alice" and process.size == (132, 43)
    with pytest.raises(AssertionError, match=r"^a console is handed over once$"):
        process.give_to(SignIn("id-bob", "bob", "token"), 80, 24)
    assert process.user == "alice"
    await process.stop()


async def test_in_team_mode_the_role_is_the_user_and_no_profile_is_set_unless_asked(
        scripted: Scripted) -> None:
    process = scripted.process(team=True)
    await process.give_to(alice(), 80, 24)
    await settles(lambda: bool(scripted.notes("first")), "the console never read its hand-over")
    assert scripted.notes("first")[0][1]["role"] == "alice"
    assert "STABLEPAY_PROFILE" not in scripted.notes("env")[0]
    await process.stop()


# --- its output before and after its tab -------------------------------------------------------------------------


async def test_what_a_console_draws_before_its_tab_is_held_then_sent_first_in_order(scripted: Scripted) -> None:
    process = scripted.process()
    before = process.last_output
    await process.give_to(alice(), 80, 24)
    await asyncio.wait_for(process.drawn.wait(), 10)
    assert process.ready and process.alive and process.last_output > before
    assert not process.shown.is_set(), "shown before any tab had it"
    assert process.held == [b"\x1b[?1049h", b"x" * 2000] and process.held_size == 2008
    tab = Tab()
    process.last_active = 0.0
    await process.attach(tab)
    assert tab.got == [b"\x1b[?1049h", b"x" * 2000] and process.held == [] and process.held_size == 0
    assert process.shown.is_set() and process.attached.is_set() and process.last_active > 0.0
    process.last_active = 0.0
    assert await process.send_bytes(b"hi")
    assert process.last_active > 0.0
    await settles(lambda: b"echo:hi" in tab.got, "what the tab typed never came back")
    assert not process.quit
    await process.stop()
    assert process.quit and not process.alive
    await process.stop()  # twice: nothing more to do
    assert "closed" in tab.got and scripted.notes("M") == [{"type": "quit"}]
    assert process.ended_why() == "Your console stopped: you quit"


async def test_a_console_that_draws_too_much_before_its_tab_is_marked_and_holds_nothing(
        scripted: Scripted) -> None:
    process = scripted.process("flood")
    await process.give_to(alice(), 80, 24)
    await asyncio.wait_for(process.overflowed.wait(), 10)
    await asyncio.wait_for(process.drawn.wait(), 10)
    assert process.held == [], "held past HELD_MAX"
    await process.stop()


async def test_a_console_ended_before_its_tab_came_closes_the_tab_on_attach(scripted: Scripted) -> None:
    process = scripted.process()
    await process.give_to(alice(), 80, 24)
    await asyncio.wait_for(process.drawn.wait(), 10)
    await process.send_meta({"type": "quit"})
    await settles(lambda: process.close_held, "the console's exit never closed its (future) tab")
    assert process.quit, "a console that left as asked is not told from one that crashed"
    tab = Tab()
    await process.attach(tab)
    assert tab.got[-1] == "closed" and tab.got[:2] == [b"\x1b[?1049h", b"x" * 2000]
    await process.stop()


async def test_only_links_the_console_itself_would_open_reach_the_tab_and_in_a_new_tab(
        scripted: Scripted, caplog: pytest.LogCaptureFixture) -> None:
    process = scripted.process("link")
    with caplog.at_level(logging.INFO, logger="stablepay_console.web.access"):
        await process.give_to(alice(), 80, 24)
        await settles(lambda: len(process.held) >= 3, "the console's link never came")
    assert caplog.messages == [f"refused open_url user=alice console={process.app_service_id[:8]}"]
    assert not process.quit
    tab = Tab()
    await process.attach(tab)
    links = [json.loads(item) for item in tab.got if isinstance(item, str) and item != "closed"]
    assert links == [["open_url", {"url": "https://hosted.example/a", "new_tab": True}]]
    await process.stop()


# --- resizing ----------------------------------------------------------------------------------------------------


async def test_a_resize_before_the_first_screen_waits_for_it_and_the_same_size_is_not_sent(
        scripted: Scripted) -> None:
    process = scripted.process()
    process.give_to(alice(), 80, 24)
    await process.set_terminal_size(80, 24)  # the size it has: nothing to send
    await process.set_terminal_size(100, 30)
    await process.set_terminal_size(120, 40)  # one waiting resize, the last size
    await asyncio.wait_for(process.drawn.wait(), 10)
    await settles(lambda: bool(scripted.notes("M")), "the resize asked before the first screen never came")
    await process.set_terminal_size(120, 40)
    await process.set_terminal_size(90, 20)
    await settles(lambda: len(scripted.notes("M")) >= 2, "the resize after the first screen never came")
    assert scripted.notes("M") == [{"type": "resize", "width": 120, "height": 40},
                                   {"type": "resize", "width": 90, "height": 20}]
    await process.stop()


async def test_a_resize_back_to_the_drawn_size_before_the_first_screen_sends_nothing(scripted: Scripted) -> None:
    process = scripted.process()
    await process.give_to(alice(), 80, 24)
    await process.set_terminal_size(100, 30)
    await process.set_terminal_size(80, 24)
    await asyncio.wait_for(process.drawn.wait(), 10)
    assert await process.send_bytes(b"sync")
    await settles(lambda: bool(scripted.notes("D")), "the console never read what came after")
    assert scripted.notes("M") == []
    await process.stop()


# --- why it ended, and stopping ----------------------------------------------------------------------------------


async def test_a_console_that_could_not_start_says_why_in_its_own_words_escaped(scripted: Scripted) -> None:
    process = scripted.process("fails")
    await process.give_to(alice(), 80, 24)
    assert process.task is not None
    await asyncio.wait_for(process.task, 10)
    assert not process.ready
    assert process.ended_why() == "Your console could not start: no profile named \\x1b[31mx"
    assert process.last_error_line() == "last words"
    assert len(process.errors) == consoles.ERRORS_KEPT and process.errors.endswith("last words\n")
    await process.stop()


def test_without_words_from_the_console_the_reason_points_to_the_server_log() -> None:
    process = ConsoleProcess("true", download_manager=DownloadManager(), settings=WebSettings(), team=False)
    assert process.user == "-" and process.pid is None and not process.alive
    assert process.ended_why() == ("Your console could not start: it ended before it could draw; "
                                   "the server log says more.")
    assert process.last_error_line() == "(nothing on standard error)"
    process.ready, process.errors = True, "Traceback\n  boom\n\n"
    assert process.ended_why() == "Your console stopped: it ended unexpectedly; the server log says more."
    assert process.last_error_line() == "boom"


async def test_stop_ends_the_whole_process_group_of_a_console_that_does_not_leave(scripted: Scripted) -> None:
    process = scripted.process("gone")
    await process.give_to(alice(), 80, 24)
    await settles(lambda: bool(scripted.notes("child")), "the console never started its child")
    [child] = scripted.notes("child")
    assert not process.quit
    await process.stop()
    assert not process.alive and process.quit, "a console the server stopped is not one that ended on its own"
    await settles(lambda: not alive(child), "a process the console started outlived it")


async def test_stop_kills_a_console_that_ignores_being_terminated(scripted: Scripted) -> None:
    process = scripted.process("deaf")
    await process.give_to(alice(), 80, 24)
    await settles(lambda: bool(scripted.notes("child")), "the console never started its child")
    [child] = scripted.notes("child")
    await process.stop()
    assert process._process is not None and process._process.returncode == -signal.SIGKILL
    assert not process.alive
    await settles(lambda: not alive(child), "a process the console started outlived it")


async def test_a_spare_stopped_before_anyone_had_it_ends(scripted: Scripted) -> None:
    process = scripted.process()
    assert process.last_active <= time.monotonic()
    await process.spawn()
    assert process.alive and process.task is None
    await process.stop()
    assert not process.alive and process.quit


async def test_a_spare_that_ended_before_its_hand_over_says_so_and_nothing_breaks(scripted: Scripted) -> None:
    process = scripted.process("early")
    await process.spawn()
    assert process._process is not None
    await asyncio.wait_for(process._process.wait(), 10)
    before = process.last_active
    await process.give_to(alice(), 80, 24)
    assert process.task is not None and process.last_active >= before and process.started >= before
    await asyncio.wait_for(process.task, 10)
    assert process.ended_why() == ("Your console could not start: it ended before it could draw; "
                                   "the server log says more.")
    await process.stop()


async def test_what_a_console_says_on_standard_error_is_read_whole_and_cut_short(scripted: Scripted) -> None:
    process = scripted.process("rambles")
    await process.give_to(alice(), 80, 24)
    assert process.task is not None
    await asyncio.wait_for(process.task, 10)
    assert process.errors.startswith("\ufffd\ufffd\n"), "bytes that are not UTF-8 lost what came after them"
    assert process.ended_why() == "Your console could not start: " + "w" * 399 + "…"
    assert process.last_error_line() == "v" * 299 + "…"
    await process.stop()


async def test_a_tab_attached_before_the_first_screen_has_it_shown(scripted: Scripted) -> None:
    process = scripted.process()
    tab = Tab()
    await process.attach(tab)
    await process.give_to(alice(), 80, 24)
    await asyncio.wait_for(process.shown.wait(), 10)
    assert tab.got == [b"\x1b[?1049h", b"x" * 2000] and process.ready
    await process.stop()
