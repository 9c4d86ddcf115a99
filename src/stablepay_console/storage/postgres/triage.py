"""Triage in the team record: steps, the policy and the report's facts, in PostgreSQL (migration `NNNN_triage.sql`).

The database decides: a step's actor is the role and its time the database's clock (analysts may
insert only its content columns), its order and the four-eyes rule are checked by the trigger
`triage_1_check`, and only a lead (or the owner) may change the policy (column privileges). The
checks the services make first only put the same rules into words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.postgres.people import every_analyst
from stablepay_console.storage.postgres.sweeps import last as last_sweep
from stablepay_console.storage.record_triage_types import (
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
from stablepay_console.storage.record_types import Claim, parse_stamp

if TYPE_CHECKING:
    import psycopg

STEP_COLUMNS = (
    "t.rfi_id, t.step, t.actor, t.at, t.note, coalesce(t.round_no, stablepay.round_at(t.server, t.rfi_id, t.at))"
)
"""A step's round: as kept, or (kept with none, before the watcher saw the request) the round the watcher saw
issued at or before it (`stablepay.round_at`, migration 6)."""
CURRENT_ROUND = (
    "FROM stablepay.triage t WHERE t.server = %s AND t.rfi_id = ANY(%s) "
    "AND stablepay.counts_now(t.server, t.rfi_id, t.round_no, t.at) ORDER BY t.id"
)
"""The steps that count now: all of them until the watcher has seen the request, then those of its round."""


def _steps(rows: Sequence[Sequence[Any]]) -> list[TriageStep]:
    return [TriageStep(str(r[0]), str(r[1]), str(r[2]), r[3], str(r[4]), r[5]) for r in rows]


def steps_of(conn: psycopg.Connection, server: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
    rows = conn.execute(f"SELECT {STEP_COLUMNS} {CURRENT_ROUND}", (server, list(rfi_ids))).fetchall()
    return by_request(_steps(rows))


def all_steps(conn: psycopg.Connection, server: str) -> list[TriageStep]:
    """Every step taken on the server's requests, each with its round, oldest first."""
    return _steps(conn.execute(
        f"SELECT {STEP_COLUMNS} FROM stablepay.triage t WHERE t.server = %s ORDER BY t.id", (server,)
    ).fetchall())


def request_steps(conn: psycopg.Connection, server: str, rfi_id: str) -> list[TriageStep]:
    return _steps(conn.execute(
        f"SELECT {STEP_COLUMNS} FROM stablepay.triage t WHERE t.server = %s AND t.rfi_id = %s ORDER BY t.id",
        (server, rfi_id),
    ).fetchall())


def every_step(conn: psycopg.Connection, server: str) -> dict[str, list[TriageStep]]:
    return by_request(all_steps(conn, server))


def case(conn: psycopg.Connection, server: str, profile: str, rfi_id: str) -> TriageCase:
    seen = conn.execute(
        "SELECT r.status, ro.round_no FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row "
        "WHERE r.server = %s AND r.rfi_id = %s",
        (server, rfi_id),
    ).fetchone()
    held = conn.execute(
        "SELECT claimant, at, until, assigned_by FROM stablepay.claims WHERE server = %s AND rfi_id = %s "
        "AND (until IS NULL OR until > now())",
        (server, rfi_id),
    ).fetchone()
    claim = Claim(profile, rfi_id, str(held[0]), held[1], held[2], str(held[3]) if held[3] else None) if held else None
    status, round_no = (str(seen[0]), seen[1]) if seen else (None, None)
    return TriageCase(rfi_id, status, round_no, claim, tuple(steps_of(conn, server, [rfi_id]).get(rfi_id, [])))


def add_step(conn: psycopg.Connection, server: str, profile: str, rfi_id: str, step: str, note: str,
             shown: RoundShown | None = None) -> TriageStep:
    """The content, and the round the console showed: the database sets actor and time, checks the round against
    the watcher's sighting (migration 6) and refuses a step out of order."""
    row = conn.execute(
        "INSERT INTO stablepay.triage (server, rfi_id, profile, step, note, round_no, round_id) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s) RETURNING rfi_id, step, actor, at, note, round_no",
        (server, rfi_id, profile, step, note, *((shown.round_no, shown.round_id or None) if shown else (None, None))),
    ).fetchone()
    assert row is not None
    return _steps([row])[0]


def round_repairs(conn: psycopg.Connection) -> dict[str, int]:
    """What schema 6 did to the steps kept with no round: how many it gave a round (from the time of each one's
    audit entry), how many it could not (no round the watcher saw was issued before them)."""
    row = conn.execute("SELECT count(round_no), count(*) - count(round_no) FROM stablepay.round_repairs").fetchone()
    return {"given": int(row[0]), "unknown": int(row[1])} if row and (row[0] or row[1]) else {}


