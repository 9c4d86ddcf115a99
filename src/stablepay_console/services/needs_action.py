"""The needs-action view's rows, read page by page (UI-free).

Every issued request matching the kind and user filters, deadline ahead nearest first, then overdue
(most recently passed first), then those with no deadline. The rows are kept as JSON text (see
`services.kept`) and put in order as they arrive: the view paints its first rows after the first page
and repaints as more come (after 1, 2, 4, 8… pages: the ordering work stays about twice one full sort),
saying it is still reading, until the last page.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.gc_pause import gc_paused
from stablepay_console.services.kept import Kept, keep

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.models import Rfi

PAGE = 100


@dataclass(frozen=True)
class Partial:
    """Rows so far while the read goes on: `read` of the `total` the server counts."""

    rows: Kept
    overdue: set[str]
    read: int
    total: int


Shown = Callable[[Partial], None]


def needs_action_order(rfis: list[Rfi], now: datetime) -> tuple[list[Rfi], set[str]]:
    """Deadline still ahead, nearest first; then overdue (deadline passed, a reply would be rejected),
    most recently passed first; then requests with no deadline. Returns the rows and the overdue IDs."""
    ahead = [r for r in rfis if r.deadline is not None and r.deadline > now]
    overdue = [r for r in rfis if r.deadline is not None and r.deadline <= now]
    undated = [r for r in rfis if r.deadline is None]
    ahead.sort(key=lambda r: r.deadline)  # type: ignore[arg-type,return-value]
    overdue.sort(key=lambda r: r.deadline, reverse=True)  # type: ignore[arg-type,return-value]
    return ahead + overdue + undated, {r.id for r in overdue}


class NeedsActionRows:
    """Issued requests gathered as they arrive, put in needs-action order on demand."""

    def __init__(self) -> None:
        self._entries: list[tuple[datetime | None, str, str]] = []

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, rfi: Rfi) -> None:
        self._entries.append((rfi.deadline, rfi.id, keep(rfi)))

    def ordered(self, now: datetime) -> tuple[Kept, set[str]]:
        ahead = [e for e in self._entries if e[0] is not None and e[0] > now]
        overdue = [e for e in self._entries if e[0] is not None and e[0] <= now]
        undated = [e for e in self._entries if e[0] is None]
        ahead.sort(key=lambda e: e[0])  # type: ignore[arg-type,return-value]
        overdue.sort(key=lambda e: e[0], reverse=True)  # type: ignore[arg-type,return-value]
        return Kept([e[2] for e in (*ahead, *overdue, *undated)]), {e[1] for e in overdue}


async def read_needs_action(
    client: StablePayClient, filters: RfiFilters, now: datetime, shown: Shown | None = None
) -> tuple[Kept, set[str]]:
    """Every issued request matching `filters` in needs-action order; `shown` is given the rows so far."""
    from stablepay_console.api.paging import PagingReport

    rows = NeedsActionRows()
    report = PagingReport()
    next_show = PAGE
    rfis = client.iter_rfis(replace(filters, status="issued"), page_size=PAGE, report=report)
    with gc_paused():
        async with aclosing(rfis):  # pages still in flight are cancelled on an error
            async for rfi in rfis:
                rows.add(rfi)
                if shown is not None and len(rows) >= next_show:
                    next_show *= 2
                    ordered, overdue = rows.ordered(now)
                    shown(Partial(ordered, overdue, len(rows), max(report.total, len(rows))))
    return rows.ordered(now)
