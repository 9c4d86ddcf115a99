"""The installed console in a real terminal (tmux): what reaches the terminal, and how it is left.

Each test runs its own tmux server (`tmux -L`), so its clipboard buffers and window titles are
its own. With `set-clipboard on`, an OSC 52 written by the program becomes a tmux buffer: a raw
OSC 52 from the server would show up there, and what `c` copies can be read back.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.hostile_payloads import RAW_CHARS
from tests.hostile_server import HostileServer
from tests.terminal import console_command

pytestmark = pytest.mark.e2e

SGR = re.compile(r"\x1b\[[0-9;:]*m")
ATTACKER_CLIPBOARD = "pasted by attacker"
"""What the hostile OSC 52 (`cGFzdGVkIGJ5IGF0dGFja2Vy`) would put on the clipboard."""


class OwnTmux:
    """One program in a tmux session on a tmux server of its own; read it by polling."""

    def __init__(self, command: list[str], env: dict[str, str], width: int = 120, height: int = 40) -> None:
        self.socket = f"spc-{uuid.uuid4().hex[:10]}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        program = " ".join(shlex.quote(c) for c in command)
        # `exec`: the pane's process is the console itself, so a signal sent to it reaches the console.
        shell = f"exec env -u COLUMNS -u LINES {exports} {program}"
        self.tmux("new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height), shell, check=True)
        self.tmux("set-option", "-t", "main", "remain-on-exit", "on")
        self.tmux("set-option", "-s", "set-clipboard", "on")

    def tmux(self, *args: str, check: bool = False) -> str:
        result = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check)
        return result.stdout

    def screen(self, escapes: bool = False) -> str:
        return self.tmux("capture-pane", "-p", *(["-e"] if escapes else []), "-t", "main")

    def show(self, fmt: str) -> str:
        return self.tmux("display-message", "-p", "-t", "main", fmt).strip()

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "main", *keys, check=True)

    def wait_for(self, predicate: str | Callable[[str], bool], timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if predicate(text) if callable(predicate) else predicate in text:
                return text
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {predicate!r}; the screen shows:\n{text}")

    def wait_dead(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while self.show("#{pane_dead}") != "1":
            assert time.monotonic() < deadline, f"the console is still running:\n{self.screen()}"
            time.sleep(0.1)

    def buffers(self) -> list[str]:
        names = self.tmux("list-buffers", "-F", "#{buffer_name}").split()
        return [self.tmux("show-buffer", "-b", name) for name in names]

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def terminals() -> Iterator[list[OwnTmux]]:
    started: list[OwnTmux] = []
    yield started
    for term in started:
        term.close()


def modes(term: OwnTmux) -> dict[str, str]:
    """What the terminal is left in: the alternate screen and every mouse-tracking mode."""
    names = ("alternate_on", "mouse_any_flag", "mouse_button_flag", "mouse_standard_flag", "mouse_sgr_flag",
             "mouse_all_flag", "mouse_utf8_flag")
    values = term.show(" ".join(f"#{{{n}}}" for n in names)).split()
    return dict(zip(names, values, strict=True))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_ends_the_console_and_gives_the_terminal_back(
    sig: signal.Signals, term_env: dict[str, str], terminals: list[OwnTmux]
) -> None:
    # tmux sometimes never collects a signalled pane's exit status (pane_dead_status stays empty): a shell
    # in the pane records the console's own exit code in a file instead, and the signal goes to the console.
    status_file = Path(term_env["STABLEPAY_CONFIG_DIR"]).parent / f"exit-{sig.name}"
    wrapper = f"{shlex.quote(console_command())}; echo $? > {shlex.quote(str(status_file))}"
    term = OwnTmux(["sh", "-c", wrapper], term_env, width=100, height=30)
    terminals.append(term)
    term.wait_for(lambda t: re.search(r"Page 1 of \d+", t) is not None)
    running = modes(term)
    assert running["alternate_on"] == "1" and running["mouse_any_flag"] == "1", running  # what must be undone

    shell = term.show("#{pane_pid}")
    console = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True, timeout=10).stdout.split()
    assert len(console) == 1, console
    os.kill(int(console[0]), sig)
    deadline = time.monotonic() + 30
    while not (status_file.exists() and status_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.1)
    term.wait_dead()
    left = modes(term)
    assert set(left.values()) == {"0"}, f"the terminal was left with {left}"
    assert status_file.read_text().strip() == str(128 + sig), "the console did not exit through its own quit path"


def test_hostile_server_text_never_reaches_the_real_terminal(
    term_env: dict[str, str], terminals: list[OwnTmux]
) -> None:
    with HostileServer() as server:
        added = subprocess.run(
            [console_command(), "profile", "add", "hostile", "--environment", "sandbox",
             "--base-url", server.url("escapes"), "--no-key", "--default"],
            env={**os.environ, **term_env}, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
        )
        assert added.returncode == 0, added.stderr
        env = {**term_env, "STABLEPAY_PROFILE": "hostile", "STABLEPAY_API_KEY": "sk_test_hostile_key"}
        term = OwnTmux([console_command()], env)
        terminals.append(term)
        title = term.show("#{pane_title}")

        shown = term.wait_for(lambda t: "issued\\x1b" in t and "pong\\x1b" in t)
        check_terminal(term, title, "inbox")
        assert "\\x1b]52;c;" in shown or "\\x1b[2J" in shown  # drawn, escaped

        term.send("Enter")
        term.wait_for("Asked for")
        check_terminal(term, title, "request detail")

        term.send("c")  # copy the request ID: the server's ID, escapes and all
        deadline = time.monotonic() + 15
        while not term.buffers():
            assert time.monotonic() < deadline, "nothing reached the clipboard"
            time.sleep(0.2)
        copied = term.buffers()[0]
        assert copied.startswith("00000000-0000-4000-8000-000000000000\\x1b[2J"), copied
        check_terminal(term, title, "after a copy")

        # The hosted link holds escapes: refused, with a message (its deadline passed, so `o` is not offered;
        # `l` copies it, after the same check).
        term.send("l")
        term.wait_for("refused")
        check_terminal(term, title, "link refused")


def check_terminal(term: OwnTmux, title: str, where: str) -> None:
    """Nothing the server sent acted on the terminal: no title, no clipboard write, no raw character."""
    cells = SGR.sub("", term.screen(escapes=True))
    raw = sorted({repr(ch) for ch in cells if ch in RAW_CHARS or (ch == "\x1b")})
    assert not raw, f"{where}: raw characters in the terminal's cells: {raw}"
    assert "pwned" not in term.show("#{pane_title}") and "c1-title" not in term.show("#{pane_title}"), where
    assert term.show("#{pane_title}") == title, f"{where}: the window title changed"
    assert not any(ATTACKER_CLIPBOARD in buffer for buffer in term.buffers()), f"{where}: OSC 52 reached tmux"


def test_the_terminal_check_catches_a_program_that_writes_server_text_raw(
    term_env: dict[str, str], terminals: list[OwnTmux]
) -> None:
    """Control: the same checks fail when the hostile text is written raw, so the test above can fail."""
    import sys

    from tests.hostile_payloads import HOSTILE

    # Written again every half second (bounded): an OSC 52 sent before tmux has the pane ready is dropped.
    program = (
        "import sys, time\n"
        "for _ in range(60):\n"
        f"    sys.stdout.write('\\r' + {HOSTILE!r} + 'written'); sys.stdout.flush(); time.sleep(0.5)"
    )
    term = OwnTmux([sys.executable, "-c", program], term_env, width=80, height=10)
    terminals.append(term)
    title = term.show("#{pane_title}")
    term.wait_for("written")
    deadline = time.monotonic() + 30  # a loaded machine (parallel workers) can be slow to hand tmux the OSC 52
    while not term.buffers() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert any(ATTACKER_CLIPBOARD in buffer for buffer in term.buffers())
    with pytest.raises(AssertionError):
        check_terminal(term, title, "raw")
