"""Triage in the local record: steps, the policy and the report's facts, in the SQLite file.

One person keeps this record, so the order of steps is checked by the services inside the caller's
transaction (`SqliteRecord.transaction`), and the actor and time are the ones the console passes.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta, timezone

from stablepay_console.storage.record_triage_types import (
    NO_POLICY,
    ClaimFact,
    RoundFact,
    RoundShown,
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


V4 = """
ALTER TABLE triage ADD COLUMN round_id TEXT;
CREATE TABLE round_repairs (
    step_id     INTEGER PRIMARY KEY,
    profile     TEXT NOT NULL,
    rfi_id      TEXT NOT NULL,
    round_no    INTEGER,
    audit_seq   INTEGER,
    repaired_at TEXT NOT NULL
);
"""
"""Schema version 4: a step keeps the round it was taken in (its number and ID), and the repairs of the steps kept
with none before (`repair_rounds`)."""

UNSEEN = (None, None, None, False)


def _round_now(conn: sqlite3.Connection, profile: str, rfi_id: str) -> tuple[str | None, int | None, str | None, bool]:
    """(status, round number, round ID, seen at all) of the request as the record last saw it."""
    row = conn.execute(
        "SELECT r.status, ro.round_no, ro.round_id FROM rfis r LEFT JOIN rounds ro ON ro.id = r.round_row "
        "WHERE r.profile = ? AND r.rfi_id = ?",
        (profile, rfi_id),
    ).fetchone()
    if not row:
        return UNSEEN
    return str(row[0]), None if row[1] is None else int(row[1]), None if row[2] is None else str(row[2]), True


def _issued(conn: sqlite3.Connection, profile: str, rfi_id: str) -> list[tuple[datetime, int]]:
    """The rounds the record saw of the request: (issued at, number), oldest issued first."""
    found = []
    for issued, round_no in conn.execute("SELECT issued_at, round_no FROM rounds WHERE profile = ? AND rfi_id = ? "
                                         "ORDER BY id", (profile, rfi_id)):
        try:
            found.append((parse_stamp(issued), int(round_no)))
        except (ValueError, TypeError):
            continue  # a round the record cannot date says nothing about when a step was taken
    return sorted(found, key=lambda r: r[0])


def round_at(issued: Sequence[tuple[datetime, int]], at: datetime) -> int | None:
    """The round current at `at`: the latest the record saw issued at or before it; None before any."""
    found = None
    for when, round_no in issued:
        if when <= at:
            found = round_no
    return found


def _owned(rows: Sequence[tuple], issued: Sequence[tuple[datetime, int]]) -> list[TriageStep]:  # type: ignore[type-arg]
    """Steps with their round: as kept, or for one kept with none, the round the record saw current when taken."""
    steps = []
    for r, s, a, t, n, rn in rows:
        at = parse_stamp(t)
        kept = int(rn) if rn is not None else round_at(issued, at)
        steps.append(TriageStep(str(r), str(s), str(a), at, str(n), kept))
    return steps


STEP_ROWS = "SELECT rfi_id, step, actor, at, note, round_no FROM triage WHERE profile = ? AND rfi_id = ? ORDER BY id"


def _request_steps(conn: sqlite3.Connection, profile: str, rfi_id: str) -> list[TriageStep]:
    return _owned(conn.execute(STEP_ROWS, (profile, rfi_id)).fetchall(), _issued(conn, profile, rfi_id))


def case(conn: sqlite3.Connection, profile: str, rfi_id: str) -> TriageCase:
    """Where the request stands: every step until the record has seen it, then the steps of its round as seen."""
    status, round_no, _round_id, seen = _round_now(conn, profile, rfi_id)
    claim = conn.execute("SELECT claimant, at FROM claims WHERE profile = ? AND rfi_id = ?",
                         (profile, rfi_id)).fetchone()
    steps = _request_steps(conn, profile, rfi_id)
    counted = [s for s in steps if s.round_no == round_no] if seen else steps
    held = Claim(profile, rfi_id, str(claim[0]), parse_stamp(claim[1])) if claim else None
    return TriageCase(rfi_id, status, round_no, held, tuple(counted))


def step_round(conn: sqlite3.Connection, profile: str, rfi_id: str,
               shown: RoundShown | None) -> tuple[int | None, str | None]:
    """The round a step is kept in: the one the record saw, or (never seen) the one the request's earlier steps
    named, or the one the console showed. RecordRefused where the console showed another: the same rule as the
    team record's database (migration 6), in the same words."""
    _status, round_no, round_id, seen = _round_now(conn, profile, rfi_id)
    said_no, said_id = (shown.round_no, shown.round_id or None) if shown else (None, None)
    if round_no is not None:
        if said_no is not None and said_no < round_no:
            raise _refused(f"{rfi_id} is in round {round_no} now; the console showed round {said_no}: read it again")
        if said_no is not None and said_no > round_no:
            raise _refused(f"the record has seen round {round_no} of {rfi_id}, not round {said_no} yet: read the "
                           "request again, then take the step")
        if said_id is not None and said_id != round_id:
            raise _refused(f"round {round_no} of {rfi_id} is not the round the record saw (another round ID): read "
                           "it again")
        return round_no, round_id
    if seen:
        return None, None
    named = conn.execute("SELECT round_no, round_id FROM triage WHERE profile = ? AND rfi_id = ? AND round_no IS NOT "
                         "NULL ORDER BY id LIMIT 1", (profile, rfi_id)).fetchone()
    if named is None:
        return (said_no, said_id) if said_no is not None else (None, None)
    if (said_no is not None and said_no != named[0]) or (said_id is not None and said_id != named[1]):
        raise _refused(f"{rfi_id} is in round {named[0]} by the steps taken on it; the console showed round "
                       f"{said_no}: read it again")
    return int(named[0]), None if named[1] is None else str(named[1])


