"""`record import`: this machine's SQLite record copied into the team record, once.

Run it again and nothing is copied twice: a round entry or a status line already there (same
request, same fingerprint or status, same first sighting) is skipped, a note is known by its
content, an audit entry by its original hash. Everything happens in one transaction, so a failed
import leaves nothing behind.

The rows go in through one function of the database, `stablepay.import_local` (SECURITY DEFINER, migration
2): no role may INSERT an imported row itself. The database stamps every imported row with the role that
called it and when, so what was imported reads everywhere as the importer's testimony ("imported by alice
on 2026-11-26 from a local record, where it was written as bob"), never as a row that bob wrote:
- the round history and status timelines, tagged as imported: the team's views trust only what the team
  watcher saw itself;
- notes, under the importer's name, with the author and time the local record gave;
- audit entries, appended to the team's chain in their order as the importer's entries, their details
  saying who the local record named, when, and the original hash;
- claims, as claims of the role importing (a claim says "I'm on it"), unless someone holds it.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.local.sightings import ROUND_LAST_SEEN, STATUS_LAST_SEEN
from stablepay_console.storage.postgres.audit import detail_text
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_types import AuditEntry, AuditHead, parse_stamp

if TYPE_CHECKING:
    import psycopg

RFI_FIELDS = ("server", "rfi_id", "environment", "status", "fingerprint", "wire", "first_seen", "last_seen",
              "round_fingerprint", "round_first_seen", "status_first_seen")
ROUND_FIELDS = ("server", "rfi_id", "round_no", "round_id", "fingerprint", "issued_at", "expires_at", "submitted_at",
                "link", "wire", "first_seen", "last_seen")
STATUS_FIELDS = ("server", "rfi_id", "status", "first_seen", "last_seen")


@dataclass
class ImportReport:
    requests: int = 0
    rounds: int = 0
    statuses: int = 0
    notes: int = 0
    claims: int = 0
    entries: int = 0
    claims_held: int = 0
    """Local claims not copied because someone already holds the request in the team record."""

    @property
    def copied(self) -> int:
        return self.requests + self.rounds + self.statuses + self.notes + self.claims + self.entries

    def to_json(self) -> dict[str, int]:
        return {"requests": self.requests, "rounds": self.rounds, "statuses": self.statuses, "notes": self.notes,
                "claims": self.claims, "claimsHeldByOthers": self.claims_held, "auditEntries": self.entries}


def read_local(path: Path, query: str) -> list[tuple[Any, ...]]:
    """Rows of the local file, opened read-only (the file is never changed); RecordError when it cannot be read."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return conn.execute(query).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise RecordError(f"The local record {path} cannot be read ({exc}); nothing was imported.") from None


def local_entries(path: Path) -> tuple[list[AuditEntry], AuditHead | None]:
    """The local file's audit entries and head, to verify before anything is copied."""
    rows = read_local(path, "SELECT seq, at, actor, profile, environment, action, target, outcome, detail, "
                            "prev_hash, hash FROM audit ORDER BY seq")
    head = read_local(path, "SELECT count, hash FROM audit_head WHERE only = 1")
    return [AuditEntry(*row) for row in rows], (AuditHead(int(head[0][0]), str(head[0][1])) if head else None)


