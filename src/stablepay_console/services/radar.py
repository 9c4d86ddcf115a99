"""The deadline radar: what is due or overdue, and the console's background poll (UI-free).

The provider sends no webhook for RFIs, so the only way to know in time is to poll. `due_report`
answers "what needs a reply soon" (`rfis due`); `RadarPoller` is the console's poll of issued
requests: the counts for the banner and the events worth a notification. What changed between
polls is worked out by `services.watch_events.Tracker`, which `rfis watch` uses too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import aclosing
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.watch_events import (
    CONSOLE_MARKS,
    ISSUED,
    NEW_REQUEST,
    NEW_ROUND,
    Tracker,
    WatchEvent,
)

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi
    from stablepay_console.api.paging import PagingReport


# --- what is due -----------------------------------------------------------------------


@dataclass(frozen=True)
class DueReport:
    """Issued requests whose deadline passed (`overdue`) or falls within the window (`due`), nearest first."""

    due: list[Rfi]
    overdue: list[Rfi]
    checked: int
    within: timedelta
    at: datetime

    @property
    def nearest_first(self) -> list[Rfi]:
        return [*self.overdue, *self.due]


def _by_deadline(rfi: Rfi) -> datetime:
    deadline = rfi.deadline
    assert deadline is not None
    return deadline


def due_report(rfis: Iterable[Rfi], now: datetime, within: timedelta) -> DueReport:
    due: list[Rfi] = []
    overdue: list[Rfi] = []
    checked = 0
    for rfi in rfis:
        checked += 1
        deadline = rfi.deadline
        if rfi.status != ISSUED or deadline is None:
            continue
        if deadline <= now:
            overdue.append(rfi)
        elif deadline - now <= within:
            due.append(rfi)
    return DueReport(sorted(due, key=_by_deadline), sorted(overdue, key=_by_deadline), checked, within, now)


async def every_rfi(
    client: StablePayClient, filters: RfiFilters | None = None, report: PagingReport | None = None
) -> list[Rfi]:
    """Every request matching `filters`, all pages, newest first: the same paging as the export
    (`report` says what the paging met)."""
    f = filters or RfiFilters()
    rfis = client.iter_rfis(f.status, f.kind, f.user_id, report=report)
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


class RadarPoller:
    """Polls the issued requests of one profile; the console shows the counts and notifies the events."""

    def __init__(self) -> None:
        self.tracker = Tracker(marks=CONSOLE_MARKS, quiet_baseline=True)

    async def poll(self, client: StablePayClient, now: datetime) -> RadarUpdate:
        issued = await every_rfi(client, RfiFilters(status=ISSUED))
        # Thousands of requests take a moment to compare: off the event loop, so no key press waits.
        return await asyncio.to_thread(self._digest, issued, now)

    def _digest(self, issued: list[Rfi], now: datetime) -> RadarUpdate:
        report = due_report(issued, now, timedelta(hours=24))
        events: dict[str, WatchEvent] = {}
        for event in self.tracker.observe(issued, now):
            # One notification per request: a round that arrives 20 hours before its deadline is one message.
            if event.kind in NOTIFIED:
                events.setdefault(event.rfi.id, event)
        return RadarUpdate(len(report.due), len(report.overdue), list(events.values()), now)
