"""The local compliance record: what the console saw of each RFI, notes and claims, the audit log.

`Record` is the interface the services use, every method they call named in it; `open_record` gives
the local implementation, a SQLite file in the data folder (`record.sqlite3`), and `record_pg.PgRecord`
the team's PostgreSQL. Nothing outside `storage/record*.py` writes SQL.

Opening the file:
- a missing file is created (readable by the user only) and brought to the latest schema;
- a file written by a newer console (a higher schema version) is refused with `RecordTooNew` and
  left exactly as it is;
- a corrupt or unreadable file is set aside (renamed `record.sqlite3.unreadable-<time>`, kept for
  inspection) and a new one started; `notice` on the new store says so.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Protocol

from stablepay_console.storage import locations
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Claim,
    ClaimOutcome,
    Issued,
    Note,
    RfiHistory,
    SeenPage,
    Sweep,
)
from stablepay_console.storage.writing import not_written

log = logging.getLogger(__name__)

RECORD_NAME = "record.sqlite3"


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

    def close(self) -> None: ...


def record_file() -> Path:
    return locations.data_dir() / RECORD_NAME


def _create_private(path: Path) -> None:
    """An empty file (an empty SQLite database) readable by the user only; its -wal and -shm follow."""
    locations.ensure(path)
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def set_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename a bad record file (and its -wal and -shm) out of the way; returns the kept file's path."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    kept = path.with_name(f"{path.name}.unreadable-{when}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.name}.unreadable-{when}-{n}")
    try:
        os.replace(path, kept)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.replace(side, kept.with_name(kept.name + suffix))
    except OSError as exc:
        raise RecordError(
            f"The record {path} cannot be read and could not be set aside ({exc.strerror or exc}). "
            "Move it away by hand; the console keeps no record until then."
        ) from None
    return kept


def open_record(path: Path | None = None, *, check: bool = True) -> Record:
    """The record at `path` (default: `record.sqlite3` in the data folder), ready to use.

    Raises `RecordTooNew` for a newer file (left untouched) and `RecordError` when the file can
    neither be used nor set aside. `check` runs SQLite's quick integrity check on an existing file.
    """
    from stablepay_console.storage.record_sqlite import SqliteRecord

    target = path or record_file()
    if not target.exists():
        try:
            _create_private(target)
        except OSError as exc:
            raise RecordNotWritten(str(not_written("the record", target, exc))) from None
    try:
        return SqliteRecord(target, check=check)
    except RecordCorrupt as exc:
        kept = set_aside(target)
        _create_private(target)
        store = SqliteRecord(target, check=False)
        store.notice = (
            f"The record {target} could not be read ({exc}). It was kept as {kept.name} beside it, "
            "and a new record was started."
        )
        log.warning("%s", store.notice)
        return store
