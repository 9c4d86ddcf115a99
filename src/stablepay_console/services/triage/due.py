"""A request's step and its time left to the next service level, for a row shown now; and the breaches.

The inbox and `rfis due` work from the request as the API just sent it (its round's `issuedAt` and
`expiresAt`, its status), the claim and the steps of its current round from the record, and the
team's policy: `BreachTally` keeps only what is breached as the issued requests stream past (or, from
the team watcher's sweep, as its issued rows are read). The banner's count works from the record alone
(`open_breaches`: every round last seen open). Without a policy set there is no level, so no breach.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from stablepay_console.services.triage.cases import cases
from stablepay_console.services.triage.levels import RoundClock, TimeLeft, time_left
from stablepay_console.services.triage.state import CLOSED, UNCLAIMED, step_of
from stablepay_console.storage.record import Record, RecordError
from stablepay_console.storage.record_triage_types import TriageFacts, TriagePolicy, TriageStep
from stablepay_console.storage.record_types import Claim, OpenRound, parse_stamp

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


@dataclass(frozen=True)
class RowTriage:
    step: str
    left: TimeLeft | None
    by: str = ""
    """Who made it ready, where the row says so (the review queue)."""


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


class Breach(NamedTuple):
    """A round whose next service level is breached (a tuple, not a frozen dataclass: `rfis due` makes one
    for each of tens of thousands of breached requests)."""

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


@dataclass(frozen=True)
class HeldTriage:
    """What the record holds of the team's triage that the API does not: claims, steps, the policy."""

    claims: Mapping[str, Claim]
    steps: Mapping[str, Sequence[TriageStep]]
    """Every step of each request, all rounds, oldest first."""
    policy: TriagePolicy


def held_triage(record: Record, profile: str) -> HeldTriage:
    """One read of the record (a few rows: only requests someone acted on have claims or steps)."""
    return HeldTriage(record.claims(profile), record.every_triage_step(profile), record.triage_policy())


class BreachTally:
    """The breaches among requests streaming past: only the breaches are kept. From the API (`add`: `rfis due`
    reads every issued request) or from the team watcher's rows (`add_open_rounds`).

    `held` is called once: the record is read while the first page is on its way. With `ready`, rounds wait
    in a list until `ready()` says the read is done (or `found` is asked), so the walk never waits on the
    record: its first open checks the file, which takes a while for a large one. Otherwise `held` is
    called at the first request. A record that cannot be read leaves `problem` saying why, and the tally
    empty."""

    def __init__(self, held: Callable[[], HeldTriage], now: datetime, ready: Callable[[], bool] | None = None) -> None:
        self._held_of: Callable[[], HeldTriage] | None = held
        self._held: HeldTriage | None = None
        self._ready = ready
        self._waiting: list[tuple[str, str, int, datetime, datetime | None]] = []
        self.now = now
        self.problem: str | None = None
        self._found: list[Breach] = []
        self._claim_by = now
        """An unclaimed round issued before this is past its claim level (now less the policy's claim time)."""

    def _read(self) -> HeldTriage | None:
        if self._held_of is not None:
            held_of, self._held_of = self._held_of, None
            try:
                self._held = held_of()
            except (RecordError, TimeoutError) as exc:
                self.problem = str(exc) or type(exc).__name__
            else:
                policy = self._held.policy
                # No policy set: no level applies, so no round is ever past its claim level.
                self._claim_by = self.now - policy.claim_within if policy.is_set else datetime.min.replace(
                    tzinfo=self.now.tzinfo)
        return self._held

    def add(self, rfi: Rfi) -> None:
        """A request as the API sent it."""
        self.add_page((rfi,))

    def add_page(self, rfis: Sequence[Rfi]) -> None:
        """A page of requests as the API sent it."""
        add_round = self.add_round
        for rfi in rfis:
            r = rfi.round
            if r is not None:
                add_round(rfi.id, rfi.status, r.round, r.issued_at, r.expires_at)

    def add_round(self, rfi_id: str, status: str, round_no: int, issued_at: datetime,
                  expires_at: datetime | None) -> None:
        """A request's current round: the provider's status, the round's number and times."""
        if self._ready is not None:
            if not self._ready():
                self._waiting.append((rfi_id, status, round_no, issued_at, expires_at))
                return
            self._catch_up()
        self._tally(rfi_id, status, round_no, issued_at, expires_at)

    def add_open_rounds(self, rounds: Iterable[OpenRound]) -> None:
        """The rounds the team watcher last saw open (`Record.open_rounds`: tens of thousands): a stamp is read
        only where it counts (an unclaimed round with no step needs its `issuedAt` alone)."""
        self._catch_up()
        held = self._read()
        if held is None:
            return
        claims, steps, claim_by, found = held.claims, held.steps, self._claim_by, self._found
        for rfi_id, round_no, issued_at, expires_at in rounds:
            if rfi_id in claims or rfi_id in steps:  # a few: someone acted on them
                self._tally(rfi_id, "issued", round_no, parse_stamp(issued_at),
                            parse_stamp(expires_at) if expires_at else None)
                continue
            issued = parse_stamp(issued_at)
            if issued < claim_by:  # it had to be claimed before now
                found.append(Breach(rfi_id, round_no, UNCLAIMED, "claim", (claim_by - issued).total_seconds()))

    def _catch_up(self) -> None:
        """The rounds that waited for the record's read, now that it is done (or must be waited for)."""
        self._ready = None
        waiting, self._waiting = self._waiting, []
        for rfi_id, status, round_no, issued_at, expires_at in waiting:
            self._tally(rfi_id, status, round_no, issued_at, expires_at)

    def _tally(self, rfi_id: str, status: str, round_no: int, issued_at: datetime,
               expires_at: datetime | None) -> None:
        held = self._read()
        if held is None or status in CLOSED:
            return
        claim = held.claims.get(rfi_id)
        taken = held.steps.get(rfi_id)
        steps = [s for s in taken if s.round_no == round_no] if taken else []
        if claim is None and not steps:  # most requests: unclaimed, no step taken, nothing paused
            if issued_at < self._claim_by:  # it had to be claimed before now
                late = (self._claim_by - issued_at).total_seconds()
                self._found.append(Breach(rfi_id, round_no, UNCLAIMED, "claim", late))
            return
        step = step_of(status, claim, steps)
        clock = RoundClock(issued_at, expires_at, claim.at if claim else None, steps)
        left = time_left(step, clock, held.policy, self.now)
        if left is not None and left.breached and left.left is not None:
            self._found.append(Breach(rfi_id, round_no, step, left.level, -left.left.total_seconds()))

    def _settle(self) -> list[Breach]:
        """Every breach, once the rounds that waited for the record's read are tallied."""
        self._catch_up()
        self._read()
        return self._found

    @property
    def count(self) -> int:
        """How many breaches were found."""
        return len(self._settle())

    def found(self, most: int | None = None) -> list[Breach]:
        """The breaches, the latest first (as `open_breaches`): with `most`, only that many of the latest (`rfis
        due` lists 50 of tens of thousands: only those are sorted)."""
        self._settle()
        if most is not None and most < len(self._found):
            return heapq.nlargest(most, self._found, key=_lateness)
        return sorted(self._found, key=_lateness, reverse=True)


_lateness = itemgetter(4)
"""A breach's seconds late (`Breach.late_seconds`)."""
