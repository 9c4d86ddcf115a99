"""Triage in the record: the team's own steps on a request, its service-level policy, the report's facts.

Plain values only: the stores return them, the services (`services/triage/`) decide what they
mean. A step's actor and time are the store's to set: the database role and the database's clock
in the team record, the author and the console's clock in the local file.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from stablepay_console.storage.record_types import Claim


@dataclass(frozen=True)
class TriageStep:
    rfi_id: str
    step: str
    actor: str
    at: datetime
    note: str = ""
    round_no: int | None = None
    """The round the step was taken in: the one the console showed, checked against the record's sighting; a step
    kept with none belongs to the round the record saw issued at or before it. None when nothing says which."""


@dataclass(frozen=True)
class RoundShown:
    """The round a console showed when a person took a step: its number and ID, from the API's page."""

    round_no: int
    round_id: str = ""


def by_request(steps: Iterable[TriageStep]) -> dict[str, list[TriageStep]]:
    """Steps grouped by request, each group in the order given."""
    found: dict[str, list[TriageStep]] = {}
    for step in steps:
        found.setdefault(step.rfi_id, []).append(step)
    return found


@dataclass(frozen=True)
class TriagePolicy:
    """The team's service levels: claim and make ready within a span of the round's `issuedAt`, approve
    a span before its `expiresAt`. Time waiting on the user does not count."""

    claim_within: timedelta = timedelta(hours=4)
    ready_within: timedelta = timedelta(hours=24)
    approve_before: timedelta = timedelta(hours=12)
    changed_by: str = ""
    changed_at: datetime | None = None
    is_set: bool = True
    """False: nobody set a policy (the local record before `record policy`: `NO_POLICY`), and no service level
    applies: nothing is breached, nothing counts down. A team record's is set by `record init`."""


NO_POLICY = TriagePolicy(is_set=False)
"""What a record without a policy reads: the spans are the defaults `record policy` starts from, and none applies."""


@dataclass(frozen=True)
class TriageCase:
    """What a step is checked against: the request as the record knows it, right now."""

    rfi_id: str
    status: str | None
    """The provider's status as last seen; None when the record never saw the request."""
    round_no: int | None
    claim: Claim | None
    steps: tuple[TriageStep, ...] = ()
    """The steps of the current round, oldest first."""


@dataclass(frozen=True)
class RoundFact:
    """One round as last seen (the provider's times)."""

    rfi_id: str
    round_no: int
    issued_at: datetime
    expires_at: datetime | None
    submitted_at: datetime | None


@dataclass(frozen=True)
class StatusFact:
    rfi_id: str
    status: str
    first_seen: datetime


@dataclass(frozen=True)
class ClaimFact:
    """A claim taken: in the team record, as the database logged it (`claim_log`); in the local one, its audit
    entry `claim`, outcome `claimed` (one person's own file)."""

    rfi_id: str
    actor: str
    at: datetime
    assigned_by: str = ""
    """The lead who assigned the request to `actor` (team record); "" when `actor` claimed it."""


@dataclass(frozen=True)
class TriageFacts:
    """Everything the report is worked out from: what the record saw and what the team did."""

    rounds: list[RoundFact] = field(default_factory=list)
    statuses: list[StatusFact] = field(default_factory=list)
    claims_taken: list[ClaimFact] = field(default_factory=list)
    steps: list[TriageStep] = field(default_factory=list)
    claims_now: dict[str, Claim] = field(default_factory=dict)
    policy: TriagePolicy = field(default_factory=TriagePolicy)
    now: datetime | None = None
    """The store's clock when the facts were read (the database's, in the team record)."""
    analysts: tuple[str, ...] = ()
    """Every analyst of the team, whether or not they did anything yet (team record); empty in the local one."""
    watched: bool = False
    """The rounds come from a team watcher's sweeps (team record): none is counted before its first."""
    swept_at: datetime | None = None
    """When the team watcher last swept the server; None when it never did."""
