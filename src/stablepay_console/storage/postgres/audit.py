"""The team's one audit chain in PostgreSQL: the client sends an entry's content, the database does the rest.

A client inserts only what happened (profile, environment, action, target, outcome, detail, server).
The database's trigger (`stablepay.audit_stamp`, migration 2) takes the chain's lock, numbers the
entry, stamps its time from the database clock and its actor from the role inserting, chains it to the
entry before it and computes its SHA-256 in the same canonical form as the local record
(`record_chain`), so `audit verify` is the same walk over either store. Nobody may UPDATE, DELETE or
TRUNCATE (privileges and triggers); the head kept beside the log is moved by the owner's trigger only.

The server the entry is about ("production https://api.example") goes into its details, so it is
covered by the hash.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.record_types import AuditDraft, AuditEntry, AuditHead, Imported, stamp

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

COLUMNS = ("seq", "at", "actor", "profile", "environment", "action", "target", "outcome", "detail", "prev_hash",
           "hash", "typed", "imported_from", "imported_by")
DATABASE_ACT = re.compile(r"claim|claim\.release|triage\.[a-z]+")
"""The actions, exactly so spelled, whose entries the database writes with the act: before schema 8 a member could
type one only as a refusal ("refused: …"), so an entry so named and not refused is the database's."""


def detail_text(detail: dict[str, Any]) -> str:
    """The details as the local record writes them (sorted keys, ASCII)."""
    return json.dumps(detail, sort_keys=True, ensure_ascii=True, default=str)


def _columns() -> sql.Composed:
    from psycopg import sql

    return sql.SQL(", ").join(sql.Identifier(c) for c in COLUMNS)


def typed(action: str, outcome: str, stored: bool | None) -> bool:
    """Whether a member typed the entry: as the database stamped it (schema 8), else (entries written before) by
    what schema 4 allowed: only the database wrote an act's own entry, and a member only its refusal."""
    if stored is not None:
        return bool(stored)
    return DATABASE_ACT.fullmatch(action) is None or outcome.startswith("refused")


def _entry(row: tuple[Any, ...]) -> AuditEntry:
    *fields, stored, source, by = row
    entry = AuditEntry(int(fields[0]), *fields[1:])
    if source is None:
        return replace(entry, typed=typed(entry.action, entry.outcome, stored))
    details = entry.details
    if "written_as" in details:  # version 2: the importer's entry, at the time of the import
        imported = Imported(str(source), entry.actor, entry.at, str(details["written_as"]),
                            str(details.get("written_at") or "") or None)
    else:  # version 1 kept the original actor and time; the import's own time was not kept
        imported = Imported(str(source), str(by or "(unknown importer)"), None, entry.actor, entry.at)
    return replace(entry, imported=imported)


def append(conn: psycopg.Connection, draft: AuditDraft, server: str) -> AuditEntry:
    """Append `draft`'s content; the entry comes back as the database numbered, stamped and chained it."""
    detail = {**draft.detail, "server": server} if server else dict(draft.detail)
    from psycopg import sql

    row = conn.execute(
        sql.SQL("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING {}").format(_columns()),
        (draft.profile, draft.environment, draft.action, draft.target, draft.outcome, detail_text(detail), server),
    ).fetchone()
    assert row is not None
    return _entry(row)


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
    query: sql.Composable = sql.SQL("SELECT {} FROM stablepay.audit").format(_columns())
    if where:
        query = sql.SQL("{} WHERE {}").format(query, sql.SQL(" AND ").join(where))
    if limit is not None:
        query = sql.SQL("SELECT * FROM ({} ORDER BY seq DESC LIMIT %s) latest").format(query)
        params.append(int(limit))
    rows = conn.execute(sql.SQL("{} ORDER BY seq").format(query), params).fetchall()
    return [_entry(tuple(r)) for r in rows]


def head(conn: psycopg.Connection) -> AuditHead | None:
    row = conn.execute("SELECT count, hash FROM stablepay.audit_head WHERE single").fetchone()
    return AuditHead(int(row[0]), str(row[1])) if row else None
