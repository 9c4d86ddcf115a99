"""Triage in the local record: steps, the policy and the report's facts, in the SQLite file.

One person keeps this record, so the order of steps is checked by the services inside the caller's
transaction (`SqliteRecord.transaction`), and the actor and time are the ones the console passes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

from stablepay_console.storage.record_triage_types import (
    NO_POLICY,
    ClaimFact,
    RoundFact,
    StatusFact,
    TriageCase,
    TriageFacts,
    TriagePolicy,
    TriageStep,
    by_request,
)
from stablepay_console.storage.record_types import Claim, parse_stamp, stamp

V3 = """
CREATE TABLE triage (
    id       INTEGER PRIMARY KEY,
    profile  TEXT NOT NULL,
    rfi_id   TEXT NOT NULL,
    step     TEXT NOT NULL CHECK (step IN ('ready', 'approve', 'reject', 'wait', 'resume')),
    actor    TEXT NOT NULL,
    at       TEXT NOT NULL,
    note     TEXT NOT NULL DEFAULT '',
    round_no INTEGER
);
CREATE INDEX triage_of_rfi ON triage (profile, rfi_id, id);
CREATE TABLE triage_policy (
    only           INTEGER PRIMARY KEY CHECK (only = 1),
    claim_within   INTEGER NOT NULL,
    ready_within   INTEGER NOT NULL,
    approve_before INTEGER NOT NULL,
    changed_by     TEXT NOT NULL,
    changed_at     TEXT NOT NULL
);
CREATE TRIGGER triage_no_update BEFORE UPDATE ON triage
BEGIN SELECT RAISE(ABORT, 'triage steps are append-only'); END;
CREATE TRIGGER triage_no_delete BEFORE DELETE ON triage
BEGIN SELECT RAISE(ABORT, 'triage steps are append-only'); END;
"""
"""Schema version 3: triage steps (append-only) and the service-level policy."""


def _round_now(conn: sqlite3.Connection, profile: str, rfi_id: str) -> tuple[str | None, int | None]:
    row = conn.execute(
        "SELECT r.status, ro.round_no FROM rfis r LEFT JOIN rounds ro ON ro.id = r.round_row "
        "WHERE r.profile = ? AND r.rfi_id = ?",
        (profile, rfi_id),
    ).fetchone()
    return (str(row[0]), None if row[1] is None else int(row[1])) if row else (None, None)


def _steps(rows: Sequence[tuple]) -> list[TriageStep]:  # type: ignore[type-arg]
    return [TriageStep(str(r), str(s), str(a), parse_stamp(t), str(n), rn) for r, s, a, t, n, rn in rows]


def case(conn: sqlite3.Connection, profile: str, rfi_id: str) -> TriageCase:
    status, round_no = _round_now(conn, profile, rfi_id)
    claim = conn.execute("SELECT claimant, at FROM claims WHERE profile = ? AND rfi_id = ?",
                         (profile, rfi_id)).fetchone()
    rows = conn.execute(
        "SELECT rfi_id, step, actor, at, note, round_no FROM triage WHERE profile = ? AND rfi_id = ? "
        "AND round_no IS ? ORDER BY id",
        (profile, rfi_id, round_no),
    ).fetchall()
    held = Claim(profile, rfi_id, str(claim[0]), parse_stamp(claim[1])) if claim else None
    return TriageCase(rfi_id, status, round_no, held, tuple(_steps(rows)))


def add_step(conn: sqlite3.Connection, profile: str, rfi_id: str, step: str, actor: str, note: str,
             at: datetime) -> TriageStep:
    _status, round_no = _round_now(conn, profile, rfi_id)
    conn.execute(
        "INSERT INTO triage (profile, rfi_id, step, actor, at, note, round_no) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (profile, rfi_id, step, actor, stamp(at), note, round_no),
    )
    return TriageStep(rfi_id, step, actor, parse_stamp(stamp(at)), note, round_no)


def steps_of(conn: sqlite3.Connection, profile: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
    """The steps of each request's current round (as last seen), oldest first."""
    found: dict[str, list[TriageStep]] = {}
    for rfi_id in dict.fromkeys(rfi_ids):
        steps = case(conn, profile, rfi_id).steps
        if steps:
            found[rfi_id] = list(steps)
    return found


def all_steps(conn: sqlite3.Connection, profile: str) -> list[TriageStep]:
    """Every step taken on the profile's requests, each with its round, oldest first."""
    return _steps(conn.execute(
        "SELECT rfi_id, step, actor, at, note, round_no FROM triage WHERE profile = ? ORDER BY id", (profile,)
    ).fetchall())


