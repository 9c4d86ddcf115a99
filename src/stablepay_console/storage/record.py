"""The local compliance record: what the console saw of each RFI, notes and claims, the audit log.

`Record` is the interface the services use, every method they call named in it; `open_record` gives
the local implementation, a SQLite file in the data folder (`record.sqlite3`), and `storage.postgres.store.PgRecord`
the team's PostgreSQL. Nothing outside `storage/record*.py` writes SQL.

The two stores are packages of their own: `storage.local` (SQLite) and `storage.postgres` (PostgreSQL).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol, cast

from stablepay_console.storage.record_triage_types import (
    RoundShown,
    TriageCase,
    TriageFacts,
    TriagePolicy,
    TriageStep,
)
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Claim,
    ClaimOutcome,
    DueIssued,
    Issued,
    Note,
    OpenRound,
    RfiHistory,
    SeenPage,
    Sweep,
    TeamMember,
)

log = logging.getLogger(__name__)

class RecordError(Exception):
    """The record cannot be used; the message says why and what to do."""


class RecordRefused(RecordError):
    """The store refused what was asked by its own rules (a privilege, an order, four eyes): nothing was written.
    `why` is the store's own words, as it said them."""

    def __init__(self, message: str, why: str = "") -> None:
        super().__init__(message)
        self.why = why or message


class RecordTooNew(RecordError):
    """The file was written by a newer console; it is left untouched."""


class RecordCorrupt(RecordError):
    """The file is not a readable database (it gets set aside)."""


class RecordNotWritten(RecordError):
    """The disk refused a write (full, read-only, forbidden): the file is fine and left as it is.
    The message is one line: what, where and why."""


class Offer(StrEnum):
    """What a store offers beyond what every store does. Callers ask for one (`Offer.SWEEPS in record.offers`),
    never which store it is."""

    FOUR_EYES = "four eyes"
    """The store itself refuses a step out of order, by the wrong person, or an approval by its maker (the team
    record's database); elsewhere the services' rules are the only check."""
    LAPSING_CLAIMS = "lapsing claims"
    """`claim(..., lapse=…)` makes a claim that ends by itself."""
    SWEEPS = "sweeps"
    """The team watcher's sweeps and what it saw issued (`TeamFeed`)."""
    LIVE_CHANGES = "live changes"
    """Other consoles' notes, claims and steps are announced as they are committed (LISTEN/NOTIFY)."""
    ASSIGNMENT = "assignment"
    """A lead assigns a request to an analyst (`Assignments`); the store says who may and who is on the team."""
    ACT_ENTRIES = "act entries"
    """The store writes the audit entry of a claim, a release, a step and a policy change itself, with the act;
    the services append them only where it does not."""
    DELIVERIES = "deliveries"
    """The provider's webhook deliveries the team watcher took, deduplicated by the store (`DeliveryLedger`)."""


class HistoryRecord(Protocol):
    """What the console saw of each request: its rounds and statuses."""

    def observe(self, pages: Sequence[SeenPage]) -> int:
        """Record what fetches saw, in one transaction; returns how many requests changed (or were new)."""
        ...

    def history(self, profile: str, rfi_id: str) -> RfiHistory: ...

    def ids_starting(self, profile: str, prefix: str, limit: int = 10) -> list[str]:
        """The IDs of requests seen whose ID starts with `prefix` (lower-case hexadecimal), at most `limit`."""
        ...


class NotesAndClaims(Protocol):
    def add_note(self, profile: str, rfi_id: str, author: str, text: str, at: datetime) -> Note: ...

    def notes(self, profile: str, rfi_id: str) -> list[Note]: ...

    def claim(
        self, profile: str, rfi_id: str, claimant: str, at: datetime, lapse: timedelta | None = None
    ) -> ClaimOutcome:
        """`lapse` only where the store offers LAPSING_CLAIMS."""
        ...

    def release(self, profile: str, rfi_id: str, claimant: str, *, force: bool = False) -> ClaimOutcome: ...

    def claim_of(self, profile: str, rfi_id: str) -> Claim | None: ...

    def claims(self, profile: str) -> dict[str, Claim]: ...


class AuditTrail(Protocol):
    """The hash-chained audit log."""

    def append_audit(self, draft: AuditDraft) -> AuditEntry: ...

    def audit(
        self,
        *,
        since: datetime | None = None,
        profile: str | None = None,
        target: str | None = None,
        limit: int | None = None,
    ) -> list[AuditEntry]:
        """Entries in order, filtered; with `limit`, the latest `limit` of them."""
        ...

    def audit_head(self) -> AuditHead | None: ...

    def audit_hash(self, seq: int) -> str | None:
        """The hash of entry `seq`, None when there is no such entry (what a witness compares)."""
        ...

    @property
    def witness_key(self) -> str:
        """Which record this is, for the witness file: the local file's path, or the team database."""
        ...


