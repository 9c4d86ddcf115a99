"""What is due: the issued requests whose deadline passed or falls within a window, nearest first (`rfis due`).

`DueTally` keeps only what is due as the requests stream past (from the API's pages or the team watcher's rows),
so memory grows with what is due, not with the account.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Generic, TypeVar

from stablepay_console.services.kept import Kept, keep
from stablepay_console.services.watch.events import ISSUED
from stablepay_console.services.watch.walk import walk_issued

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi

K = TypeVar("K")


@dataclass(frozen=True)
class DueReport:
    """Issued requests whose deadline passed (`overdue`) or falls within the window (`due`), nearest first."""

    due: Sequence[Rfi]
    overdue: Sequence[Rfi]
    checked: int
    within: timedelta
    at: datetime

    @property
    def nearest_first(self) -> list[Rfi]:
        return [*self.overdue, *self.due]

    def nearest(self) -> Iterator[Rfi]:
        """Overdue, then due, nearest first: one request at a time."""
        yield from self.overdue
        yield from self.due


class DueTally(Generic[K]):
    """What is due, kept as requests stream past: memory grows with what is due, not with the account.

    `keep` turns a request into what is kept of it: its JSON text (`services.kept.keep`, rebuilt into a
    model when read), or just the row a command prints (no model to rebuild for thousands of rows)."""

    def __init__(self, now: datetime, within: timedelta, keep: Callable[[Rfi], K]) -> None:
        self.now, self.within, self.keep = now, within, keep
        self.due: list[tuple[datetime, K]] = []
        self.overdue: list[tuple[datetime, K]] = []
        self.checked = 0

    def add(self, rfi: Rfi) -> None:
        self.add_page((rfi,))

    def add_page(self, rfis: Sequence[Rfi]) -> None:
        """Each of a page of requests (the walk of every issued request hands on a page at a time)."""
        self.checked += len(rfis)
        list_for, keep = self._list_for, self.keep
        for rfi in rfis:
            deadline = rfi.deadline
            if rfi.status != ISSUED or deadline is None:
                continue
            into = list_for(deadline)
            if into is not None:  # only what is due is kept: most requests are not
                into.append((deadline, keep(rfi)))

    def add_kept(self, deadline: datetime, kept: K) -> None:
        """An issued request already kept, with its deadline."""
        self.checked += 1
        into = self._list_for(deadline)
        if into is not None:
            into.append((deadline, kept))

    def _list_for(self, deadline: datetime) -> list[tuple[datetime, K]] | None:
        if deadline <= self.now:
            return self.overdue
        if deadline - self.now <= self.within:
            return self.due
        return None

    def nearest(self) -> tuple[list[K], list[K]]:
        """(overdue, due), each nearest first."""

        def nearest(kept: list[tuple[datetime, K]]) -> list[K]:
            return [item for _, item in sorted(kept, key=lambda pair: pair[0])]

        return nearest(self.overdue), nearest(self.due)

    def report(self: DueTally[str]) -> DueReport:
        overdue, due = self.nearest()
        return DueReport(Kept(due), Kept(overdue), self.checked, self.within, self.now)


def due_report(rfis: Iterable[Rfi], now: datetime, within: timedelta) -> DueReport:
    tally = DueTally(now, within, keep)
    for rfi in rfis:
        tally.add(rfi)
    return tally.report()


async def due_now(client: StablePayClient, now: datetime, within: timedelta) -> DueReport:
    """Every issued request read page by page (concurrent, bounded per server); only what is due is kept."""
    tally = DueTally(now, within, keep)
    await walk_issued(client, tally.add_page)
    return tally.report()
