"""Export: every RFI to CSV through `iter_rfis` (bounded concurrency) vs a plain sequential page loop.

The sandbox runs in its own process (`stablepay-console sandbox serve`) on loopback with added latency.
"""

from __future__ import annotations

import asyncio
import csv
import io
import sys
import time
from collections.abc import AsyncIterator

from common import Row, secs, times
from served import served_sandbox

from stablepay_console.api import Rfi, StablePayClient

TARGET = 4.0
PAGE = 100
COLUMNS = ("id", "kind", "status", "subjectType", "userId", "transferId", "createdAt", "currentRound", "deadline")


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
        from stablepay_console.api.gate import BULK_PLACES

        concurrency = StablePayClient("http://127.0.0.1", "x").export_concurrency or BULK_PLACES
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
