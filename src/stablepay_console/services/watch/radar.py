"""The deadline radar: what is due or overdue, and the console's background poll (UI-free).

The provider sends no webhook for RFIs, so the only way to know in time is to poll. `due_now`
answers "what needs a reply soon" (`rfis due`), reading the issued requests page by page and keeping
only what is due; `RadarPoller` is the console's poll: the counts for the banner and the events worth
a notification. It polls as `rfis watch` does (`services.watch_poll`): the newest page each time, every
issued request once per sweep interval, deadlines by the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from stablepay_console.api.errors import APIError
from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.gc_pause import gc_paused
from stablepay_console.services.kept import Kept, keep
from stablepay_console.services.watch.events import (
    CONSOLE_MARKS,
    ISSUED,
    NEW_REQUEST,
    NEW_ROUND,
    Tracker,
    WatchEvent,
)
from stablepay_console.services.watch.poll import DEFAULT_SWEEP, IncrementalWatch

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi
    from stablepay_console.api.paging import PagingReport

K = TypeVar("K")


# --- what is due -----------------------------------------------------------------------


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
    await walk_issued(client, tally)
    return tally.report()


async def walk_issued(client: StablePayClient, tally: DueTally[Any],
                      also: Callable[[Sequence[Rfi]], object] | None = None) -> None:
    """Every issued request into `tally`, page by page; `also` sees each page as it passes (the service
    levels' breaches, counted in the same walk)."""
    pages = client.iter_rfi_pages(ISSUED)
    with gc_paused():
        async with aclosing(pages):  # pages still in flight are cancelled on an error
            async for rfis in pages:
                tally.add_page(rfis)
                if also is not None:
                    also(rfis)


async def every_rfi(
    client: StablePayClient, filters: RfiFilters | None = None, report: PagingReport | None = None
) -> list[Rfi]:
    """Every request matching `filters`, all pages, newest first: the same paging as the export
    (`report` says what the paging met)."""
    f = filters or RfiFilters()
    rfis = client.iter_rfis(f.status, f.kind, f.user_id, report=report)
    with gc_paused():
        async with aclosing(rfis):  # pages still in flight are cancelled on an error
            return [rfi async for rfi in rfis]


# --- the console's background poll ------------------------------------------------------


@dataclass(frozen=True)
class RadarUpdate:
    due: int
    """Issued requests due within 24 hours (not yet overdue)."""
    overdue: int
    events: list[WatchEvent]
    at: datetime
    failed: APIError | None = None
    """The poll's request failed: the counts and events are what memory and the clock say."""

    @property
    def label(self) -> str:
        """`2 due < 24h · 1 overdue`; empty when nothing is due."""
        parts = []
        if self.due:
            parts.append(f"{self.due} due < 24h")
        if self.overdue:
            parts.append(f"{self.overdue} overdue")
        return " · ".join(parts)


NOTIFIED = (NEW_REQUEST, NEW_ROUND, "deadline_24h", "deadline_1h")
"""What the console raises a notification for (a new request is its first round arriving)."""
DUE_WITHIN = timedelta(hours=24)


class RadarPoller:
    """Polls one profile's requests incrementally; the console shows the counts and notifies the events.

    The counts come from what is remembered (every issued request as of the last sweep, deadlines by
    the clock): a poll between sweeps costs one request."""

    def __init__(self, sweep_every: timedelta = DEFAULT_SWEEP) -> None:
        self.tracker = Tracker(marks=CONSOLE_MARKS, quiet_baseline=True)
        self.watch = IncrementalWatch(self.tracker, sweep_every)

    async def poll(self, client: StablePayClient, now: datetime) -> RadarUpdate:
        failed: APIError | None = None
        try:
            await self.watch.poll(client, now)
        except APIError as exc:
            failed = exc
        return self._digest(self.watch.events, now, failed)

    def counts(self, now: datetime) -> tuple[int, int]:
        """(due within 24 hours, overdue) among the issued requests remembered."""
        due = overdue = 0
        for seen in self.tracker.seen.values():
            deadline = seen.expires_at
            if seen.status != ISSUED or deadline is None:
                continue
            if deadline <= now:
                overdue += 1
            elif deadline - now <= DUE_WITHIN:
                due += 1
        return due, overdue

    def _digest(self, found: list[WatchEvent], now: datetime, failed: APIError | None) -> RadarUpdate:
        events: dict[str, WatchEvent] = {}
        for event in found:
            # One notification per request: a round that arrives 20 hours before its deadline is one message.
            if event.kind in NOTIFIED:
                events.setdefault(event.rfi.id, event)
        due, overdue = self.counts(now)
        return RadarUpdate(due, overdue, list(events.values()), now, failed)
