"""The local record: one SQLite file in the data folder (`record.sqlite3`), for one person.

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
from datetime import datetime, timezone
from pathlib import Path

from stablepay_console.storage import locations
from stablepay_console.storage.local.store import SqliteRecord
from stablepay_console.storage.record import Record, RecordCorrupt, RecordError, RecordNotWritten
from stablepay_console.storage.writing import not_written

log = logging.getLogger(__name__)

RECORD_NAME = "record.sqlite3"


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
