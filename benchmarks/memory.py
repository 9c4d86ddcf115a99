"""Memory: peak RSS (VmHWM) of a process that shows the inbox of the embedded 50,000-RFI sandbox, and how
much a gzip bomb (about 1 MB that inflates to 1 GiB) adds to a client's peak before it is refused.

Run as a child process so the figure is that process's alone: `python memory.py console N`,
`python memory.py sandbox N` (the sandbox data only, for the share it takes) or `python memory.py bomb 0`.
"""

from __future__ import annotations

import asyncio
import gzip
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

from common import Row, bench_env, peak_rss_mb

TARGET_MB = 150.0
BOMB_INFLATED = 1 << 30
BOMB_TARGET_MB = 64.0
"""Four times the client's 16 MiB cap on a decoded body: the bomb costs about the cap, never what it inflates to."""


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


def gzip_bomb(inflated: int = BOMB_INFLATED) -> bytes:
    """About 1 MB of gzip that inflates to `inflated` bytes (a JSON object start, then spaces).

    One deflate block repeated (each ends with a full flush, so every copy is the same bytes), never
    1 GiB compressed.
    """
    chunk = b" " * (1 << 20)
    start = b'{"data": [' + chunk[10:]
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(start) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    end = comp.flush(zlib.Z_FINISH)
    count = inflated >> 20
    crc = zlib.crc32(start)
    for _ in range(count - 1):
        crc = zlib.crc32(chunk, crc)
    trailer = crc.to_bytes(4, "little") + (inflated % 2**32).to_bytes(4, "little")
    return gzip.compress(b"", mtime=0)[:10] + first + block * (count - 1) + end + trailer


async def read_bomb() -> None:
    """The client's peak before and after a list of requests answered by the bomb (it must be refused)."""
    import httpx

    from stablepay_console.api import StablePayClient
    from stablepay_console.api.errors import ResponseTooLarge

    bomb = gzip_bomb()

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/ping":
            return httpx.Response(200, json={"message": "pong"})
        headers = {"content-type": "application/json", "content-encoding": "gzip"}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(bomb))

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(answer)) as client:
        await client.ping()  # warm: every module the request path needs is loaded
        before = peak_rss_mb()
        try:
            await client.list_rfis()
            outcome = "read"
        except ResponseTooLarge:
            outcome = "refused"
    print(f"{peak_rss_mb() - before:.1f} {outcome}")


def child(what: str, rfis: int) -> None:
    if what == "bomb":
        asyncio.run(read_bomb())
        return
    if what == "console":
        asyncio.run(show_inbox(rfis))
    else:
        from stablepay_console.sandbox import Sandbox

        Sandbox(rfis=rfis)
    print(f"{peak_rss_mb():.1f}")


def peak_of(what: str, rfis: int) -> float:
    return float(run_child(what, rfis).split()[0])


def run_child(what: str, rfis: int) -> str:
    """The last line the child printed."""
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), what, str(rfis)],
            env=bench_env(STABLEPAY_CONFIG_DIR=tmp, TEXTUAL_ANIMATIONS="none"),
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
    return out.stdout.strip().splitlines()[-1]


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
        ),
        bomb_row(),
    ]


def bomb_row() -> Row:
    grown, outcome = run_child("bomb", 0).split()
    growth = float(grown)
    return Row(
        "memory: gzip bomb, 1 GiB inflated",
        f"+{growth:.0f} MB",
        "-",
        "-",
        f"< {BOMB_TARGET_MB:.0f} MB more",
        outcome == "refused" and growth < BOMB_TARGET_MB,
        f"peak RSS growth of a client reading about 1 MB of gzip that inflates to 1 GiB ({outcome})",
    )


if __name__ == "__main__":
    if len(sys.argv) == 3:
        child(sys.argv[1], int(sys.argv[2]))
    else:
        from common import render

        print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 50000)))