def policy(conn: psycopg.Connection) -> TriagePolicy:
    row = conn.execute(
        "SELECT claim_within, ready_within, approve_before, changed_by, changed_at FROM stablepay.triage_policy "
        "WHERE single"
    ).fetchone()
    return TriagePolicy(row[0], row[1], row[2], str(row[3]), row[4]) if row else TriagePolicy()


def set_policy(conn: psycopg.Connection, chosen: TriagePolicy) -> TriagePolicy:
    """A lead's (or the owner's) right: the database refuses an analyst, and says who changed it and when."""
    conn.execute(
        "UPDATE stablepay.triage_policy SET claim_within = %s, ready_within = %s, approve_before = %s WHERE single",
        (chosen.claim_within, chosen.ready_within, chosen.approve_before),
    )
    return policy(conn)


def facts(conn: psycopg.Connection, server: str, profile: str) -> TriageFacts:
    """What the report counts, each from where the database recorded it: the watcher's own rounds and statuses
    (an imported one counts for nothing until the watcher sees it), claims as they were taken, steps as kept."""
    rounds: dict[tuple[str, int], RoundFact] = {}
    for rfi_id, round_no, issued, expires, submitted in conn.execute(
        "SELECT rfi_id, round_no, issued_at, expires_at, submitted_at FROM stablepay.rounds WHERE server = %s "
        "AND imported_by IS NULL ORDER BY first_seen, id",
        (server,),
    ).fetchall():
        key = (str(rfi_id), int(round_no))
        before = rounds.get(key)
        answered = parse_stamp(submitted) if submitted else (before.submitted_at if before else None)
        rounds[key] = RoundFact(key[0], key[1], parse_stamp(issued), parse_stamp(expires) if expires else None,
                                answered)
    statuses = [StatusFact(str(r), str(s), parse_stamp(f)) for r, s, f in conn.execute(
        "SELECT rfi_id, status, first_seen FROM stablepay.statuses WHERE server = %s AND imported_by IS NULL "
        "ORDER BY first_seen, id",
        (server,)).fetchall()]
    taken = [ClaimFact(str(t), str(a), at, str(by) if op == "assign" else "") for t, a, at, op, by in conn.execute(
        "SELECT rfi_id, claimant, at, op, by_role FROM stablepay.claim_log WHERE server = %s "
        "AND op IN ('claim', 'take over', 'assign') ORDER BY id", (server,)).fetchall()]
    steps = all_steps(conn, server)
    held = {str(r): Claim(profile, str(r), str(c), a, u, str(b) if b else None) for r, c, a, u, b in conn.execute(
        "SELECT rfi_id, claimant, at, until, assigned_by FROM stablepay.claims "
        "WHERE server = %s AND (until IS NULL OR until > now())",
        (server,)).fetchall()}
    row = conn.execute("SELECT clock_timestamp()").fetchone()
    swept = last_sweep(conn, server)
    return TriageFacts(list(rounds.values()), statuses, taken, steps, held, policy(conn), row[0] if row else None,
                       every_analyst(conn), True, swept.swept_at if swept else None)


class PgTriage:
    """Mixed into `PgRecord`: the triage methods, each a thin call of the functions above."""

    scope_of: Callable[[str], str]

    def _tx(self, doing: str) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def triage_case(self, profile: str, rfi_id: str) -> TriageCase:
        with self._tx("read the request's triage") as conn:
            return case(conn, self.scope_of(profile), profile, rfi_id)

    def add_triage_step(self, profile: str, rfi_id: str, step: str, actor: str, note: str, at: datetime,
                        shown: RoundShown | None = None) -> TriageStep:
        """`actor` and `at` are not used: the database sets them."""
        with self._tx(f"keep the step '{step}'") as conn:
            return add_step(conn, self.scope_of(profile), profile, rfi_id, step, note, shown)

    def triage_steps(self, profile: str, rfi_ids: Sequence[str]) -> dict[str, list[TriageStep]]:
        with self._tx("read the triage steps") as conn:
            return steps_of(conn, self.scope_of(profile), rfi_ids)

    def request_steps(self, profile: str, rfi_id: str) -> list[TriageStep]:
        with self._tx("read the request's steps") as conn:
            return request_steps(conn, self.scope_of(profile), rfi_id)

    def every_triage_step(self, profile: str) -> dict[str, list[TriageStep]]:
        with self._tx("read the triage steps") as conn:
            return every_step(conn, self.scope_of(profile))

    def triage_policy(self) -> TriagePolicy:
        with self._tx("read the service levels") as conn:
            return policy(conn)

    def round_repairs(self) -> dict[str, int]:
        with self._tx("read the steps given their round") as conn:
            return round_repairs(conn)

    def set_triage_policy(self, policy: TriagePolicy, actor: str, at: datetime) -> TriagePolicy:
        with self._tx("change the service levels") as conn:
            return set_policy(conn, policy)

    def triage_facts(self, profile: str, now: datetime) -> TriageFacts:
        with self._tx("read the report's facts") as conn:
            return facts(conn, self.scope_of(profile), profile)
