"""The team's service levels on one round of a request: deadlines, the paused clock, breaches, time left.

Three levels, from the team's policy: claim within a span of the round's `issuedAt`, make the answer
ready within a span of it, approve it a span before the round's `expiresAt` (not on a round shorter than
that span: its approve-by would come before the round itself). Time waiting on the user
(from `wait` to `resume`, or to now) does not count: every deadline moves later by the time paused
since the round was issued, so a request waiting on the user never breaches, and its time left is
what it was when it began to wait.

Only a policy someone set has levels (`TriagePolicy.is_set`): without one no level applies, nothing is
breached and nothing has time left, whatever the defaults' spans would say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from stablepay_console.services.triage.state import APPROVED, CLAIMED, CLOSED, READY, UNCLAIMED, WAITING
from stablepay_console.storage.record_triage_types import TriagePolicy, TriageStep

LEVELS = ("claim", "ready", "approve")
NEXT_LEVEL = {UNCLAIMED: "claim", CLAIMED: "ready", READY: "approve"}
"""The level a request at each step works towards (approved, waiting and closed ones: none)."""
ZERO = timedelta(0)


def wait_spans(steps: Sequence[TriageStep], now: datetime) -> list[tuple[datetime, datetime]]:
    """When the request waited on the user: each `wait` to the `resume` after it (or to now)."""
    spans, began = [], None
    for step in steps:
        if step.step == "wait" and began is None:
            began = step.at
        elif step.step == "resume" and began is not None:
            spans.append((began, step.at))
            began = None
    if began is not None:
        spans.append((began, max(began, now)))
    return spans


def paused(spans: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime) -> timedelta:
    """How much of [start, end] was spent waiting on the user."""
    total = ZERO
    for a, b in spans:
        overlap = min(b, end) - max(a, start)
        if overlap > ZERO:
            total += overlap
    return total


def team_time(spans: Sequence[tuple[datetime, datetime]], start: datetime, end: datetime) -> timedelta:
    """The time from start to end that counts for the team (waiting on the user left out)."""
    return end - start - paused(spans, start, end)


def first(steps: Sequence[TriageStep], name: str) -> datetime | None:
    return next((s.at for s in steps if s.step == name), None)


@dataclass(frozen=True)
class Level:
    name: str
    deadline: datetime | None
    """Already moved by the time paused; None when the level does not apply (no `expiresAt`)."""
    done_at: datetime | None
    breached: bool


@dataclass(frozen=True)
class RoundClock:
    """What the levels of one round are worked out from."""

    issued_at: datetime
    expires_at: datetime | None
    claimed_at: datetime | None
    steps: Sequence[TriageStep]
    closed_at: datetime | None = None
    """When the provider closed the round (submitted, resolved, expired); its clock stops there."""


def levels(clock: RoundClock, policy: TriagePolicy, now: datetime) -> list[Level]:
    """The round's three levels: each deadline, when it was met, and whether it was breached (by now). Without a
    policy set, none applies (no deadline, never breached)."""
    done = {"claim": clock.claimed_at, "ready": first(clock.steps, "ready"), "approve": first(clock.steps, "approve")}
    if not policy.is_set:
        return [Level(name, None, done[name], False) for name in LEVELS]
    end = min(now, clock.closed_at) if clock.closed_at is not None else now
    spans = wait_spans(clock.steps, end)
    waiting = _still_waiting(clock.steps)
    bases = {
        "claim": clock.issued_at + policy.claim_within,
        "ready": clock.issued_at + policy.ready_within,
        "approve": clock.expires_at - policy.approve_before if clock.expires_at is not None else None,
    }
    if bases["approve"] is not None and bases["approve"] < clock.issued_at:
        # A round shorter than the approve span: its approve-by would fall before the round was issued, so an
        # answer made ready an hour in would read as breached hours ago. The level does not apply to it.
        bases["approve"] = None
    found = []
    for name in LEVELS:
        base, at = bases[name], done[name]
        if base is None:
            found.append(Level(name, None, at, False))
            continue
        deadline = base + paused(spans, clock.issued_at, at or end)
        if at is not None:
            breached = at > deadline
        else:
            breached = end > deadline and not waiting
        found.append(Level(name, deadline, at, breached))
    return found


def _still_waiting(steps: Sequence[TriageStep]) -> bool:
    last = next((s.step for s in reversed(steps) if s.step in ("wait", "resume")), None)
    return last == "wait"


@dataclass(frozen=True)
class TimeLeft:
    """The time left to a request's next level (negative once breached); `paused` while waiting."""

    level: str
    left: timedelta | None
    paused: bool = False

    @property
    def breached(self) -> bool:
        return self.left is not None and self.left < ZERO


def time_left(step: str, clock: RoundClock, policy: TriagePolicy, now: datetime) -> TimeLeft | None:
    """The next level of a request at `step`, and the time left to it; None when none is ahead (or no policy is
    set: no level applies, and nothing is paused)."""
    if step in CLOSED or step == APPROVED or not policy.is_set:
        return None
    if step == WAITING:
        return TimeLeft("", None, paused=True)
    name = NEXT_LEVEL.get(step)
    if name is None:
        return None
    level = next(lv for lv in levels(clock, policy, now) if lv.name == name)
    if level.deadline is None:
        return None
    return TimeLeft(name, level.deadline - now)
