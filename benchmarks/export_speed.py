"""Export: every RFI to CSV through `iter_rfis` (bounded concurrency) vs a plain sequential page loop.

The sandbox runs in its own process (`stablepay-console sandbox serve`) on loopback with added latency.
"""

from __future__ import annotations

import asyncio
import csv
import io
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

from common import Row, bench_env, secs, times

from stablepay_console.api import Rfi, StablePayClient

TARGET = 4.0
PAGE = 100
COLUMNS = ("id", "kind", "status", "subjectType", "userId", "transferId", "createdAt", "currentRound", "deadline")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served_sandbox(rfis: int, latency: float) -> Iterator[tuple[str, str]]:
    """(base URL, key) of a sandbox served by the installed console in a child process."""
    port = free_port()
    argv = [sys.executable, "-m", "stablepay_console", "sandbox", "serve", "--rfis", str(rfis)]
    argv += ["--latency", str(latency), "--port", str(port)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=bench_env())
    try:
        assert proc.stdout is not None
        key = None
        for line in proc.stdout:
            if line.startswith("Sandbox key: "):
                key = line.removeprefix("Sandbox key: ").strip()
                break
        if key is None:
            raise RuntimeError(f"sandbox serve exited with {proc.wait()}")
        deadline = time.monotonic() + 30
        while True:  # the line is printed just before uvicorn binds the port
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", key
    finally:
        proc.terminate()
        proc.wait(10)


def csv_line(writer: csv.writer, rfi: Rfi) -> None:  # type: ignore[valid-type]
    deadline = rfi.deadline.isoformat() if rfi.deadline else ""
    writer.writerow(  # type: ignore[attr-defined]
        (rfi.id, rfi.kind, rfi.status, rfi.subject_type, rfi.user_id or "", rfi.transfer_id or "",
         rfi.created_at.isoformat(), rfi.current_round or "", deadline)
    )


async def sequential(client: StablePayClient) -> AsyncIterator[Rfi]:
    offset, total = 0, 1
    while offset < total:
        page = await client.list_rfis(limit=PAGE, offset=offset)
        for rfi in page.data:
            yield rfi
        total = page.pagination.total
        offset += PAGE


async def write_csv(rfis: AsyncIterator[Rfi]) -> tuple[float, int, str]:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    start = time.perf_counter()
    count = 0
    async for rfi in rfis:
        csv_line(writer, rfi)
        count += 1
    return time.perf_counter() - start, count, out.getvalue()


async def run(base_url: str, key: str, concurrency: int) -> tuple[float, float, int]:
    async with StablePayClient(base_url, key) as plain:
        await plain.ping()  # warm the connection
        slow, n_seq, csv_seq = await write_csv(sequential(plain))
    async with StablePayClient(base_url, key, export_concurrency=concurrency) as fast_client:
        await fast_client.ping()
        fast, n_iter, csv_iter = await write_csv(fast_client.iter_rfis(page_size=PAGE))
    if csv_seq != csv_iter:
        raise AssertionError(f"the two exports differ ({n_seq} vs {n_iter} rows)")
    return slow, fast, n_iter


def measure(rfis: int, latency: float = 0.02, concurrency: int | None = None) -> list[Row]:
    """`concurrency` defaults to the client's own default (what the console's export uses)."""
    if concurrency is None:
        concurrency = StablePayClient("http://127.0.0.1", "x").export_concurrency
    with served_sandbox(rfis, latency) as (base_url, key):
        slow, fast, count = asyncio.run(run(base_url, key, concurrency))
    speedup = slow / fast
    return [
        Row(
            "export (iter_rfis, CSV)",
            secs(fast),
            secs(slow),
            f"{times(speedup)} faster",
            f">= {TARGET}x faster than sequential",
            speedup >= TARGET,
            f"{count} RFIs, pages of {PAGE}, export_concurrency={concurrency}, "
            f"sandbox serve over loopback with {latency * 1000:.0f} ms latency; CSVs compared equal",
        )
    ]


if __name__ == "__main__":
    from common import render

    print(render(measure(int(sys.argv[1]), concurrency=int(sys.argv[2]) if len(sys.argv) > 2 else None)))
