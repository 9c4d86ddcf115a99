"""The local compliance record: what the console saw of each RFI, notes and claims, the audit log.

`Record` is the interface the services use, every method they call named in it; `open_record` gives
the local implementation, a SQLite file in the data folder (`record.sqlite3`), and `storage.team.store.PgRecord`
the team's PostgreSQL. Nothing outside `storage/record*.py` writes SQL.

The two stores are packages of their own: `storage.local` (SQLite) and `storage.team` (PostgreSQL).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Protocol

from stablepay_console.storage.record_triage_types import TriageCase, TriageFacts, TriagePolicy, TriageStep
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Claim,
    ClaimOutcome,
    Issued,
    Note,
    OpenRound,
    RfiHistory,
    SeenPage,
    Sweep,
)

log = logging.getLogger(__name__)

class RecordError(Exception):
    """The record cannot be used; the message says why and what to do."""


class RecordTooNew(RecordError):
    """The file was written by a newer console; it is left untouched."""


class RecordCorrupt(RecordError):
    """The file is not a readable database (it gets set aside)."""


class RecordNotWritten(RecordError):
    """The disk refused a write (full, read-only, forbidden): the file is fine and left as it is.
    The message is one line: what, where and why."""


class Record(Protocol):
    """What the services need from a record store. Every method is one transaction; `transaction()` makes the
    calls inside it one."""

    notice: str | None
    """Set when opening had to set a bad file aside; None otherwise."""

    claims_lapse: bool
    """Whether `claim(..., lapse=…)` is kept (the team record); the local one refuses it."""

    audits_acts: bool
    """Whether the store writes the audit entry of a claim, a release, a triage step and a policy change itself,
    with the act (the team record's database does; the services append them to the local one)."""

    def transaction(self) -> AbstractContextManager[None]:
        """The calls made inside are one transaction: an action and its audit entry are kept together, or
        neither is."""
        ...

    def observe(self, pages: Sequence[SeenPage]) -> int:
        """Record what fetches saw, in one transaction; returns how many requests changed (or were new)."""
        ...

    def history(self, profile: str, rfi_id: str) -> RfiHistory: ...

    def add_note(self, profile: str, rfi_id: str, author: str, text: str, at: datetime) -> Note: ...

    def notes(self, profile: str, rfi_id: str) -> list[Note]: ...

    def claim(
        self, profile: str, rfi_id: str, claimant: str, at: datetime, lapse: timedelta | None = None
    ) -> ClaimOutcome: ...

    def release(self, profile: str, rfi_id: str, claimant: str, *, force: bool = False) -> ClaimOutcome: ...

    def claim_of(self, profile: str, rfi_id: str) -> Claim | None: ...

    def claims(self, profile: str) -> dict[str, Claim]: ...

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

    def mark_sweep(self, profile: str, interval_seconds: int, radar: str) -> bool:
        """The team watcher swept the profile's server; False where nothing was kept (no team, not the watcher)."""
        ...

    def last_sweep(self, profile: str) -> Sweep | None:
        """The team watcher's last sweep of the profile's server (None: no team record, or never swept)."""
        ...

    def issued_first(
        self, profile: str, after: datetime, limit: int
    ) -> tuple[list[Issued], int] | None:
        """The needs-action view's first rows from the team watcher (due after `after`, nearest first) and how many
        issued requests it saw; None on a local record."""
        ...

    def issued(self, profile: str, before: datetime | None = None) -> list[Issued] | None:
        """The wire JSON (request, current round) of each request the team watcher last saw as issued (with
        `before`: only those due by then, nearest first); None on a local record."""
        ...

    def open_rounds(self, profile: str) -> list[OpenRound] | None:
        """The current round of each request the team watcher last saw as issued (the breaches of `rfis due` from
        its sweep); None on a local record."""
        ...

    # --- triage: the team's steps on a request, its service levels, the report's facts ---------

    def triage_case(self, profile: str, rfi_id: str) -> TriageCase: ...

    def add_triage_step(self, profile: str, rfi_id: str, step: str, actor: str, note: str, at: datetime) -> TriageStep:
        """Keep a step (the team record: the database checks its order and the four eyes, and sets who and when)."""
        ...

    def triage_steps(self, profile: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
        """The steps of each request's current round, oldest first (requests without any are left out)."""
        ...

    def every_triage_step(self, profile: str) -> dict[str, list[TriageStep]]:
        """Every step taken on the profile's requests, each with its round, oldest first (requests without
        any are left out): `rfis due` matches them to the round the API shows."""
        ...

    def triage_policy(self) -> TriagePolicy: ...

    def set_triage_policy(self, policy: TriagePolicy, actor: str, at: datetime) -> TriagePolicy: ...

    def triage_facts(self, profile: str, now: datetime) -> TriageFacts: ...

    def close(self) -> None: ...
