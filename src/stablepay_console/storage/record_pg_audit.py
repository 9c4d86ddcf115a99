"""The team's one audit chain in PostgreSQL: appends serialised, entries exactly as the local file's.

An append takes a transaction-scoped advisory lock, reads the head, and inserts the next entry with
the same hash as the local record would compute (`record_chain`), so `audit verify` is the same
walk over either store. The database checks the rest: the actor must be the role writing
(`audit_1_actor`), the entry must follow the entry before it (`audit_2_chain`), the head is moved by
the owner's trigger only (`audit_3_head`), and nobody may UPDATE, DELETE or TRUNCATE (privileges and
triggers).

The time of an entry is the database's clock, one clock for the whole team. The server the entry is
about ("production https://api.example") goes into its details, so it is covered by the hash.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.record_chain import entry_hash
from stablepay_console.storage.record_types import AuditDraft, AuditEntry, AuditHead, stamp

if TYPE_CHECKING:
    import psycopg

CHAIN_LOCK = 0x5350434E  # "SPCN": appends to the chain, one at a time per database
COLUMNS = ("seq", "at", "actor", "profile", "environment", "action", "target", "outcome", "detail", "prev_hash",
           "hash")


def detail_text(detail: dict[str, Any]) -> str:
    """The details as the local record writes them (sorted keys, ASCII)."""
    return json.dumps(detail, sort_keys=True, ensure_ascii=True, default=str)


def lock_chain(conn: psycopg.Connection) -> tuple[int, str, datetime]:
    """Wait for the chain, then its head (count, hash) and the database's time."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (CHAIN_LOCK,))
    row = conn.execute("SELECT count, hash, clock_timestamp() FROM stablepay.audit_head WHERE single").fetchone()
    if row is None:
        raise LookupError("the audit head is missing")
    return int(row[0]), str(row[1]), row[2]


def insert(conn: psycopg.Connection, entry: AuditEntry, server: str, imported: tuple[str, str] | None = None) -> None:
    """One entry, already chained; `imported` is (where it came from, its original hash)."""
    source, original = imported if imported else (None, None)
    conn.execute(
        "INSERT INTO stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, detail, "
        "prev_hash, hash, server, imported_from, imported_hash) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (entry.seq, entry.at, entry.actor, entry.profile, entry.environment, entry.action, entry.target,
         entry.outcome, entry.detail, entry.prev_hash, entry.hash, server, source, original),
    )


def chained(seq: int, prev: str, fields: tuple[str, str, str, str, str, str, str, str]) -> AuditEntry:
    """The entry `seq` after `prev`, its hash computed (fields: at, actor … detail)."""
    unsigned = AuditEntry(seq, *fields, prev_hash=prev, hash="")
    return AuditEntry(seq, *fields, prev_hash=prev, hash=entry_hash(prev, unsigned.content()))


def append(conn: psycopg.Connection, draft: AuditDraft, server: str, role: str) -> AuditEntry:
    """Append `draft` as `role` (the connection's own role: the database refuses any other actor)."""
    count, prev, now = lock_chain(conn)
    detail = {**draft.detail, "server": server} if server else dict(draft.detail)
    fields = (stamp(now), role, draft.profile, draft.environment, draft.action, draft.target, draft.outcome,
              detail_text(detail))
    entry = chained(count + 1, prev, fields)
    insert(conn, entry, server)
    return entry


def read(
    conn: psycopg.Connection, *, since: datetime | None, server: str | None, target: str | None, limit: int | None
) -> list[AuditEntry]:
    from psycopg import sql

    where: list[sql.Composable] = []
    params: list[Any] = []
    for clause, value in (("at >= %s", stamp(since) if since else None), ("server = %s", server),
                          ("target = %s", target)):
        if value is not None:
            where.append(sql.SQL(clause))
            params.append(value)
    columns = sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)
    query = sql.SQL("SELECT {} FROM stablepay.audit").format(columns)
    if where:
        query = sql.SQL("{} WHERE {}").format(query, sql.SQL(" AND ").join(where))
    if limit is not None:
        query = sql.SQL("SELECT * FROM ({} ORDER BY seq DESC LIMIT %s) latest").format(query)
        params.append(int(limit))
    rows = conn.execute(sql.SQL("{} ORDER BY seq").format(query), params).fetchall()
    return [AuditEntry(int(r[0]), *r[1:]) for r in rows]


def head(conn: psycopg.Connection) -> AuditHead | None:
    row = conn.execute("SELECT count, hash FROM stablepay.audit_head WHERE single").fetchone()
    return AuditHead(int(row[0]), str(row[1])) if row else None


def imported_hashes(conn: psycopg.Connection, hashes: Iterable[str]) -> set[str]:
    rows = conn.execute("SELECT imported_hash FROM stablepay.audit WHERE imported_hash = ANY(%s)",
                        (list(hashes),)).fetchall()
    return {str(r[0]) for r in rows}
