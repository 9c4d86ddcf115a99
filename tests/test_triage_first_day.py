"""A team's first day, on the real PostgreSQL and in the local record: steps taken before the team watcher's
first sweep keep counting after it.

Alice claims a request and makes it ready, Bob approves, a second request is made ready; only then does the
watcher run its first `rfis watch --once`. The approved request is still approved, its steps carry their round,
the second can still be approved, and a member cannot move a request to another round by typing a number.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import psycopg
import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.audit import verify
from stablepay_console.services.team.scope import server_key
from stablepay_console.services.triage.review import review_queue
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record_worker import flush_all
from tests.postgres import TeamDb

SERVER = server_key(EMBEDDED_PROFILE)


def issued_requests() -> list[tuple[str, int, str]]:
    """(ID, round, round ID) of the built-in sandbox's issued requests in their first round."""
    world = Sandbox(now=datetime.now(timezone.utc))
    return [(r.id, r.round.round, r.round.id) for r in world.data.rfis
            if r.status == "issued" and r.round is not None and r.round.round == 1]


def record_as(db: TeamDb, role: str) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: SERVER)


def history(rfi: str, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main(["rfis", "history", rfi, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def step_of(rfi: str, role: str, db: TeamDb) -> str:
    from stablepay_console.services.triage.state import step_of as where

    record = record_as(db, role)
    try:
        case = record.triage_case("embedded", rfi)
        return where(case.status, case.claim, case.steps)
    finally:
        record.close()


def sweep(db: TeamDb, monkeypatch: pytest.MonkeyPatch) -> None:
    """The team watcher's sweep of the whole account, as its machine runs it."""
    monkeypatch.setenv("STABLEPAY_RECORD_URL", db.url("walt"))
    assert main(["rfis", "watch", "--once"]) == 0
    assert flush_all(10) == 0


@pytest.mark.postgres
def test_steps_taken_before_the_first_sweep_keep_counting_after_it(
    as_role, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]  # type: ignore[no-untyped-def]
) -> None:
    (first, _, _), (second, _, _) = issued_requests()[:2]
    assert main(["rfis", "claim", first]) == 0
    assert main(["rfis", "ready", first, "--note", "statement checked"]) == 0
    assert main(["rfis", "claim", second]) == 0
    assert main(["rfis", "ready", second]) == 0
    as_role("bob")
    assert main(["rfis", "approve", first]) == 0
    assert step_of(first, "bob", team_db) == "approved"
    bob = record_as(team_db, "bob")
    assert [item.rfi_id for item in review_queue(bob, "embedded", "bob")] == [second]
    with team_db.connect() as conn:
        before = conn.execute("SELECT seq, hash FROM stablepay.audit ORDER BY seq").fetchall()

    sweep(team_db, monkeypatch)

    assert step_of(first, "bob", team_db) == "approved", "the watcher's first sight changed nothing a person did"
    assert step_of(second, "bob", team_db) == "ready"
    assert [item.rfi_id for item in review_queue(bob, "embedded", "bob")] == [second], "bob's queue is as it was"
    as_role("bob")
    steps = history(first, capsys)["steps"]
    assert [(s["step"], s["by"], s["round"]) for s in steps] == [("ready", "alice", 1), ("approve", "bob", 1)]
    capsys.readouterr()
    assert main(["rfis", "history", first]) == 0
    said = capsys.readouterr().out
    assert "round 1  approve  bob" in said and "round ?" not in said
    assert main(["rfis", "approve", second]) == 0, capsys.readouterr().err
    assert step_of(second, "alice", team_db) == "approved"
    with team_db.connect() as conn:
        after = conn.execute("SELECT seq, hash FROM stablepay.audit ORDER BY seq").fetchall()
    assert after[:len(before)] == before
    assert verify(bob).ok
    bob.close()


def insert(conn: psycopg.Connection, step: str, rfi: str, round_no: int | None,  # type: ignore[type-arg]
           round_id: str | None = None, note: str = "") -> int | None:
    """A step from an analyst's own psql, naming the round it says it was taken in; the round kept."""
    with conn.transaction():
        row = conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, note, round_no, round_id) "
                           "VALUES (%s, %s, %s, %s, %s, %s) RETURNING round_no",
                           (SERVER, rfi, step, note, round_no, round_id)).fetchone()
    return row[0] if row else None