class TriageRecord(Protocol):
    """The team's steps on a request, its service levels, the report's facts."""

    def triage_case(self, profile: str, rfi_id: str) -> TriageCase: ...

    def add_triage_step(self, profile: str, rfi_id: str, step: str, actor: str, note: str, at: datetime,
                        shown: RoundShown | None = None) -> TriageStep:
        """Keep a step in the round it was taken in: `shown`, the round the console showed, checked against the
        record's sighting (RecordRefused where it is another), else the round the record knows. Where the store
        offers FOUR_EYES it checks the order and the four eyes itself, and sets who and when."""
        ...

    def triage_steps(self, profile: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
        """The steps of each request's current round, oldest first (requests without any are left out)."""
        ...

    def request_steps(self, profile: str, rfi_id: str) -> list[TriageStep]:
        """Every step taken on one request, all its rounds, oldest first (`rfis history`)."""
        ...

    def every_triage_step(self, profile: str) -> dict[str, list[TriageStep]]:
        """Every step taken on the profile's requests, each with its round, oldest first (requests without
        any are left out): `rfis due` matches them to the round the API shows."""
        ...

    def triage_policy(self) -> TriagePolicy: ...

    def round_repairs(self) -> dict[str, int]:
        """What the update that gave steps their round did to the steps kept with none: {"given": n, "unknown": m},
        empty when there were none (`record status`)."""
        ...

    def set_triage_policy(self, policy: TriagePolicy, actor: str, at: datetime) -> TriagePolicy: ...

    def triage_facts(self, profile: str, now: datetime) -> TriageFacts: ...


class TeamFeed(Protocol):
    """What the team watcher recorded (a store that offers SWEEPS): its sweeps and the requests it saw issued."""

    def mark_sweep(self, profile: str, interval_seconds: int, radar: str) -> bool:
        """The team watcher swept the profile's server; False where nothing was kept (this role is not the watcher)."""
        ...

    def last_sweep(self, profile: str, radar: bool = True) -> Sweep | None:
        """The team watcher's last sweep of the profile's server (None: never swept); without `radar`, its radar
        is an empty text."""
        ...

    def issued_first(self, profile: str, after: datetime, limit: int) -> tuple[list[Issued], int]:
        """The needs-action view's first rows (due after `after`, nearest first) and how many issued requests the
        watcher saw."""
        ...

    def issued(self, profile: str) -> list[Issued]:
        """The wire JSON (request, current round) of each request the team watcher last saw as issued."""
        ...

    def issued_due(self, profile: str, before: datetime, rounds: bool = False) -> list[DueIssued]:
        """Each request the team watcher last saw as issued and due by `before`, nearest first: its ID, JSON, round
        number, its round's JSON (only with `rounds`) and its deadline."""
        ...

    def open_rounds(self, profile: str) -> list[OpenRound]:
        """The current round of each request the team watcher last saw as issued."""
        ...


class DeliveryLedger(Protocol):
    """The webhook deliveries the team watcher took (a store that offers DELIVERIES), one per (server, eventId)."""

    def delivery_known(self, profile: str, event_id: str) -> bool:
        """Whether the delivery was taken before (by this watcher or another on the same record)."""
        ...

    def take_delivery(self, profile: str, event_id: str, event_type: str, led_to: str,
                      pages: Sequence[SeenPage], radar: str | None = None) -> bool:
        """Keep the delivery and record `pages` (what the API said) and the watcher's `radar` (the banner's count,
        its sweep's time unchanged), in one transaction; False when it was taken before, and then nothing is
        written. Every console of the team hears of it (LISTEN)."""
        ...


class Assignments(Protocol):
    """A lead gives a request to an analyst (a store that offers ASSIGNMENT)."""

    def team_analysts(self) -> list[TeamMember]:
        """The people a request may be assigned to, by name."""
        ...

    def assign(self, profile: str, rfi_id: str, analyst: str) -> ClaimOutcome:
        """Make `analyst` hold the request's claim, taken from whoever held it; the store refuses anyone but a lead."""
        ...


class Record(HistoryRecord, NotesAndClaims, AuditTrail, TriageRecord, Protocol):
    """What the services need from every record store. Every method is one transaction; `transaction()` makes
    the calls inside it one. What a store offers beyond it is in `offers`."""

    notice: str | None
    """Set when opening had to set a bad file aside; None otherwise."""

    offers: frozenset[Offer]

    def transaction(self) -> AbstractContextManager[None]:
        """The calls made inside are one transaction: an action and its audit entry are kept together, or
        neither is."""
        ...

    def close(self) -> None: ...


def assignments(record: Record) -> Assignments:
    """The record as a store of assignments; ask `Offer.ASSIGNMENT in record.offers` first."""
    if Offer.ASSIGNMENT not in record.offers:
        raise RecordError("Assignment needs the team record: in a record of your own, a request is yours to claim "
                          "(`rfis claim ID`).")
    return cast(Assignments, record)


def delivery_ledger(record: Record) -> DeliveryLedger:
    """The record as the ledger of webhook deliveries; ask `Offer.DELIVERIES in record.offers` first."""
    if Offer.DELIVERIES not in record.offers:
        raise RecordError("Webhook deliveries are deduplicated in the team record (STABLEPAY_RECORD_URL): a "
                          "record of your own keeps none.")
    return cast(DeliveryLedger, record)


def team_feed(record: Record) -> TeamFeed:
    """The record as the team watcher's feed; ask `Offer.SWEEPS in record.offers` first."""
    if Offer.SWEEPS not in record.offers:
        raise RecordError("This record keeps no team watcher's sweeps: a team record does.")
    return cast(TeamFeed, record)
