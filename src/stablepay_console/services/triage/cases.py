"""From the record's plain facts to one case per round of a request: what the report counts.

A round is a piece of work of its own (compliance asking again opens a new one, with its own
deadline), so a case is one round. Claims taken and steps belong to the round of their request that
was issued last before them (the first round, for anything earlier); a claim still held from an
earlier round counts as taken when the new round was issued.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from stablepay_console.services.triage.levels import Level, RoundClock, levels
from stablepay_console.services.triage.state import CLOSED
from stablepay_console.storage.record_triage_types import ClaimFact, RoundFact, StatusFact, TriageFacts, TriageStep
from stablepay_console.storage.record_types import Claim


@dataclass(frozen=True)
class Case:
    rfi_id: str
    round_no: int
    issued_at: datetime
    expires_at: datetime | None
    claim: ClaimFact | None
    steps: tuple[TriageStep, ...]
    submitted_at: datetime | None
    expired_at: datetime | None
    """When the round was seen expired without an answer."""
    closed_at: datetime | None
    levels: tuple[Level, ...] = field(default=())

    @property
    def clock(self) -> RoundClock:
        return RoundClock(self.issued_at, self.expires_at, self.claim.at if self.claim else None, self.steps,
                          self.closed_at)

    def level(self, name: str) -> Level:
        return next(lv for lv in self.levels if lv.name == name)


def _owner(rounds: list[RoundFact], at: datetime) -> RoundFact:
    """The round issued last at or before `at` (the first one for anything earlier)."""
    owner = rounds[0]
    for r in rounds:
        if r.issued_at <= at:
            owner = r
    return owner


def cases(facts: TriageFacts, since: datetime | None, now: datetime) -> list[Case]:
    """One case per round issued since `since` (every round with None), oldest first."""
    by_rfi: dict[str, list[RoundFact]] = defaultdict(list)
    for r in sorted(facts.rounds, key=lambda r: (r.issued_at, r.round_no)):
        by_rfi[r.rfi_id].append(r)
    claims: dict[tuple[str, int], ClaimFact] = {}
    for c in sorted(facts.claims_taken, key=lambda c: c.at):
        if c.rfi_id in by_rfi:
            claims.setdefault((c.rfi_id, _owner(by_rfi[c.rfi_id], c.at).round_no), c)
    steps: dict[tuple[str, int], list[TriageStep]] = defaultdict(list)
    for s in sorted(facts.steps, key=lambda s: s.at):
        if s.rfi_id in by_rfi:
            steps[(s.rfi_id, _owner(by_rfi[s.rfi_id], s.at).round_no)].append(s)
    statuses: dict[str, list[StatusFact]] = defaultdict(list)
    for st in facts.statuses:
        statuses[st.rfi_id].append(st)
    found = []
    for rfi_id, rounds in by_rfi.items():
        for i, r in enumerate(rounds):
            if since is not None and r.issued_at < since:
                continue
            until = rounds[i + 1].issued_at if i + 1 < len(rounds) else None
            seen = [s for s in statuses[rfi_id] if s.first_seen >= r.issued_at
                    and (until is None or s.first_seen < until)]
            claim = _claim_of(r, claims.get((rfi_id, r.round_no)), facts.claims_now.get(rfi_id))
            submitted, expired, closed = _ends(r, seen)
            case = Case(rfi_id, r.round_no, r.issued_at, r.expires_at, claim, tuple(steps[(rfi_id, r.round_no)]),
                        submitted, expired, closed)
            found.append(_with_levels(case, facts, now))
    return sorted(found, key=lambda c: (c.issued_at, c.rfi_id))


def _claim_of(r: RoundFact, taken: ClaimFact | None, held: Claim | None) -> ClaimFact | None:
    """The claim taken in this round; else a claim still held from an earlier round, as taken when it was issued."""
    if taken is None and held is not None and held.at < r.issued_at:
        return ClaimFact(r.rfi_id, held.claimant, r.issued_at)
    return taken


def _ends(r: RoundFact, seen: list[StatusFact]) -> tuple[datetime | None, datetime | None, datetime | None]:
    """(submitted, expired, closed) of a round, from the statuses seen while it was the current one."""
    submitted = r.submitted_at or next((s.first_seen for s in seen if s.status == "submitted"), None)
    expired = next((s.first_seen for s in seen if s.status == "expired"), None) if submitted is None else None
    closed = next((s.first_seen for s in seen if s.status in CLOSED), None)
    if submitted is not None:
        closed = min(closed, submitted) if closed is not None else submitted
    return submitted, expired, closed


def _with_levels(case: Case, facts: TriageFacts, now: datetime) -> Case:
    return Case(case.rfi_id, case.round_no, case.issued_at, case.expires_at, case.claim, case.steps,
                case.submitted_at, case.expired_at, case.closed_at, tuple(levels(case.clock, facts.policy, now)))
