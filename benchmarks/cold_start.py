"""Startup: process start to the console's first frame and to its first inbox rows, in a pseudo-terminal.

Both apps are measured the same way: spawn the process on a 120x40 pty, read what it paints,
and stop the clock when a marker's text appears (the banner; a first-page cell; the live page's
"Page 1 of"). No hook inside either app. Every measured start is a repeat start: an unmeasured run
before them showed the inbox, so its first page is kept and painted at once from the record (greyed,
"as of …"); the server's page follows.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Sequence
from pathlib import Path

from common import Row, bench_env, median, ms, times

HERE = Path(__file__).resolve().parent
ESCAPE = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[@-Z\\-_])")
FRAME_TARGET = 1.1
ROWS_TARGET = 1.5
FRAME_MARKERS = ("SANDBOX",)
"""The embedded sandbox's banner: once it is on the terminal, the console's frame is painted."""
SERVER_MARKERS = ("Page 1 of",)
"""The inbox's status line over a page from the server (rows from the record say "From the record")."""
BARE_MARKER = "r00c4"
"""A cell of the bare app's first row; the bare app paints header, rows and footer in one frame."""


def console_argv() -> list[str]:
    script = shutil.which("stablepay-console", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "stablepay_console"]


def bare_argv() -> list[str]:
    return [sys.executable, str(HERE / "bare_app.py")]


def console_markers(seed: int = 7, rfis: int = 240) -> list[str]:
    """Short user IDs of the default embedded sandbox: they appear only in inbox rows."""
    from stablepay_console.sandbox.data import SandboxData

    return sorted({u[:8] for u in SandboxData(seed=seed, rfi_count=min(rfis, 20)).users})


def time_to_texts(
    argv: Sequence[str], groups: Sequence[Sequence[str]], env: dict[str, str], timeout: float = 30.0,
    linger: float = 0.0,
) -> list[float]:
    """Seconds from spawning argv on a pty until any marker of each group shows in its output (one per group).
    `linger`: seconds the process may go on after the last marker before it is stopped."""
    wanted = [[m.encode() for m in group] for group in groups]
    seen: list[float | None] = [None] * len(groups)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    raw = bytearray()
    try:
        while True:
            left = timeout - (time.perf_counter() - start)
            if left <= 0:
                missing = [g[:3] for g, t in zip(groups, seen, strict=True) if t is None]
                raise TimeoutError(f"{argv[-1]} painted none of {missing} within {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                tail = ESCAPE.sub(b"", bytes(raw))[-400:].decode(errors="replace")
                raise RuntimeError(f"{argv[-1]} exited (code {proc.poll()}) before painting: {tail!r}")
            raw += chunk
            now = time.perf_counter() - start
            text = ESCAPE.sub(b"", bytes(raw))
            for i, group in enumerate(wanted):
                if seen[i] is None and any(w in text for w in group):
                    seen[i] = now
            if all(t is not None for t in seen):
                if linger:
                    time.sleep(linger)
                return [t for t in seen if t is not None]
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def time_to_text(argv: Sequence[str], markers: Sequence[str], env: dict[str, str], timeout: float = 30.0) -> float:
    """Seconds from spawning argv on a pty until any marker shows in its output."""
    return time_to_texts(argv, [markers], env, timeout)[0]


def measure(runs: int) -> list[Row]:
    rows = console_markers()
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        env = bench_env(STABLEPAY_CONFIG_DIR=tmp, TERM="xterm-256color", COLUMNS="120", LINES="40")
        # As installed: with bytecode (bench_env), the libraries' own and the console's beside its sources.
        # One unmeasured run of each warms the OS file cache and the bytecode caches.
        time_to_text(bare_argv(), [BARE_MARKER], env)
        time_to_texts(console_argv(), [FRAME_MARKERS, rows, SERVER_MARKERS], env, linger=1.5)  # keeps page 1
        bare: list[float] = []
        frame: list[float] = []
        first_rows: list[float] = []
        served: list[float] = []
        for _ in range(runs):  # interleaved, so load on the machine hits both alike
            bare.append(time_to_text(bare_argv(), [BARE_MARKER], env))
            painted, filled, live = time_to_texts(console_argv(), [FRAME_MARKERS, rows, SERVER_MARKERS], env)
            frame.append(painted)
            first_rows.append(filled)
            served.append(live)
    how = f"{runs} interleaved repeat starts each on a 120x40 pty, process start to the text on the terminal"
    return [
        _row("console first frame (median)", frame, bare, FRAME_TARGET,
             f"the banner ({FRAME_MARKERS[0]!r}) painted; baseline: the bare Textual app's one frame (header, "
             f"20-row table, footer); {how}"),
        _row("console first rows (median)", first_rows, bare, ROWS_TARGET,
             f"a first-page user ID painted (from the record on a repeat start, greyed); same baseline; console "
             f"min {ms(min(first_rows))}, bare min {ms(min(bare))}"),
        _row("console first server page (median)", served, bare, None,
             f"the live page's {SERVER_MARKERS[0]!r} painted over the server's rows; same baseline"),
    ]


def _row(figure: str, measured: list[float], bare: list[float], target: float | None, note: str) -> Row:
    ratio = median(measured) / median(bare)
    goal = f"<= {target}x bare Textual app" if target is not None else "-"
    return Row(figure, ms(median(measured)), ms(median(bare)), times(ratio), goal,
               ratio <= target if target is not None else None, note)


if __name__ == "__main__":
    from common import render

    print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 5)))
