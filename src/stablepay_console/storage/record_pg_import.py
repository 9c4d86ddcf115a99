"""`record import`: this machine's SQLite record copied into the team record, once.

Run it again and nothing is copied twice: a round entry or a status line already there (same
request, same fingerprint or status, same first sighting) is skipped, a note is known by its
content, an audit entry by its original hash. Everything happens in one transaction, under the
chain's lock, so two imports never interleave and a failed one leaves nothing behind.

What is copied, keyed by server (the profile's environment and base URL on this machine):
- the round history and status timelines (merged with what the team already saw, in order seen);
- notes, with their author and time, marked as imported (and by whom);
- claims, as claims of the role importing (a claim says "I'm on it"), unless someone holds it;
- audit entries, appended to the team's chain in their order, keeping their time, actor, profile,
  action, target and outcome; their details say where they came from and their original hash.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stablepay_console.storage import record_pg_audit as chain
from stablepay_console.storage.record_types import AuditEntry, parse_stamp

if TYPE_CHECKING:
    import psycopg

IMPORT_LOCK = 0x5350494D  # "SPIM"


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
    """Rows of the local file, opened read-only (the file is never changed)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def _history(conn: psycopg.Connection, path: Path, scope_of: Callable[[str], str], report: ImportReport) -> None:
    rfis = read_local(path, "SELECT profile, rfi_id, environment, status, fingerprint, wire, status_row, round_row, "
                            "first_seen, last_seen FROM rfis")
    rounds = read_local(path, "SELECT id, profile, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at, "
                              "submitted_at, link, wire, first_seen, last_seen FROM rounds ORDER BY id")
    statuses = read_local(path, "SELECT id, profile, rfi_id, status, first_seen, last_seen FROM statuses ORDER BY id")
    servers = sorted({scope_of(p) for p in {r[0] for r in rfis} | {r[1] for r in rounds}})
    have_rounds = {(s, r, f, fs): i for i, s, r, f, fs in conn.execute(
        "SELECT id, server, rfi_id, fingerprint, first_seen FROM stablepay.rounds WHERE server = ANY(%s)",
        (servers,)).fetchall()}
    have_statuses = {(s, r, st, fs): i for i, s, r, st, fs in conn.execute(
        "SELECT id, server, rfi_id, status, first_seen FROM stablepay.statuses WHERE server = ANY(%s)",
        (servers,)).fetchall()}
    have_rfis = {(s, r) for s, r in conn.execute(
        "SELECT server, rfi_id FROM stablepay.rfis WHERE server = ANY(%s)", (servers,)).fetchall()}
    round_ids: dict[int, int] = {}
    status_ids: dict[int, int] = {}
    new_rounds = []
    for row in rounds:
        key = (scope_of(row[1]), row[2], row[5], row[11])
        if key in have_rounds:
            round_ids[row[0]] = have_rounds[key]
        else:
            new_rounds.append(row)
    new_statuses = []
    for row in statuses:
        key = (scope_of(row[1]), row[2], row[3], row[4])
        if key in have_statuses:
            status_ids[row[0]] = have_statuses[key]
        else:
            new_statuses.append(row)
    with conn.cursor() as cur:
        if new_rounds:
            cur.executemany(
                "INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at, "
                "submitted_at, link, wire, first_seen, last_seen) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                "%s) RETURNING id",
                [(scope_of(r[1]), *r[2:]) for r in new_rounds], returning=True)
            round_ids.update(_returned(cur, [r[0] for r in new_rounds]))
        if new_statuses:
            cur.executemany(
                "INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen) "
                "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                [(scope_of(r[1]), *r[2:]) for r in new_statuses], returning=True)
            status_ids.update(_returned(cur, [r[0] for r in new_statuses]))
        new_rfis = [r for r in rfis if (scope_of(r[0]), r[1]) not in have_rfis]
        if new_rfis:
            cur.executemany(
                "INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, status_row, "
                "round_row, first_seen, last_seen) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (server, rfi_id) DO NOTHING",
                [(scope_of(r[0]), r[1], r[2], r[3], r[4], r[5], status_ids.get(r[6]) if r[6] else None,
                  round_ids.get(r[7]) if r[7] else None, r[8], r[9]) for r in new_rfis])
    report.requests, report.rounds, report.statuses = len(new_rfis), len(new_rounds), len(new_statuses)


def _returned(cur: psycopg.Cursor[Any], local_ids: list[int]) -> dict[int, int]:
    ids: list[int] = []
    while True:
        row = cur.fetchone()
        if row is not None:
            ids.append(int(row[0]))
        if not cur.nextset():
            break
    return dict(zip(local_ids, ids, strict=True))


def _notes_and_claims(
    conn: psycopg.Connection, path: Path, scope_of: Callable[[str], str], source: str, report: ImportReport
) -> None:
    notes = []
    for profile, rfi_id, author, at, text in read_local(
        path, "SELECT profile, rfi_id, author, at, text FROM notes ORDER BY id"
    ):
        server = scope_of(profile)
        key = hashlib.sha256("\x1f".join((server, rfi_id, author, at, text)).encode("utf-8")).hexdigest()
        notes.append((server, rfi_id, profile, author, parse_stamp(at), text, source, key))
    known = {k for (k,) in conn.execute("SELECT imported_key FROM stablepay.notes WHERE imported_key = ANY(%s)",
                                        ([n[-1] for n in notes],)).fetchall()}
    fresh = [n for n in notes if n[-1] not in known]
    claims = [(scope_of(profile), rfi_id, profile) for profile, rfi_id in read_local(
        path, "SELECT profile, rfi_id FROM claims")]
    held = {(s, r): mine for s, r, mine in conn.execute(
        "SELECT server, rfi_id, claimant = current_user FROM stablepay.claims WHERE server = ANY(%s)",
        (sorted({c[0] for c in claims}),)).fetchall()}
    free = [c for c in claims if (c[0], c[1]) not in held]
    with conn.cursor() as cur:
        if fresh:
            cur.executemany(
                "INSERT INTO stablepay.notes (server, rfi_id, profile, author, at, text, imported_from, imported_key) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (imported_key) DO NOTHING", fresh)
        if free:  # the trigger makes each the importer's claim
            cur.executemany("INSERT INTO stablepay.claims (server, rfi_id, profile) VALUES (%s, %s, %s) "
                            "ON CONFLICT (server, rfi_id) DO NOTHING", free)
    report.notes, report.claims = len(fresh), len(free)
    report.claims_held = sum(1 for c in claims if held.get((c[0], c[1])) is False)


def _audit(conn: psycopg.Connection, entries: list[AuditEntry], scope_of: Callable[[str], str], source: str,
           report: ImportReport) -> None:
    known = chain.imported_hashes(conn, [e.hash for e in entries])
    fresh = [e for e in entries if e.hash not in known]
    if not fresh:
        return
    count, prev, _now = chain.lock_chain(conn)
    rows = []
    for entry in fresh:
        server = scope_of(entry.profile) if entry.profile else ""
        detail = {**entry.details, "imported_from": source, "imported_seq": entry.seq, "imported_hash": entry.hash}
        if server:
            detail["server"] = server
        count += 1
        made = chain.chained(count, prev, (entry.at, entry.actor, entry.profile, entry.environment, entry.action,
                                           entry.target, entry.outcome, chain.detail_text(detail)))
        rows.append((made, server, entry.hash))
        prev = made.hash
    with conn.cursor() as cur, cur.copy(  # one statement: the chain's head moves once, not once per entry
        "COPY stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, detail, prev_hash, "
        "hash, server, imported_from, imported_hash) FROM STDIN"
    ) as copy:
        for e, server, original in rows:
            copy.write_row((e.seq, e.at, e.actor, e.profile, e.environment, e.action, e.target, e.outcome, e.detail,
                            e.prev_hash, e.hash, server, source, original))
    report.entries = len(rows)


def copy_local(
    conn: psycopg.Connection, path: Path, entries: list[AuditEntry], scope_of: Callable[[str], str], source: str
) -> ImportReport:
    """Copy the local file at `path` (its audit `entries` already verified) inside the caller's transaction."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (IMPORT_LOCK,))
    report = ImportReport()
    _history(conn, path, scope_of, report)
    _notes_and_claims(conn, path, scope_of, source, report)
    _audit(conn, entries, scope_of, source, report)
    return report
