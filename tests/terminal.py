"""Drive the installed console in a real terminal: tmux new-session / send-keys / capture-pane."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

BIN_DIR = Path(sys.executable).parent


def console_command() -> str:
    """The installed `stablepay-console` beside this interpreter."""
    exe = BIN_DIR / "stablepay-console"
    if not exe.exists():
        pytest.fail(f"stablepay-console is not installed beside {sys.executable}; install the package first")
    return str(exe)


class Terminal:
    """A tmux session running one command; read the screen by polling, never by fixed sleeps."""

    def __init__(self, command: list[str], env: dict[str, str], width: int = 120, height: int = 40) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is not installed (apt-get install tmux)")
        self.name = f"spc-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        # COLUMNS/LINES would override the pane's real size; a tmux server keeps whatever values its
        # first client had (curses in a test process can export 80x24), so the program never sees them.
        shell_cmd = f"env -u COLUMNS -u LINES {exports} {' '.join(_quote(c) for c in command)}"
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), shell_cmd],
            check=True,
        )
        # Keep the pane after the program exits so a crash can still be read.
        subprocess.run(["tmux", "set-option", "-t", self.name, "remain-on-exit", "on"], check=False)

    def screen(self) -> str:
        result = subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True, check=False
        )
        return result.stdout

    def send(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)

    def wait_for(self, predicate: str | object, timeout: float = 20.0) -> str:
        """Poll the screen until `predicate` (a substring or a callable on the text) holds."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            ok = predicate(text) if callable(predicate) else predicate in text
            if ok:
                return text
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {predicate!r}; the screen shows:\n{text}")

    def alive(self) -> bool:
        result = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_dead}"],
            capture_output=True, text=True, check=False,
        )
        return result.returncode == 0 and result.stdout.strip() == "0"

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False, capture_output=True)


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)