def _history(path: Path, scope_of: Callable[[str], str]) -> dict[str, list[dict[str, Any]]]:
    rfis = read_local(path, "SELECT r.profile, r.rfi_id, r.environment, r.status, r.fingerprint, r.wire, r.first_seen, "
                            "r.last_seen, ro.fingerprint, ro.first_seen, st.first_seen FROM rfis r "
                            "LEFT JOIN rounds ro ON ro.id = r.round_row LEFT JOIN statuses st ON st.id = r.status_row")
    # The current round entry and status line were last seen when their request was (`storage.local.sightings`).
    rounds = read_local(path, "SELECT ro.profile, ro.rfi_id, ro.round_no, ro.round_id, ro.fingerprint, ro.issued_at, "
                              "ro.expires_at, ro.submitted_at, ro.link, ro.wire, ro.first_seen, "
                              f"{ROUND_LAST_SEEN} FROM rounds ro LEFT JOIN rfis r ON r.profile = ro.profile AND "
                              "r.rfi_id = ro.rfi_id ORDER BY ro.id")
    statuses = read_local(path, f"SELECT st.profile, st.rfi_id, st.status, st.first_seen, {STATUS_LAST_SEEN} FROM "
                                "statuses st LEFT JOIN rfis r ON r.profile = st.profile AND r.rfi_id = st.rfi_id "
                                "ORDER BY st.id")
    return {
        "rfis": [dict(zip(RFI_FIELDS, (scope_of(r[0]), *r[1:]), strict=True)) for r in rfis],
        "rounds": [dict(zip(ROUND_FIELDS, (scope_of(r[0]), *r[1:]), strict=True)) for r in rounds],
        "statuses": [dict(zip(STATUS_FIELDS, (scope_of(r[0]), *r[1:]), strict=True)) for r in statuses],
    }


def _notes(path: Path, scope_of: Callable[[str], str]) -> list[dict[str, Any]]:
    notes = []
    for profile, rfi_id, author, at, text in read_local(
        path, "SELECT profile, rfi_id, author, at, text FROM notes ORDER BY id"
    ):
        server = scope_of(profile)
        key = hashlib.sha256("\x1f".join((server, rfi_id, author, at, text)).encode("utf-8")).hexdigest()
        notes.append({"server": server, "rfi_id": rfi_id, "profile": profile, "text": text, "key": key,
                      "author": author, "at": parse_stamp(at).isoformat()})
    return notes


def _entries(entries: list[AuditEntry], scope_of: Callable[[str], str], source: str) -> list[dict[str, Any]]:
    rows = []
    for entry in entries:
        server = scope_of(entry.profile) if entry.profile else ""
        detail = {**entry.details, "imported_from": source, "imported_seq": entry.seq, "imported_hash": entry.hash,
                  "written_as": entry.actor, "written_at": entry.at}
        if server:
            detail["server"] = server
        rows.append({"profile": entry.profile, "environment": entry.environment, "action": entry.action,
                     "target": entry.target, "outcome": entry.outcome, "detail": detail_text(detail),
                     "server": server, "hash": entry.hash})
    return rows


def _claims(conn: psycopg.Connection, path: Path, scope_of: Callable[[str], str], report: ImportReport) -> None:
    """The local claims, as the importer's own (the table's trigger makes each the role's), unless held."""
    claims = [(scope_of(profile), rfi_id, profile) for profile, rfi_id in read_local(
        path, "SELECT profile, rfi_id FROM claims")]
    held = {(s, r): mine for s, r, mine in conn.execute(
        "SELECT server, rfi_id, claimant = current_user FROM stablepay.claims WHERE server = ANY(%s)",
        (sorted({c[0] for c in claims}),)).fetchall()}
    free = [c for c in claims if (c[0], c[1]) not in held]
    if free:
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO stablepay.claims (server, rfi_id, profile) VALUES (%s, %s, %s) "
                            "ON CONFLICT (server, rfi_id) DO NOTHING", free)
    report.claims = len(free)
    report.claims_held = sum(1 for c in claims if held.get((c[0], c[1])) is False)


def copy_local(
    conn: psycopg.Connection, path: Path, entries: list[AuditEntry], scope_of: Callable[[str], str], source: str
) -> ImportReport:
    """Copy the local file at `path` (its audit `entries` already verified) inside the caller's transaction."""
    from psycopg.types.json import Jsonb

    payload = {**_history(path, scope_of), "notes": _notes(path, scope_of),
               "entries": _entries(entries, scope_of, source)}
    row = conn.execute("SELECT stablepay.import_local(%s, %s)", (source, Jsonb(payload))).fetchone()
    counts = row[0] if row else {}
    report = ImportReport(requests=int(counts.get("requests", 0)), rounds=int(counts.get("rounds", 0)),
                          statuses=int(counts.get("statuses", 0)), notes=int(counts.get("notes", 0)),
                          entries=int(counts.get("auditEntries", 0)))
    _claims(conn, path, scope_of, report)
    return report
