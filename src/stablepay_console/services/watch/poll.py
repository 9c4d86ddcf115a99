"""One poll of an incremental watch, shared by `rfis watch` and the console's radar (UI-free).

A poll costs what changed, not the size of the account:

1. **New requests** (within one poll interval): the newest page of the whole list (newest first),
   and the next pages only until a request already known is met. Nothing new: one request.
2. **Status changes and new rounds** (within one sweep interval, by default 15 minutes, never more
   often than the poll): a sweep reads every issued request, its pages concurrent but bounded by the
   server's one gate. A request that is issued again is a new round; one remembered as issued that is
   no longer in that list is looked up (`services.rfi_lookup`) to learn its new status.
3. **Deadlines** crossing 72 h / 24 h / 1 h or passing: from the `expiresAt` remembered, by the clock,
   with no request at all (`Tracker.tick`).

What is remembered, the time of the last sweep included, lives in the `Tracker`; `rfis watch` keeps
it in the data folder between runs, so a cron job's `--once` runs save as much as a long-running watch.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.sanitize import clean
from stablepay_console.api.vocabulary import RFI_KINDS
from stablepay_console.services.gc_pause import gc_paused
from stablepay_console.services.rfi_lookup import Wanted, find
from stablepay_console.services.watch.events import ISSUED, Tracker, WatchEvent

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi

DEFAULT_SWEEP = timedelta(minutes=15)
PAGE = 100
MAX_NEW_PAGES = 50
"""Newest pages read in one poll at most (5,000 new requests); past that the sweep finds the issued ones."""
CHUNK = 100
"""Swept requests compared at a time: a sweep never holds the whole issued list."""


@dataclass
class PollReport:
    """What one poll sent: for `--json` consumers, logs and the scale benchmark."""

    newest_pages: int = 0
    swept: bool = False
    sweep_pages: int = 0
    lookup_pages: int = 0
    gone: int = 0
    """Requests remembered as issued that no list holds any more (forgotten)."""

    @property
    def requests(self) -> int:
        return self.newest_pages + self.sweep_pages + self.lookup_pages


class IncrementalWatch:
    """Polls one profile's requests for a `Tracker`; `sweep_every` is how often every issued request is read."""

    def __init__(self, tracker: Tracker, sweep_every: timedelta = DEFAULT_SWEEP) -> None:
        self.tracker = tracker
        self.sweep_every = sweep_every
        self.last = PollReport()
        self.events: list[WatchEvent] = []
        """The events of the last poll (also when it failed part way)."""

    def sweep_due(self, now: datetime) -> bool:
        last = self.tracker.last_sweep
        return not self.tracker.primed or last is None or last > now or now - last >= self.sweep_every

    async def poll(self, client: StablePayClient, now: datetime, *, sweep: bool | None = None) -> list[WatchEvent]:
        """The events since the last poll. `sweep`: force (True) or skip (False) the sweep; None: when due.

        When a request fails, the events found before it (and the deadlines, by the clock) are in
        `events` and already remembered: the caller reports them, then the error."""
        report = self.last = PollReport()
        events = self.events = []
        baseline = not self.tracker.primed
        try:
            await self._newest(client, now, baseline, report, events)
            if sweep if sweep is not None else self.sweep_due(now):
                await self._sweep(client, now, baseline, report, events)
                self.tracker.primed = True  # the first poll's baseline is complete
        finally:
            events += self.tracker.tick(now)  # the clock needs no server
        return events

    async def _newest(self, client: StablePayClient, now: datetime, baseline: bool, report: PollReport,
                      events: list[WatchEvent]) -> None:
        """The newest pages until a known request is met (the first poll: one page, the sweep does the rest)."""
        seen = self.tracker.seen
        met: set[str] = set()
        for page_no in range(MAX_NEW_PAGES):
            page = await client.list_rfis(limit=PAGE, offset=page_no * PAGE)
            report.newest_pages += 1
            fresh = [rfi for rfi in page.data if rfi.id not in met]
            met.update(rfi.id for rfi in fresh)
            known = any(clean(rfi.id, 80) in seen for rfi in fresh)
            events += self.tracker.observe(fresh, now, baseline=baseline)
            if baseline or known or not fresh or len(page.data) < PAGE:
                break

    async def _sweep(self, client: StablePayClient, now: datetime, baseline: bool, report: PollReport,
                     events: list[WatchEvent]) -> None:
        """Every issued request; those remembered as issued and not met are looked up."""
        from stablepay_console.api.paging import PagingReport  # the client stack: loaded when first used

        issued_before = {key for key, s in self.tracker.seen.items() if s.status == ISSUED}
        met: set[str] = set()
        paging = PagingReport()
        chunk: list[Rfi] = []
        rfis = client.iter_rfis(RfiFilters(status=ISSUED), page_size=PAGE, report=paging)
        with gc_paused():
            async with aclosing(rfis):  # pages still in flight are cancelled on an error
                async for rfi in rfis:
                    chunk.append(rfi)
                    if len(chunk) >= CHUNK:
                        events += self._compare(chunk, now, baseline, met)
                        chunk = []
        events += self._compare(chunk, now, baseline, met)
        report.swept = True
        report.sweep_pages = paging.pages + paging.reread_pages
        left = issued_before - met
        if left:
            events += await self._look_up(client, sorted(left), now, report)
        self.tracker.last_sweep = now

    def _compare(self, chunk: Sequence[Rfi], now: datetime, baseline: bool, met: set[str]) -> list[WatchEvent]:
        met.update(clean(rfi.id, 80) for rfi in chunk)
        return self.tracker.observe(chunk, now, baseline=baseline) if chunk else []

    async def _look_up(self, client: StablePayClient, left: list[str], now: datetime, report: PollReport) -> list[
            WatchEvent]:
        """The new status of requests that left the issued list; those found nowhere are forgotten."""
        seen = self.tracker.seen
        wanted: list[Wanted] = []
        for key in left:
            s = seen[key]
            if s.created_at is None:  # remembered by an older version: nothing to look it up by
                continue
            wanted.append(Wanted(key, s.kind if s.kind in RFI_KINDS else None, _uuid_or_none(s.user_id),
                                 s.created_at))
        found = await find(client, wanted)
        report.lookup_pages = found.pages
        for key in found.missing | {key for key in left if seen[key].created_at is None}:
            del seen[key]
            report.gone += 1
        return self.tracker.observe(found.rfis, now, baseline=False)


def _uuid_or_none(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None
