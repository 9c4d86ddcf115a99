"""Drive the installed console in a real terminal: tmux new-session / send-keys / capture-pane.

Each `Terminal` runs on a tmux server of its own (`tmux -L`), so tests running in parallel, or the
tmux of the person running them, never share a session name, a server environment or a buffer.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

BIN_DIR = Path(sys.executable).parent
POLL_SECONDS = 0.05

Expectation = str | re.Pattern[str] | Callable[[str], object]
"""Text the screen must contain, a pattern it must match, or a check on the screen's text."""


def console_command() -> str:
    """The installed `stablepay-console` beside this interpreter."""
    exe = BIN_DIR / "stablepay-console"
    if not exe.exists():
        pytest.fail(f"stablepay-console is not installed beside {sys.executable}; install the package first")
    return str(exe)


def holds(expectation: Expectation, text: str) -> bool:
    if isinstance(expectation, str):
        return expectation in text
    if isinstance(expectation, re.Pattern):
        return expectation.search(text) is not None
    return bool(expectation(text))


def describe(expectation: Expectation) -> str:
    if isinstance(expectation, re.Pattern):
        return f"/{expectation.pattern}/"
    if isinstance(expectation, str):
        return repr(expectation)
    return str(getattr(expectation, "__doc__", None) or getattr(expectation, "__name__", repr(expectation)))


class Terminal:
    """A tmux session running one command; read the screen by polling, never by fixed sleeps."""

    def __init__(self, command: list[str], env: dict[str, str], width: int = 120, height: int = 40) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed (apt-get install tmux)")
        self.socket = f"spc-{uuid.uuid4().hex[:10]}"
        self.name = "console"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # COLUMNS/LINES would override the pane's real size, and a tmux server keeps the environment of
        # whoever started it (curses in a test process can export 80x24): the program never sees them.
        shell_cmd = f"exec env -u COLUMNS -u LINES {exports} {' '.join(shlex.quote(c) for c in command)}"
        self.tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), shell_cmd, check=True)
        # Keep the pane after the program exits so a crash can still be read.
        self.tmux("set-option", "-t", self.name, "remain-on-exit", "on")

    def tmux(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=check)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name).stdout

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys, check=True)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text, check=True)

    def wait_for(self, *expected: Expectation, timeout: float = 20.0) -> str:
        """Poll until one capture of the screen meets every expectation, and return that capture.

        Wait for everything the test then asserts about the screen: a frame painted in parts (the
        table before the banner, say) must never be read as the finished screen.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            missing = [e for e in expected if not holds(e, text)]
            if not missing:
                return text
            if time.monotonic() >= deadline:
                wanted = ", ".join(describe(e) for e in missing)
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {wanted}; the screen shows:\n{text}")
            time.sleep(POLL_SECONDS)

    def alive(self) -> bool:
        result = self.tmux("display-message", "-p", "-t", self.name, "#{pane_dead}")
        return result.returncode == 0 and result.stdout.strip() == "0"

    def wait_until_exited(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() >= deadline:
                raise AssertionError(f"still running after {timeout:.0f} s; the screen shows:\n{self.screen()}")
            time.sleep(POLL_SECONDS)

    def close(self) -> None:
        self.tmux("kill-server")


def framed(text: str) -> bool:
    """A console's whole frame is on screen: the banner on top, help and quit in the footer."""
    shown = text.rstrip("\n").split("\n")
    return len(shown) > 2 and "SANDBOX" in shown[0] and "? Help" in shown[-1] and "q Quit" in shown[-1]
