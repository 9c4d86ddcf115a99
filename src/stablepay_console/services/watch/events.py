"""Watch events: what changed since the last look at the requests, and what is remembered (UI-free).

A `Tracker` compares each look at the requests with what it remembers and returns events: a new
request, a new round (compliance asked again), a status change, a deadline crossing one of its marks
(72 h, 24 h, 1 h) and a deadline passed. Deadlines need no look at all: `tick` reports the marks
crossed by the clock from the `expiresAt` remembered. What is looked at, and when, is decided by
`services.watch_poll`. `rfis watch` keeps a tracker's memory in the data folder (see
`storage.watch_state`); the console keeps one in memory (see `services.radar.RadarPoller`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean
from stablepay_console.services.durations import span
from stablepay_console.services.watch.seen import RememberedRfi, Seen

__all__ = ["RememberedRfi", "Seen", "Tracker", "WatchEvent"]

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi

ISSUED = "issued"
WATCH_MARKS = (timedelta(hours=72), timedelta(hours=24), timedelta(hours=1))
"""Deadline marks `rfis watch` reports."""
CONSOLE_MARKS = (timedelta(hours=24), timedelta(hours=1))
"""Deadline marks the console notifies."""
PASSED = "passed"

NEW_REQUEST = "new_request"
NEW_ROUND = "new_round"
STATUS_CHANGED = "status_changed"
DEADLINE_PASSED = "deadline_passed"


def mark_name(mark: timedelta) -> str:
    hours = int(mark.total_seconds() // 3600)
    return f"{hours}h" if hours else f"{int(mark.total_seconds() // 60)}m"


def deadline_event(mark: str) -> str:
    return DEADLINE_PASSED if mark == PASSED else f"deadline_{mark}"


def time_left(delta: timedelta) -> str:
    """`3d 4h`, `5h 12m`, `7m`, `40s`: rounded down, for people."""
    return span(delta, seconds=False)


def deadline_words(deadline: datetime | None, now: datetime) -> str:
    """`deadline in 5h 12m`, `overdue by 2h 05m`, or `no deadline`."""
    if deadline is None:
        return "no deadline"
    left = deadline - now
    return f"deadline in {time_left(left)}" if left.total_seconds() > 0 else f"overdue by {time_left(left)}"


def stamp(when: datetime) -> str:
    """`2026-12-02 16:27 UTC`; a moment not in UTC keeps its offset (`2026-12-02T17:27+01:00`)."""
    if when.utcoffset() != _UTC:
        return when.isoformat(timespec="minutes")
    if when.year < 1000:  # strftime's %Y does not pad it
        return when.strftime("%Y-%m-%d %H:%M UTC")
    # The fields themselves, quicker than strftime for each of the thousands of rows `rfis due` prints.
    return f"{when.year}-{when.month:02}-{when.day:02} {when.hour:02}:{when.minute:02} UTC"


_UTC = timedelta(0)


# --- what changed ----------------------------------------------------------------------


@dataclass(frozen=True)
class WatchEvent:
    kind: str
    rfi: Rfi | RememberedRfi
    """The request as fetched, or (a deadline found by the clock) as remembered."""
    at: datetime
    previous_status: str | None = None

    def line(self) -> str:
        """One line for a person; every server value cleaned."""
        rfi = self.rfi
        deadline = deadline_words(rfi.deadline, self.at)
        if self.kind == NEW_REQUEST:
            what = f"new {clean(rfi.kind, 20)} request, {clean(rfi.status, 20)}, {deadline}"
        elif self.kind == NEW_ROUND:
            number = rfi.round.round if rfi.round is not None else "?"
            what = f"round {number} opened (compliance asked again), {deadline}"
        elif self.kind == STATUS_CHANGED:
            what = f"status {clean(self.previous_status, 20)} -> {clean(rfi.status, 20)}"
        elif self.kind == DEADLINE_PASSED:
            what = f"deadline passed ({deadline}); a reply is now rejected"
        else:
            when = stamp(rfi.deadline) if rfi.deadline is not None else "?"
            what = f"{deadline} (at {when})"
        user = f" · user {clean(rfi.user_id, 40)}" if rfi.user_id else ""
        return f"{stamp(self.at)}  {self.kind:<15} {clean(rfi.id, 40)}  {what}{user}"

    def to_json(self) -> dict[str, Any]:
        """camelCase, with the request as the API sent it under `rfi`."""
        body: dict[str, Any] = {"event": self.kind, "detectedAt": self.at.isoformat().replace("+00:00", "Z")}
        if self.previous_status is not None:
            body["previousStatus"] = self.previous_status
        body["rfi"] = self.rfi.to_wire()
        return body


@dataclass
class Tracker:
    """Compares each look with what it remembers; `observe` and `tick` return the events and update the memory."""

    seen: dict[str, Seen] = field(default_factory=dict)
    primed: bool = False
    """False until the first poll: that one sets the baseline (requests already there are not "new")."""
    marks: Sequence[timedelta] = WATCH_MARKS
    quiet_baseline: bool = False
    """True: the first poll reports nothing at all (the console); False: it reports deadlines (`rfis watch`)."""
    last_sweep: datetime | None = None
    """When every issued request was last read (see `services.watch_poll`)."""

    def _mark(self, status: str, deadline: datetime | None, now: datetime) -> str | None:
        if status != ISSUED or deadline is None:
            return None
        left = deadline - now
        if left.total_seconds() <= 0:
            return PASSED
        crossed = [m for m in self.marks if left <= m]
        return mark_name(min(crossed)) if crossed else None

    def _tighter(self, mark: str, than: str | None) -> bool:
        order = [PASSED, *(mark_name(m) for m in sorted(self.marks))]
        if than is None or than not in order:
            return True
        return order.index(mark) < order.index(than)

    def observe(
        self, rfis: Iterable[Rfi], now: datetime, *, complete: bool = False, baseline: bool | None = None
    ) -> list[WatchEvent]:
        """Events since the last look. `complete`: the list held every request, so forget the ones gone.
        `baseline`: this look sets what is known (default: the first look, which primes the tracker; when
        given, the caller says when the baseline is complete by setting `primed`)."""
        events: list[WatchEvent] = []
        given = baseline
        baseline = not self.primed if baseline is None else baseline
        present: set[str] = set()
        for rfi in rfis:
            key = clean(rfi.id, 80)
            present.add(key)
            r = rfi.round
            before = self.seen.get(key)
            now_seen = Seen.of(rfi)
            round_id = now_seen.round_id
            if before is None:
                if not baseline:
                    # Unseen but past round 1: it was answered (out of an issued-only poll) and asked again.
                    later_round = r is not None and r.round > 1
                    events.append(WatchEvent(NEW_ROUND if later_round else NEW_REQUEST, rfi, now))
            elif round_id != before.round_id and round_id is not None:
                events.append(WatchEvent(NEW_ROUND, rfi, now, before.status))
            else:
                if now_seen.status != before.status:
                    events.append(WatchEvent(STATUS_CHANGED, rfi, now, before.status))
                now_seen.mark = before.mark  # same round: the marks already reported stay reported
            mark = self._mark(rfi.status, rfi.deadline, now)
            if mark is not None and self._tighter(mark, now_seen.mark):
                if not (baseline and self.quiet_baseline):
                    events.append(WatchEvent(deadline_event(mark), rfi, now))
                now_seen.mark = mark
            elif mark is None or self._tighter(now_seen.mark or PASSED, mark):
                # Answered, or the deadline moved later than a mark already reported: arm the marks again.
                now_seen.mark = mark
            self.seen[key] = now_seen
        if complete:
            for gone in set(self.seen) - present:
                del self.seen[gone]
        if given is None:
            self.primed = True
        return events

    def tick(self, now: datetime) -> list[WatchEvent]:
        """The deadline marks the clock has crossed since they were last looked at: no request needed."""
        events: list[WatchEvent] = []
        for key, seen in self.seen.items():
            mark = self._mark(seen.status, seen.expires_at, now)
            if mark is not None and self._tighter(mark, seen.mark):
                seen.mark = mark
                events.append(WatchEvent(deadline_event(mark), RememberedRfi.of(key, seen), now))
        return events

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"primed": self.primed}
        if self.last_sweep is not None:
            body["lastSweep"] = self.last_sweep.isoformat()
        body["requests"] = {k: v.to_json() for k, v in self.seen.items()}
        return body

    def load_json(self, data: Any) -> None:
        """Restore a memory saved with `to_json`; anything unreadable is dropped, not trusted."""
        if not isinstance(data, dict):
            return
        requests = data.get("requests")
        if isinstance(requests, dict):
            for key, value in requests.items():
                seen = Seen.from_json(value)
                if isinstance(key, str) and seen is not None:
                    self.seen[clean(key, 80)] = seen
        self.primed = data.get("primed") is True
        swept = data.get("lastSweep")
        try:
            self.last_sweep = datetime.fromisoformat(swept) if isinstance(swept, str) else None
        except ValueError:
            self.last_sweep = None
        if self.last_sweep is not None and self.last_sweep.tzinfo is None:
            self.last_sweep = None
