"""Startup: process start to the first inbox rows on the terminal, driven in a pseudo-terminal.

Both apps are measured the same way: spawn the process on a 120x40 pty, read what it paints,
and stop the clock when the text of a first-page cell appears. No hook inside either app.
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
TARGET = 1.3


def console_argv() -> list[str]:
    script = shutil.which("stablepay-console", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "stablepay_console"]


def bare_argv() -> list[str]:
    return [sys.executable, str(HERE / "bare_app.py")]


def console_markers(seed: int = 7, rfis: int = 240) -> list[str]:
    """Short user IDs of the default embedded sandbox: they appear only in inbox rows."""
    from stablepay_console.sandbox.data import SandboxData

    return sorted({u[:8] for u in SandboxData(seed=seed, rfi_count=min(rfis, 20)).users})


def time_to_text(argv: Sequence[str], markers: Sequence[str], env: dict[str, str], timeout: float = 30.0) -> float:
    """Seconds from spawning argv on a pty until any marker shows in its output."""
    wanted = [m.encode() for m in markers]
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
                raise TimeoutError(f"{argv[-1]} painted none of {markers[:3]}… within {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                tail = ESCAPE.sub(b"", bytes(raw))[-400:].decode(errors="replace")
                raise RuntimeError(f"{argv[-1]} exited (code {proc.poll()}) before painting rows: {tail!r}")
            raw += chunk
            text = ESCAPE.sub(b"", bytes(raw))
            if any(w in text for w in wanted):
                return time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def measure(runs: int) -> list[Row]:
    markers = console_markers()
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        env = bench_env(STABLEPAY_CONFIG_DIR=tmp, TERM="xterm-256color", COLUMNS="120", LINES="40")
        # As installed from a wheel: bytecode cached (here in a throwaway dir, not the source tree).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        # One unmeasured run of each warms the OS file cache and the bytecode caches.
        time_to_text(bare_argv(), ["r00c4"], env)
        time_to_text(console_argv(), markers, env)
        bare: list[float] = []
        console: list[float] = []
        for _ in range(runs):  # interleaved, so load on the machine hits both alike
            bare.append(time_to_text(bare_argv(), ["r00c4"], env))
            console.append(time_to_text(console_argv(), markers, env))
    ratio = median(console) / median(bare)
    return [
        Row(
            "startup (median)",
            ms(median(console)),
            ms(median(bare)),
            times(ratio),
            f"<= {TARGET}x bare app",
            ratio <= TARGET,
            f"{runs} interleaved runs each, process start to first inbox row on a 120x40 pty; "
            f"console min {ms(min(console))}, bare min {ms(min(bare))}",
        )
    ]


if __name__ == "__main__":
    from common import render

    print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 5)))
