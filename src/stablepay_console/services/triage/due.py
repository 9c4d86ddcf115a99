"""A request's step and its time left to the next service level, for a row shown now; and the breaches.

The inbox and the banner work from the request as the API just sent it (its round's `issuedAt` and
`expiresAt`, its status), the claim and the steps of its current round from the record, and the
team's policy. `rfis due` works from the record alone (every round last seen open).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.triage.cases import cases
from stablepay_console.services.triage.levels import RoundClock, TimeLeft, time_left
from stablepay_console.services.triage.state import CLOSED, step_of
from stablepay_console.storage.record_triage_types import TriageFacts, TriagePolicy, TriageStep
from stablepay_console.storage.record_types import Claim

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


@dataclass(frozen=True)
class RowTriage:
    step: str
    left: TimeLeft | None


def row_triage(rfi: Rfi, claim: Claim | None, steps: Sequence[TriageStep], policy: TriagePolicy,
               now: datetime) -> RowTriage:
    """The step of a request shown, and the time left to its next level (None: no level ahead)."""
    step = step_of(rfi.status, claim, steps)
    if rfi.round is None or step in CLOSED:
        return RowTriage(step, None)
    clock = RoundClock(rfi.round.issued_at, rfi.round.expires_at, claim.at if claim else None, steps)
    return RowTriage(step, time_left(step, clock, policy, now))


def breached_count(rows: Iterable[Rfi], claims: Mapping[str, Claim], steps: Mapping[str, Sequence[TriageStep]],
                   policy: TriagePolicy, now: datetime) -> int:
    """How many of the requests have their next service level breached now (the banner's count)."""
    count = 0
    for rfi in rows:
        found = row_triage(rfi, claims.get(rfi.id), steps.get(rfi.id, ()), policy, now)
        if found.left is not None and found.left.breached:
            count += 1
    return count


@dataclass(frozen=True)
class Breach:
    rfi_id: str
    round_no: int
    step: str
    level: str
    late_seconds: float


def open_breaches(facts: TriageFacts, now: datetime) -> list[Breach]:
    """Every open round (the latest of its request, not closed) whose next level is breached, latest first."""
    latest = {}
    for case in cases(facts, None, now):
        latest[case.rfi_id] = case  # cases come oldest first: the last is the current round
    status = {s.rfi_id: s.status for s in sorted(facts.statuses, key=lambda s: s.first_seen)}
    found = []
    for rfi_id, case in latest.items():
        if case.closed_at is not None:
            continue
        claim = facts.claims_now.get(rfi_id)
        step = step_of(status.get(rfi_id), claim, case.steps)
        clock = RoundClock(case.issued_at, case.expires_at, claim.at if claim else None, case.steps)
        left = time_left(step, clock, facts.policy, now)
        if left is not None and left.breached and left.left is not None:
            found.append(Breach(rfi_id, case.round_no, step, left.level, -left.left.total_seconds()))
    return sorted(found, key=lambda b: -b.late_seconds)