def _refused(why: str) -> Exception:
    from stablepay_console.storage.record import RecordRefused

    return RecordRefused(f"The step was not kept: {why}.", why)


def add_step(conn: sqlite3.Connection, profile: str, rfi_id: str, step: str, actor: str, note: str,
             at: datetime, shown: RoundShown | None = None) -> TriageStep:
    round_no, round_id = step_round(conn, profile, rfi_id, shown)
    conn.execute(
        "INSERT INTO triage (profile, rfi_id, step, actor, at, note, round_no, round_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (profile, rfi_id, step, actor, stamp(at), note, round_no, round_id),
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
    rows = conn.execute("SELECT rfi_id, step, actor, at, note, round_no FROM triage WHERE profile = ? ORDER BY id",
                        (profile,)).fetchall()
    issued: dict[str, list[tuple[datetime, int]]] = {}
    steps = []
    for row in rows:
        rfi_id = str(row[0])
        if row[5] is None and rfi_id not in issued:
            issued[rfi_id] = _issued(conn, profile, rfi_id)
        steps += _owned([row], issued.get(rfi_id, []))
    return steps


def request_steps(conn: sqlite3.Connection, profile: str, rfi_id: str) -> list[TriageStep]:
    return _request_steps(conn, profile, rfi_id)


def every_step(conn: sqlite3.Connection, profile: str) -> dict[str, list[TriageStep]]:
    return by_request(all_steps(conn, profile))


def repair_rounds(conn: sqlite3.Connection) -> None:
    """Version 4: give each step kept with no round the round the record saw current at its own audit entry's time
    (the entry of its step, request, person and profile, written with it), and keep what was done in
    `round_repairs`. The audit log is not touched; the steps' append-only guard is lifted for this alone."""
    rows = conn.execute("SELECT id, profile, rfi_id, step, actor, at FROM triage WHERE round_no IS NULL ORDER BY id"
                        ).fetchall()
    if not rows:
        return
    conn.execute("DROP TRIGGER triage_no_update")
    for step_id, profile, rfi_id, step, actor, at in rows:
        entry = conn.execute(
            "SELECT seq, at FROM audit WHERE profile = ? AND action = ? AND target = ? AND actor = ? AND at >= ? "
            "AND outcome NOT LIKE 'refused%' ORDER BY seq LIMIT 1",
            (profile, f"triage.{step}", rfi_id, actor, at)).fetchone()
        try:
            when = parse_stamp(entry[1] if entry else at)
        except (ValueError, TypeError):
            when = None
        round_no = round_at(_issued(conn, profile, rfi_id), when) if when else None
        round_id = None
        if round_no is not None:
            found = conn.execute("SELECT round_id FROM rounds WHERE profile = ? AND rfi_id = ? AND round_no = ? "
                                 "ORDER BY id LIMIT 1", (profile, rfi_id, round_no)).fetchone()
            round_id = str(found[0]) if found else None
            conn.execute("UPDATE triage SET round_no = ?, round_id = ? WHERE id = ?", (round_no, round_id, step_id))
        conn.execute("INSERT INTO round_repairs (step_id, profile, rfi_id, round_no, audit_seq, repaired_at) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (step_id, profile, rfi_id, round_no, entry[0] if entry else None,
                                                   stamp(datetime.now(timezone.utc))))
    conn.execute("CREATE TRIGGER triage_no_update BEFORE UPDATE ON triage "
                 "BEGIN SELECT RAISE(ABORT, 'triage steps are append-only'); END")


def round_repairs(conn: sqlite3.Connection) -> dict[str, int]:
    """What version 4 did to steps kept with no round: how many it gave a round, how many it could not."""
    row = conn.execute("SELECT count(round_no), count(*) - count(round_no) FROM round_repairs").fetchone()
    return {"given": int(row[0]), "unknown": int(row[1])} if row and (row[0] or row[1]) else {}


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

    def add_triage_step(self, profile: str, rfi_id: str, step: str, actor: str, note: str, at: datetime,
                        shown: RoundShown | None = None) -> TriageStep:
        with self._write() as conn:
            return add_step(conn, profile, rfi_id, step, actor, note, at, shown)

    def round_repairs(self) -> dict[str, int]:
        with self._lock:
            return round_repairs(self._conn)

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


