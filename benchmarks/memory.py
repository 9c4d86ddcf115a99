"""Memory: peak RSS (VmHWM) of a process that shows the inbox of the embedded 50,000-RFI sandbox.

Run as a child process so the figure is that process's alone: `python memory.py console N` or
`python memory.py sandbox N` (the sandbox data only, for the share it takes).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path

from common import Row, bench_env, peak_rss_mb

TARGET_MB = 150.0


async def show_inbox(rfis: int) -> None:
    from textual.widgets import DataTable

    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.wiring import Services

    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox_rfis=rfis))
    async with app.run_test(size=(120, 40)) as pilot:
        while not any(t.row_count for t in app.screen.query(DataTable)):
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        await pilot.pause()


def child(what: str, rfis: int) -> None:
    if what == "console":
        asyncio.run(show_inbox(rfis))
    else:
        from stablepay_console.sandbox import Sandbox

        Sandbox(rfis=rfis)
    print(f"{peak_rss_mb():.1f}")


def peak_of(what: str, rfis: int) -> float:
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), what, str(rfis)],
            env=bench_env(STABLEPAY_CONFIG_DIR=tmp, TEXTUAL_ANIMATIONS="none"),
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
    return float(out.stdout.strip().splitlines()[-1])


def measure(rfis: int) -> list[Row]:
    console = peak_of("console", rfis)
    sandbox = peak_of("sandbox", rfis)
    return [
        Row(
            "memory (peak RSS)",
            f"{console:.0f} MB",
            "-",
            "-",
            f"< {TARGET_MB:.0f} MB",
            console < TARGET_MB,
            f"inbox shown on the embedded {rfis}-RFI sandbox (headless); a process that only builds that "
            f"sandbox peaks at {sandbox:.0f} MB, so the console's own share is about {console - sandbox:.0f} MB",
        )
    ]


if __name__ == "__main__":
    if len(sys.argv) == 3:
        child(sys.argv[1], int(sys.argv[2]))
    else:
        from common import render

        print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 50000)))
