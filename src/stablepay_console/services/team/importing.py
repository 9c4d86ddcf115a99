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
from stablepay_console.storage.postgres.importing import ImportReport, copy_local, local_entries
from stablepay_console.storage.record import RecordError

if TYPE_CHECKING:
    from stablepay_console.storage.postgres.store import PgRecord


IMPORT_SECONDS = 300.0
"""How long an import may wait on the database (a large local record is one transaction)."""


@dataclass(frozen=True)
class Imported:
    source: str
    report: ImportReport


def import_local(team: PgRecord, path: Path) -> Imported:
    """Verify the local record at `path` and copy it into `team`; RecordError says why not."""
    if not path.exists():
        raise RecordError(f"There is no local record at {path}: nothing to import.")
    entries, head = local_entries(path)
    report = verify_chain(entries, head)
    if not report.ok:
        raise RecordError(f"The local record's audit log is broken at entry {report.broken_at}: {report.reason} "
                          "Nothing was imported.")
    source = f"{machine()}:{path}"
    copied = team.run("import the local record",
                      lambda conn: copy_local(conn, path, entries, team.scope_of, source), IMPORT_SECONDS)
    return Imported(source, copied)
