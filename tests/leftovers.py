"""The suite leaves no console process behind: a pytest plugin (loaded by conftest.py).

Every console or command a test starts has `STABLEPAY_CONFIG_DIR` inside this run's temporary folder
(the autouse `isolated_config` fixture, and `term_env` for the tmux tests). When the run ends, any
such process still alive (a console that outlived its closed terminal, a `sandbox serve` never
stopped) fails the run, is named, and is killed.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

GRACE_SECONDS = 10.0
"""How long processes that are already ending (a test's teardown just closed them) may take."""


def process_state(pid: int) -> str:
    """The one-letter state in /proc/PID/stat ("Z" for a zombie), or "" when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[0]


def config_dir_of(pid: int) -> str | None:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for entry in environ.split(b"\0"):
        if entry.startswith(b"STABLEPAY_CONFIG_DIR="):
            return entry.split(b"=", 1)[1].decode(errors="replace")
    return None


def command_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def consoles_left(root: Path) -> dict[int, str]:
    """Live stablepay-console processes (console, command or sandbox) started by this run: pid -> command."""
    found: dict[int, str] = {}
    if not Path("/proc").is_dir():
        return found
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        command = command_of(pid)
        if "stablepay-console" not in command and "stablepay_console" not in command:
            continue
        where = config_dir_of(pid)
        if where is None or not where.startswith(str(root)):
            continue
        if process_state(pid) not in ("", "Z"):
            found[pid] = command
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller checks once, for the whole run
        return
    root = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    deadline = time.monotonic() + GRACE_SECONDS
    left = consoles_left(root)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = consoles_left(root)
    if not left:
        return
    writer = config.get_terminal_writer()
    writer.line(f"stablepay-console: the run left {len(left)} console process(es) running:", red=True)
    for pid, command in sorted(left.items()):
        writer.line(f"  pid {pid}: {command}", red=True)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
