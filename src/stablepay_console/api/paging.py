"""Every RFI of a filtered list, page by page, trusting nothing the server says about paging.

The server's `limit`, `offset` and `total` steer the walk but never decide it alone:
rows are de-duplicated by ID; the walk stops on an empty or short page, on a page
that brings nothing new, once past `total`, or at a row ceiling; offsets are made one
at a time (never a list of every offset); when `total` shrinks between two pages the
rows that moved up past the walk are read again. `PagingReport` says what happened.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from stablepay_console.api.models import Rfi, RfiPage

FetchPage = Callable[[int, int], Awaitable[RfiPage]]
"""(limit, offset) -> one page."""

MAX_ROWS = 2_000_000
"""A walk ends here whatever `total` says: no audit export is bigger, and a server could invent rows for ever."""

MAX_REREAD_PAGES = 5
"""Pages read again after one shrink of the list; a larger shift is reported, not chased."""


@dataclass
class PagingReport:
    """What one walk through the pages did, for the summary of an export."""

    delivered: int = 0
    """Distinct RFIs handed on."""
    duplicates: int = 0
    """Rows skipped because their ID had already been handed on."""
    reread_pages: int = 0
    """Pages read a second time because the list shifted under the walk."""
    pages: int = 0
    total: int = 0
    """The server's `total` on the last page read."""
    first_total: int = 0
    stopped: str = ""
    """Why the walk ended, in words ("a short page (the end of the list)")."""
    capped: bool = False
    """True when the walk stopped at MAX_ROWS (or the caller's ceiling) with rows possibly left."""
    date_range_stop: bool = False
    """True when the walk stopped because the rest of the list is older than the range asked."""

    @property
    def total_differs(self) -> bool:
        return self.delivered != self.total


def page_step(echoed_limit: int, asked: int) -> int:
    """The stride between offsets: the page size the server says it used, if it is a usable one."""
    return echoed_limit if 1 <= echoed_limit <= asked else asked


def _stop_reason(page: RfiPage, fresh: int, step: int, older_than: datetime | None) -> str | None:
    if not page.data:
        return "an empty page"
    if not fresh:
        return "a page that brought nothing new"
    if older_than is not None and all(rfi.created_at < older_than for rfi in page.data):
        return "a page older than the start of the date range"
    if len(page.data) < step:
        return "a short page (the end of the list)"
    return None


class _Walk:
    def __init__(self, fetch: FetchPage, step: int, report: PagingReport, max_rows: int) -> None:
        self.fetch = fetch
        self.step = step
        self.report = report
        self.max_rows = max_rows
        self.seen: set[str] = set()

    def fresh(self, page: RfiPage) -> list[Rfi]:
        rows: list[Rfi] = []
        for rfi in page.data:
            if rfi.id in self.seen:
                self.report.duplicates += 1
                continue
            if len(self.seen) >= self.max_rows:
                self.report.capped = True
                break
            self.seen.add(rfi.id)
            rows.append(rfi)
        self.report.delivered += len(rows)
        return rows

    async def reread(self, offset: int, shrink: int) -> list[Rfi]:
        """The rows that moved up past `offset` when the list lost `shrink` rows before it."""
        start = max(0, offset - shrink)
        rows: list[Rfi] = []
        for n, at in enumerate(range(start, offset, self.step)):
            if n >= MAX_REREAD_PAGES:
                break
            again = await self.fetch(min(self.step, offset - at), at)
            self.report.reread_pages += 1
            rows.extend(self.fresh(again))
        return rows


async def walk_pages(
    fetch: FetchPage,
    page_size: int,
    concurrency: int = 1,
    report: PagingReport | None = None,
    older_than: datetime | None = None,
    max_rows: int = MAX_ROWS,
) -> AsyncGenerator[list[Rfi], None]:
    """Every distinct RFI, in the server's order, a few pages in flight at a time: the new rows of each
    page read, as one list (a walk of 100,000 requests steps through 1,000 lists, not 100,000 rows)."""
    report = report if report is not None else PagingReport()
    first = await fetch(page_size, 0)
    step = page_step(first.pagination.limit, page_size)
    walk = _Walk(fetch, step, report, max_rows)
    report.pages = 1
    report.first_total = report.total = known_total = first.pagination.total

    def stops_after(page: RfiPage, fresh: int) -> bool:
        """Whether the walk ends after `page` (its `fresh` new rows); if so, the report says why."""
        stop = "the row ceiling" if report.capped else _stop_reason(page, fresh, step, older_than)
        if stop is not None:
            report.stopped = stop
            report.date_range_stop = older_than is not None and "date range" in stop
        return stop is not None

    rows = walk.fresh(first)
    if stops_after(first, len(rows)):
        if rows:
            yield rows
        return

    window = max(1, concurrency) * 2
    pending: deque[tuple[int, asyncio.Task[RfiPage]]] = deque()
    next_offset = step

    def send_more() -> None:
        # Offsets are made as they are needed, up to the latest total: never a list of all of them.
        nonlocal next_offset
        while len(pending) < window and next_offset < report.total and next_offset < max_rows + step:
            pending.append((next_offset, asyncio.ensure_future(fetch(step, next_offset))))
            next_offset += step

    try:
        send_more()  # the next pages are on their way while the first page's rows are handed on
        yield rows
        while True:
            send_more()
            if not pending:
                report.stopped = "the end of the total the server gave"
                return
            offset, task = pending.popleft()
            page = await task
            report.pages += 1
            latest = page.pagination.total
            rows = []
            if latest < known_total and offset > 0:
                rows = await walk.reread(offset, known_total - latest)
            known_total = report.total = latest
            rows.extend(walk.fresh(page))
            if rows:
                yield rows
            if stops_after(page, len(rows)):
                return
    finally:
        for _, task in pending:
            task.cancel()
