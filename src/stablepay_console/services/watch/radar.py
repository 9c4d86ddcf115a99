"""The deadline radar: the console's background poll (UI-free).

Without the provider's webhooks the only way to know in time is to poll. `RadarPoller` is the console's poll: the
counts for the banner and the events worth a notification (what `rfis due` answers is `services.watch.due`). It
polls as `rfis watch` does (`services.watch.poll`): the newest page each time, every issued request once per sweep
interval, deadlines by the clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.api.errors import APIError
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