@pytest.mark.postgres
def test_the_round_a_console_names_is_checked_and_cannot_reopen_an_approved_answer(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    (first, round_no, round_id), (second, _, second_round_id) = issued_requests()[:2]
    alice = record_as(team_db, "alice")
    for rfi in (first, second):
        alice.claim("embedded", rfi, "alice", datetime.now(timezone.utc))
    alice.close()
    with team_db.connect("alice") as alice_sql, team_db.connect("bob") as bob_sql:
        assert insert(alice_sql, "ready", first, round_no, round_id) == 1, "the round the console showed is kept"
        assert insert(bob_sql, "approve", first, None) == 1, "one that names none is in the round the steps named"
        with pytest.raises(psycopg.errors.CheckViolation, match="is in round 1 by the steps taken on it"):
            insert(alice_sql, "wait", first, 2)  # before any sweep, a typed round 2 would hide bob's approval
        with pytest.raises(psycopg.errors.CheckViolation, match="is in round 1 by the steps taken on it"):
            insert(alice_sql, "wait", first, 1, second_round_id)
        assert step_of(first, "alice", team_db) == "approved"
        insert(alice_sql, "ready", second, None)
        sweep(team_db, monkeypatch)
        assert step_of(first, "alice", team_db) == "approved"
        with pytest.raises(psycopg.errors.CheckViolation, match=f"has seen round 1 of {first}, not round 2 yet"):
            insert(alice_sql, "reject", first, 2, note="a new round")
        with pytest.raises(psycopg.errors.CheckViolation, match="another round ID"):
            insert(bob_sql, "approve", second, 1, round_id)
        assert insert(bob_sql, "approve", second, 1, second_round_id) == 1
    assert step_of(first, "alice", team_db) == "approved"
    assert step_of(second, "alice", team_db) == "approved"


# --- a record that already holds steps with no round: schema 6 repairs them ---------------------------------------


def observe_as_watcher(db: TeamDb) -> None:
    """The watcher's first sweep, written straight with its own connection (a console refuses a record at 5)."""
    from stablepay_console.services.history import sighting
    from stablepay_console.storage.postgres import history as seen
    from stablepay_console.storage.record_types import SeenPage

    world = Sandbox(now=datetime.now(timezone.utc))
    page = SeenPage("embedded", EMBEDDED_PROFILE.environment, datetime.now(timezone.utc),
                    tuple(sighting(r) for r in world.data.rfis))
    with db.connect() as conn:  # version 5's watcher took no lock of a later version's (schema 8's row locks)
        conn.execute("CREATE FUNCTION stablepay.hold_sightings(servers text[]) RETURNS void LANGUAGE sql AS ''")
        conn.execute("GRANT EXECUTE ON FUNCTION stablepay.hold_sightings(text[]) TO stablepay_watcher")
    with db.connect("walt") as conn, conn.transaction():
        seen.observe(conn, lambda name: SERVER, [page])
    with db.connect() as conn:
        conn.execute("DROP FUNCTION stablepay.hold_sightings(text[])")


@pytest.mark.postgres
def test_a_version_5_record_with_roundless_steps_is_repaired_and_says_so(
    bare_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stablepay_console.storage.postgres import schema as record_pg_schema
    from stablepay_console.storage.postgres.schema import LATEST, init_schema
    from tests.postgres import OWNER

    (first, _, round_id), (second, _, _) = issued_requests()[:2]
    every = record_pg_schema.migrations()
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every[:5])
    with bare_db.connect(OWNER) as conn:
        init_schema(conn)
    with bare_db.connect("alice") as alice, bare_db.connect("bob") as bob:  # version 5's first day
        for rfi in (first, second):
            alice.execute("INSERT INTO stablepay.claims (server, rfi_id) VALUES (%s, %s)", (SERVER, rfi))
        for conn, step, rfi in ((alice, "ready", first), (bob, "approve", first), (alice, "ready", second)):
            with conn.transaction():
                conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, %s)",
                             (SERVER, rfi, step))
    observe_as_watcher(bare_db)
    with bare_db.connect("bob") as conn:
        at = conn.execute("SELECT stablepay.step_at(%s, %s, 9223372036854775807)", (SERVER, first)).fetchone()
        assert at == ("claimed",), "version 5 lost the approval at the watcher's first sweep"
    with bare_db.connect() as conn:
        before = conn.execute("SELECT seq, hash, detail FROM stablepay.audit ORDER BY seq").fetchall()

    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every)
    with bare_db.connect(OWNER) as conn:
        assert init_schema(conn).before == 5 and LATEST >= 6

    with bare_db.connect() as conn:
        assert conn.execute("SELECT seq, hash, detail FROM stablepay.audit ORDER BY seq").fetchall() == before
        kept = conn.execute("SELECT rfi_id, step, round_no, round_id FROM stablepay.triage ORDER BY id").fetchall()
    assert kept[:2] == [(first, "ready", 1, round_id), (first, "approve", 1, round_id)]
    assert [k[2] for k in kept] == [1, 1, 1]
    assert step_of(first, "bob", bare_db) == "approved"
    assert step_of(second, "bob", bare_db) == "ready"
    monkeypatch.setenv("STABLEPAY_RECORD_URL", bare_db.url("bob"))
    capsys.readouterr()
    assert main(["record", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["roundRepairs"] == {"given": 3, "unknown": 0}
    assert main(["record", "status"]) == 0
    assert "3 steps kept with no round given the round of their audit entry's time" in capsys.readouterr().out
    assert main(["audit", "verify"]) == 0
    assert main(["rfis", "approve", second]) == 0
    assert step_of(second, "alice", bare_db) == "approved"


# --- the same in the local record: the console's first sight of a request --------------------------------------


def first_sight(record: object) -> None:
    """What the record keeps when a console first lists the account (the local record's sweep)."""
    from stablepay_console.services.history import sighting
    from stablepay_console.storage.record_types import SeenPage

    world = Sandbox(now=datetime.now(timezone.utc))
    record.observe([SeenPage("embedded", EMBEDDED_PROFILE.environment, datetime.now(timezone.utc),  # type: ignore[attr-defined]
                             tuple(sighting(r) for r in world.data.rfis))])


def where(record: object, rfi: str) -> str:
    from stablepay_console.services.triage.state import step_of as at

    case = record.triage_case("embedded", rfi)  # type: ignore[attr-defined]
    return at(case.status, case.claim, case.steps)


def test_the_local_record_keeps_steps_taken_before_it_first_saw_the_request(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.services.triage.state import refusal
    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record import RecordRefused
    from stablepay_console.storage.record_triage_types import RoundShown

    (first, round_no, round_id), (second, _, second_round_id) = issued_requests()[:2]
    record = open_record(tmp_path / "record.sqlite3")
    now = datetime.now(timezone.utc)
    for rfi in (first, second):
        record.claim("embedded", rfi, "alice", now)
    record.add_triage_step("embedded", first, "ready", "alice", "", now)  # the shell: no round shown
    record.add_triage_step("embedded", first, "approve", "bob", "", now, RoundShown(round_no, round_id))
    record.add_triage_step("embedded", second, "ready", "alice", "", now)
    with pytest.raises(RecordRefused, match="is in round 1 by the steps taken on it"):
        record.add_triage_step("embedded", first, "wait", "alice", "", now, RoundShown(2, "another"))
    assert where(record, first) == "approved"

    first_sight(record)

    assert where(record, first) == "approved"
    assert [(s.step, s.round_no) for s in record.request_steps("embedded", first)] == [("ready", 1), ("approve", 1)]
    case = record.triage_case("embedded", second)
    assert where(record, second) == "ready" and refusal("approve", case, "bob", "") is None
    with pytest.raises(RecordRefused, match="another round ID"):
        record.add_triage_step("embedded", second, "approve", "bob", "", now, RoundShown(1, round_id))
    record.add_triage_step("embedded", second, "approve", "bob", "", now, RoundShown(1, second_round_id))
    assert where(record, second) == "approved"
    record.close()


def test_a_local_record_at_version_3_is_repaired_and_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from stablepay_console.storage.local import open_record, record_file
    from stablepay_console.storage.local import schema as local_schema
    from stablepay_console.storage.local import store as local_store
    from stablepay_console.storage.record_types import AuditDraft, stamp

    (first, _, round_id), _ = issued_requests()[:2]
    every = list(local_schema.MIGRATIONS)
    with monkeypatch.context() as v3:  # a file a console of version 3 kept: its steps have no round
        v3.setattr(local_schema, "MIGRATIONS", every[:3])
        v3.setattr(local_schema, "LATEST", 3)
        v3.setattr(local_store, "LATEST", 3)
        record = open_record(record_file())
        now = datetime.now(timezone.utc)
        record.claim("embedded", first, "alice", now)
        with sqlite3.connect(record_file()) as conn:
            conn.execute("INSERT INTO triage (profile, rfi_id, step, actor, at, note) VALUES "
                         "('embedded', ?, 'ready', 'alice', ?, '')", (first, stamp(now)))
        record.append_audit(AuditDraft(now, "alice", "embedded", "sandbox", "triage.ready", first, "ready", {}))
        first_sight(record)
        with sqlite3.connect(record_file()) as conn:
            assert conn.execute("SELECT round_no FROM triage").fetchall() == [(None,)]
        before = [(e.seq, e.hash) for e in record.audit()]
        record.close()

    record = open_record(record_file())  # version 4
    assert where(record, first) == "ready"
    assert [(e.seq, e.hash) for e in record.audit()] == before
    record.close()
    with sqlite3.connect(record_file()) as conn:
        assert conn.execute("SELECT round_no, round_id FROM triage").fetchall() == [(1, round_id)]
    assert main(["record", "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["roundRepairs"] == {"given": 1, "unknown": 0}
    assert main(["record", "status"]) == 0
    assert "1 step kept with no round given the round of their audit entry's time" in capsys.readouterr().out
    assert main(["audit", "verify"]) == 0


@pytest.mark.postgres
def test_a_step_naming_an_older_round_than_the_watcher_saw_is_refused_not_moved_to_the_new_round(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A console that showed round 1 of a request asked again since must not have its step count in round 2."""
    world = Sandbox(now=datetime.now(timezone.utc))
    rfi, now_in = next((r.id, r.round.round) for r in world.data.rfis
                       if r.status == "issued" and r.round is not None and r.round.round > 1)
    sweep(team_db, monkeypatch)
    alice = record_as(team_db, "alice")
    alice.claim("embedded", rfi, "alice", datetime.now(timezone.utc))
    alice.close()
    with team_db.connect("alice") as alice_sql:
        with pytest.raises(psycopg.errors.CheckViolation,
                           match=f"is in round {now_in} now; the console showed round {now_in - 1}: read it again"):
            insert(alice_sql, "ready", rfi, now_in - 1)
        kept = alice_sql.execute("SELECT count(*) FROM stablepay.triage WHERE rfi_id = %s", (rfi,)).fetchone()
        assert kept == (0,)
        assert insert(alice_sql, "ready", rfi, now_in) == now_in
