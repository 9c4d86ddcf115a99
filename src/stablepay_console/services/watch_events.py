"""Watch events: what changed since the last look at the requests, and what is remembered (UI-free).

A `Tracker` compares each poll with what it remembers and returns events: a new request, a new
round (compliance asked again), a status change, a deadline crossing one of its marks (72 h, 24 h,
1 h) and a deadline passed. `rfis watch` keeps a tracker's memory in the data folder (see
`storage.watch_state`); the console keeps one in memory (see `services.radar.RadarPoller`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean
from stablepay_console.services.durations import span

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
    return when.strftime("%Y-%m-%d %H:%M UTC") if when.utcoffset() == timedelta(0) else when.isoformat("minutes")


# --- what changed ----------------------------------------------------------------------


@dataclass
class Seen:
    """What is remembered of one request: enough to tell what changed, and which marks were reported."""

    status: str
    round_id: str | None = None
    round_no: int | None = None
    mark: str | None = None
    """The tightest deadline mark already reported for this round (`72h`, `24h`, `1h`, `passed`)."""

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "roundId": self.round_id, "round": self.round_no, "mark": self.mark}

    @classmethod
    def from_json(cls, data: Any) -> Seen | None:
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
            return None
        round_id, mark, number = data.get("roundId"), data.get("mark"), data.get("round")
        return cls(
            clean(data["status"], 40),
            clean(round_id, 80) if isinstance(round_id, str) else None,
            number if isinstance(number, int) and not isinstance(number, bool) else None,
            mark if isinstance(mark, str) else None,
        )


@dataclass(frozen=True)
class WatchEvent:
    kind: str
    rfi: Rfi
    at: datetime
    previous_status: str | None = None

    def line(self) -> str:
        """One line for a person; every server value cleaned."""
        rfi = self.rfi
        r = rfi.round
        deadline = deadline_words(rfi.deadline, self.at)
        if self.kind == NEW_REQUEST:
            what = f"new {clean(rfi.kind, 20)} request, {clean(rfi.status, 20)}, {deadline}"
        elif self.kind == NEW_ROUND:
            number = r.round if r is not None else "?"
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
    """Compares each poll with what it remembers; `observe` returns the events and updates the memory."""

    seen: dict[str, Seen] = field(default_factory=dict)
    primed: bool = False
    """False until the first poll: that one sets the baseline (requests already there are not "new")."""
    marks: Sequence[timedelta] = WATCH_MARKS
    quiet_baseline: bool = False
    """True: the first poll reports nothing at all (the console); False: it reports deadlines (`rfis watch`)."""

    def _mark(self, rfi: Rfi, now: datetime) -> str | None:
        deadline = rfi.deadline
        if rfi.status != ISSUED or deadline is None:
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

    def observe(self, rfis: Iterable[Rfi], now: datetime, *, complete: bool = False) -> list[WatchEvent]:
        """Events since the last poll. `complete`: the list held every request, so forget the ones gone."""
        events: list[WatchEvent] = []
        baseline = not self.primed
        present: set[str] = set()
        for rfi in rfis:
            key = clean(rfi.id, 80)
            present.add(key)
            r = rfi.round
            round_id = clean(r.id, 80) if r is not None else None
            before = self.seen.get(key)
            now_seen = Seen(clean(rfi.status, 40), round_id, r.round if r is not None else None)
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
            mark = self._mark(rfi, now)
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
        self.primed = True
        return events

    def to_json(self) -> dict[str, Any]:
        return {"primed": self.primed, "requests": {k: v.to_json() for k, v in self.seen.items()}}

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
