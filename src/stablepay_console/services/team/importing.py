"""`record import`: check this machine's record, then copy it into the team record once.

The local chain is verified first: a broken one is not imported (the message names the entry), so
the team's chain never takes in history that was already tampered with. The local file is only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stablepay_console.services.audit import verify_chain
from stablepay_console.services.team.scope import machine
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_types import AuditEntry, AuditHead
from stablepay_console.storage.team.importing import ImportReport, copy_local, read_local

if TYPE_CHECKING:
    from stablepay_console.storage.team.store import PgRecord


IMPORT_SECONDS = 300.0
"""How long an import may wait on the database (a large local record is one transaction)."""


@dataclass(frozen=True)
class Imported:
    source: str
    report: ImportReport


def local_entries(path: Path) -> tuple[list[AuditEntry], AuditHead | None]:
    rows = read_local(path, "SELECT seq, at, actor, profile, environment, action, target, outcome, detail, "
                            "prev_hash, hash FROM audit ORDER BY seq")
    head = read_local(path, "SELECT count, hash FROM audit_head WHERE only = 1")
    return [AuditEntry(*row) for row in rows], (AuditHead(int(head[0][0]), str(head[0][1])) if head else None)


def import_local(team: PgRecord, path: Path) -> Imported:
    """Verify the local record at `path` and copy it into `team`; RecordError says why not."""
    import sqlite3

    if not path.exists():
        raise RecordError(f"There is no local record at {path}: nothing to import.")
    try:
        entries, head = local_entries(path)
    except sqlite3.Error as exc:
        raise RecordError(f"The local record {path} cannot be read ({exc}); nothing was imported.") from None
    report = verify_chain(entries, head)
    if not report.ok:
        raise RecordError(f"The local record's audit log is broken at entry {report.broken_at}: {report.reason} "
                          "Nothing was imported.")
    source = f"{machine()}:{path}"
    try:
        copied = team.run("import the local record",
                          lambda conn: copy_local(conn, path, entries, team.scope_of, source), IMPORT_SECONDS)
    except sqlite3.Error as exc:
        raise RecordError(f"The local record {path} cannot be read ({exc}); nothing was imported.") from None
    return Imported(source, copied)