def request_steps(conn: sqlite3.Connection, profile: str, rfi_id: str) -> list[TriageStep]:
    return _steps(conn.execute(
        "SELECT rfi_id, step, actor, at, note, round_no FROM triage WHERE profile = ? AND rfi_id = ? ORDER BY id",
        (profile, rfi_id),
    ).fetchall())


def every_step(conn: sqlite3.Connection, profile: str) -> dict[str, list[TriageStep]]:
    return by_request(all_steps(conn, profile))


def policy(conn: sqlite3.Connection) -> TriagePolicy:
    row = conn.execute(
        "SELECT claim_within, ready_within, approve_before, changed_by, changed_at FROM triage_policy WHERE only = 1"
    ).fetchone()
    if row is None:
        return NO_POLICY  # nobody ran `record policy`: no service level applies
    return TriagePolicy(timedelta(seconds=row[0]), timedelta(seconds=row[1]), timedelta(seconds=row[2]),
                        str(row[3]), parse_stamp(row[4]))


def set_policy(conn: sqlite3.Connection, chosen: TriagePolicy, actor: str, at: datetime) -> TriagePolicy:
    conn.execute(
        "INSERT OR REPLACE INTO triage_policy (only, claim_within, ready_within, approve_before, changed_by, "
        "changed_at) VALUES (1, ?, ?, ?, ?, ?)",
        (int(chosen.claim_within.total_seconds()), int(chosen.ready_within.total_seconds()),
         int(chosen.approve_before.total_seconds()), actor, stamp(at)),
    )
    return policy(conn)


def facts(conn: sqlite3.Connection, profile: str, now: datetime) -> TriageFacts:
    """What the report needs of one profile: rounds and statuses seen, claims taken, steps, claims held."""
    rounds: dict[tuple[str, int], RoundFact] = {}
    for rfi_id, round_no, issued, expires, submitted in conn.execute(
        "SELECT rfi_id, round_no, issued_at, expires_at, submitted_at FROM rounds WHERE profile = ? ORDER BY id",
        (profile,),
    ):
        key = (str(rfi_id), int(round_no))
        before = rounds.get(key)
        answered = parse_stamp(submitted) if submitted else (before.submitted_at if before else None)
        rounds[key] = RoundFact(key[0], key[1], parse_stamp(issued), parse_stamp(expires) if expires else None,
                                answered)
    statuses = [StatusFact(str(r), str(s), parse_stamp(f)) for r, s, f in conn.execute(
        "SELECT rfi_id, status, first_seen FROM statuses WHERE profile = ? ORDER BY id", (profile,))]
    taken = [ClaimFact(str(t), str(a), parse_stamp(at)) for t, a, at in conn.execute(
        "SELECT target, actor, at FROM audit WHERE profile = ? AND action = 'claim' AND outcome = 'claimed' "
        "ORDER BY seq", (profile,))]
    steps = all_steps(conn, profile)
    held = {str(r): Claim(profile, str(r), str(c), parse_stamp(a)) for r, c, a in conn.execute(
        "SELECT rfi_id, claimant, at FROM claims WHERE profile = ?", (profile,))}
    return TriageFacts(list(rounds.values()), statuses, taken, steps, held, policy(conn), now)


class SqliteTriage:
    """Mixed into `SqliteRecord`: its triage methods, each a thin call of the functions above."""

    _lock: threading.RLock
    _conn: sqlite3.Connection

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def triage_case(self, profile: str, rfi_id: str) -> TriageCase:
        with self._lock:
            return case(self._conn, profile, rfi_id)

    def add_triage_step(self, profile: str, rfi_id: str, step: str, actor: str, note: str, at: datetime) -> TriageStep:
        with self._write() as conn:
            return add_step(conn, profile, rfi_id, step, actor, note, at)

    def triage_steps(self, profile: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
        with self._lock:
            return steps_of(self._conn, profile, rfi_ids)

    def request_steps(self, profile: str, rfi_id: str) -> list[TriageStep]:
        with self._lock:
            return request_steps(self._conn, profile, rfi_id)

    def every_triage_step(self, profile: str) -> dict[str, list[TriageStep]]:
        with self._lock:
            return every_step(self._conn, profile)

    def triage_policy(self) -> TriagePolicy:
        with self._lock:
            return policy(self._conn)

    def set_triage_policy(self, policy: TriagePolicy, actor: str, at: datetime) -> TriagePolicy:
        with self._write() as conn:
            return set_policy(conn, policy, actor, at)

    def triage_facts(self, profile: str, now: datetime) -> TriageFacts:
        with self._lock:
            return facts(self._conn, profile, now)


