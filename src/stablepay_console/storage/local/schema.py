"""The record's schema, one numbered migration at a time (`PRAGMA user_version` says which ran).

A migration is only ever added at the end; one that shipped is never edited. Version 1 was the
first schema (round history, statuses, notes, audit log); version 2 added claims, the audit head
(so a cut-off tail shows) and the append-only guards on the audit log; version 3 the triage steps
and the service-level policy (`local/triage.py`); version 4 the round each step was taken in, given to the
steps kept with none before from their own audit entries (`round_repairs` says which).
"""

from __future__ import annotations

import sqlite3

from stablepay_console.storage.local.triage import V3, V4, repair_rounds
from stablepay_console.storage.record_chain import GENESIS

V1 = """
CREATE TABLE rfis (
    profile     TEXT NOT NULL,
    rfi_id      TEXT NOT NULL,
    environment TEXT NOT NULL,
    status      TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    wire        TEXT NOT NULL,
    status_row  INTEGER,
    round_row   INTEGER,
    first_seen  TEXT NOT NULL,
    last_seen   TEXT NOT NULL,
    PRIMARY KEY (profile, rfi_id)
);
CREATE TABLE rounds (
    id           INTEGER PRIMARY KEY,
    profile      TEXT NOT NULL,
    rfi_id       TEXT NOT NULL,
    round_no     INTEGER NOT NULL,
    round_id     TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    issued_at    TEXT NOT NULL,
    expires_at   TEXT,
    submitted_at TEXT,
    link         TEXT,
    wire         TEXT NOT NULL,
    first_seen   TEXT NOT NULL,
    last_seen    TEXT NOT NULL
);
CREATE INDEX rounds_of_rfi ON rounds (profile, rfi_id, id);
CREATE TABLE statuses (
    id         INTEGER PRIMARY KEY,
    profile    TEXT NOT NULL,
    rfi_id     TEXT NOT NULL,
    status     TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    last_seen  TEXT NOT NULL
);
CREATE INDEX statuses_of_rfi ON statuses (profile, rfi_id, id);
CREATE TABLE notes (
    id      INTEGER PRIMARY KEY,
    profile TEXT NOT NULL,
    rfi_id  TEXT NOT NULL,
    author  TEXT NOT NULL,
    at      TEXT NOT NULL,
    text    TEXT NOT NULL
);
CREATE INDEX notes_of_rfi ON notes (profile, rfi_id, id);
CREATE TABLE audit (
    seq         INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    actor       TEXT NOT NULL,
    profile     TEXT NOT NULL,
    environment TEXT NOT NULL,
    action      TEXT NOT NULL,
    target      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    detail      TEXT NOT NULL,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL
);
"""

V2 = """
CREATE TABLE claims (
    profile  TEXT NOT NULL,
    rfi_id   TEXT NOT NULL,
    claimant TEXT NOT NULL,
    at       TEXT NOT NULL,
    PRIMARY KEY (profile, rfi_id)
);
CREATE TABLE audit_head (
    only  INTEGER PRIMARY KEY CHECK (only = 1),
    count INTEGER NOT NULL,
    hash  TEXT NOT NULL
);
CREATE INDEX audit_by_target ON audit (target, seq);
CREATE INDEX audit_by_time ON audit (at);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
"""


def _head_from_log(conn: sqlite3.Connection) -> None:
    """Version 1 kept no head: take it from the log as it stands (what v1 wrote is trusted as is)."""
    row = conn.execute("SELECT count(*), (SELECT hash FROM audit ORDER BY seq DESC LIMIT 1) FROM audit").fetchone()
    conn.execute("INSERT INTO audit_head (only, count, hash) VALUES (1, ?, ?)", (row[0], row[1] or GENESIS))


MIGRATIONS: list[tuple[str, object]] = [
    (V1, None),
    (V2, _head_from_log),
    (V3, None),
    (V4, repair_rounds),
]
"""(SQL script, then an optional step in Python) for versions 1, 2, …"""

LATEST = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file up to `LATEST` inside one write transaction; returns the version it was at.

    The version is read again once the write lock is held, so two consoles opening a new file at
    the same moment migrate it once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        for version in range(found + 1, LATEST + 1):
            script, step = MIGRATIONS[version - 1]
            for statement in _statements(script):
                conn.execute(statement)
            if callable(step):
                step(conn)
            conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return int(found)


def _statements(script: str) -> list[str]:
    """Split a script into statements (a trigger body keeps its inner `;`)."""
    statements: list[str] = []
    current = ""
    for line in script.strip().splitlines():
        current += line + "\n"
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements

