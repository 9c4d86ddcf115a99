"""Triage on the team's real PostgreSQL, as two analysts (alice, bob) and a lead (carol).

The database enforces the four-eyes rule and the order of steps, from the CLI and from an analyst's
own `psql`; it sets who and when; only a lead (or the owner) changes the policy; a step and its audit
entry are one transaction; the report counts what the roles did.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.services.audit import verify
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from tests.postgres import OWNER, TeamDb

pytestmark = pytest.mark.postgres

RFI = "33333333-3333-4333-8333-333333333333"
OTHER = "44444444-4444-4444-8444-444444444444"
URL = "STABLEPAY_RECORD_URL"
SERVER = server_key(EMBEDDED_PROFILE)


def cli(*argv: str) -> int:
    return main(list(argv))


def triage_rows(db: TeamDb) -> list[tuple[str, str]]:
    with db.connect() as conn:
        return [(str(s), str(a)) for s, a in conn.execute("SELECT step, actor FROM stablepay.triage ORDER BY id")]


def audit_of(db: TeamDb) -> list[tuple[str, str, str]]:
    record = PgRecord(parse(db.url("bob")), lambda name: SERVER if name else "")
    try:
        assert verify(record).ok
        return [(e.action, e.actor, e.outcome) for e in record.audit() if e.action.startswith("triage.")]
    finally:
        record.close()


def insert(conn: psycopg.Connection, step: str, note: str = "", rfi: str = RFI) -> None:  # type: ignore[type-arg]
    """A step from psql: the step alone (the database writes its audit entry with it)."""
    with conn.transaction():
        conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, note) VALUES (%s, %s, %s, %s)",
                     (SERVER, rfi, step, note))


# --- four eyes and the order of steps, from the CLI -------------------------------------------------------------


def test_four_eyes_from_the_cli(as_role, team_db: TeamDb, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert cli("rfis", "approve", RFI) == 1  # nothing is ready
    assert "needs it ready" in capsys.readouterr().err
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "ready", RFI, "--note", "statement and ID checked") == 0
    capsys.readouterr()
    assert cli("rfis", "approve", RFI) == 1
    assert "four eyes: alice made the answer ready" in capsys.readouterr().err
    as_role("bob")
    assert cli("rfis", "approve", RFI, "--json") == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["step"], said["by"]) == ("approved", "bob")
    assert abs(datetime.fromisoformat(said["at"]) - datetime.now(timezone.utc)) < timedelta(minutes=1)
    assert triage_rows(team_db) == [("ready", "alice"), ("approve", "bob")]
    assert audit_of(team_db) == [
        ("triage.approve", "alice", f"refused: {RFI} is unclaimed; 'approve' needs it ready"),
        ("triage.ready", "alice", "ready"),
        ("triage.approve", "alice", "refused: four eyes: alice made the answer ready and cannot approve it"),
        ("triage.approve", "bob", "approved"),
    ]


def test_waiting_pauses_and_a_reject_needs_a_ready_answer(as_role, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "wait", RFI, "--note", "bank statement asked") == 0
    as_role("bob")
    assert cli("rfis", "reject", RFI, "--note", "no") == 1
    assert "waiting" in capsys.readouterr().err
    assert cli("rfis", "resume", RFI) == 0
    as_role("alice")
    assert cli("rfis", "ready", RFI) == 0


# --- the same rules from an analyst's own psql ------------------------------------------------------------------


def test_an_analysts_own_psql_cannot_approve_their_own_answer(team_db: TeamDb) -> None:
    alice = PgRecord(parse(team_db.url("alice")), lambda name: SERVER if name else "")
    alice.claim("embedded", RFI, "alice", datetime.now(timezone.utc))
    alice.claim("embedded", OTHER, "alice", datetime.now(timezone.utc))
    alice.close()
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="needs it ready"):
            insert(conn, "approve")
        insert(conn, "ready")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="four eyes"):
            insert(conn, "approve")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # who and when are the database's
            conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, actor) VALUES (%s, %s, 'approve', 'bob')",
                         (SERVER, RFI))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, at) VALUES (%s, %s, 'reject', "
                         "now() - interval '3 days')", (SERVER, RFI))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE stablepay.triage SET actor = 'bob'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM stablepay.triage")
    with team_db.connect("bob") as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="note"):
            insert(conn, "reject")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only the claimant"):
            conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'ready')",
                         (SERVER, "44444444-4444-4444-8444-444444444444"))
        insert(conn, "approve")
    with team_db.connect(OWNER) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
            conn.execute("DELETE FROM stablepay.triage")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only: TRUNCATE is refused"):
            conn.execute("TRUNCATE stablepay.triage")  # a row trigger never sees a TRUNCATE: a statement one does
    assert triage_rows(team_db) == [("ready", "alice"), ("approve", "bob")]


def test_steps_out_of_order_are_refused_from_psql(team_db: TeamDb) -> None:
    with team_db.connect("bob") as conn:  # nobody claimed it: only a claim may come first
        with pytest.raises(psycopg.errors.CheckViolation, match="is unclaimed; 'reject' needs it ready or approved"):
            insert(conn, "reject", "no reason to be here")
        with pytest.raises(psycopg.errors.CheckViolation, match="is unclaimed; 'wait' needs it claimed or ready"):
            insert(conn, "wait")
        with pytest.raises(psycopg.errors.CheckViolation, match="is unclaimed; 'resume' needs it waiting"):
            insert(conn, "resume")
    alice = PgRecord(parse(team_db.url("alice")), lambda name: SERVER if name else "")
    alice.claim("embedded", RFI, "alice", datetime.now(timezone.utc))
    alice.close()
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="is claimed; 'resume' needs it waiting"):
            insert(conn, "resume")
        insert(conn, "wait")
        with pytest.raises(psycopg.errors.CheckViolation, match="is waiting; 'ready' needs it claimed"):
            insert(conn, "ready")
        with pytest.raises(psycopg.errors.CheckViolation, match="is waiting; 'wait' needs it claimed or ready"):
            insert(conn, "wait")
        insert(conn, "resume")
    assert triage_rows(team_db) == [("wait", "alice"), ("resume", "alice")]


def test_no_step_on_a_request_the_provider_closed(team_db: TeamDb) -> None:
    with team_db.connect() as conn:
        conn.execute("INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, first_seen, "
                     "last_seen) VALUES (%s, %s, 'sandbox', 'expired', 'f', '{}', 'x', 'x')", (SERVER, RFI))
    with team_db.connect("alice") as conn, pytest.raises(psycopg.errors.CheckViolation, match="closed"):
        insert(conn, "wait")


def test_triage_step_without_its_audit_entry_is_refused(team_db: TeamDb) -> None:
    """The database writes each step's one entry with it; a typed one is refused; and were the entry not written
    (its trigger off, as only the owner could do), the step itself is refused when the transaction commits."""
    alice = PgRecord(parse(team_db.url("alice")), lambda name: SERVER if name else "")
    alice.claim("embedded", RFI, "alice", datetime.now(timezone.utc))
    alice.close()
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="written by the database with the act"):
            conn.execute("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                         "VALUES ('embedded', 'sandbox', 'triage.ready', %s, 'ready', '{}', %s)", (RFI, SERVER))
    with team_db.connect() as conn:
        conn.execute("ALTER TABLE stablepay.triage DISABLE TRIGGER triage_2_act")
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match=r"ready on .* has 0"):
            with conn.transaction():  # the step alone, its entry not written: refused when it commits
                conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'ready')",
                             (SERVER, RFI))
        assert triage_rows(team_db) == []
    with team_db.connect() as conn:
        conn.execute("ALTER TABLE stablepay.triage ENABLE TRIGGER triage_2_act")
    with team_db.connect("alice") as conn:
        insert(conn, "ready")  # with its own entry, written with it, it is kept
    assert triage_rows(team_db) == [("ready", "alice")]
    assert [(a, who, out) for a, who, out in audit_of(team_db)] == [("triage.ready", "alice", "ready")]


# --- the policy: a lead's, never an analyst's -------------------------------------------------------------------


def test_a_lead_changes_the_policy_and_an_analyst_is_refused(as_role, team_db: TeamDb,  # type: ignore[no-untyped-def]
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    as_role("carol")
    assert cli("record", "policy", "--claim-within", "2h", "--json") == 0
    changed = json.loads(capsys.readouterr().out)
    assert (changed["claimWithin"], changed["readyWithin"], changed["changedBy"]) == ("2h", "24h", "carol")
    as_role("bob")
    assert cli("record", "policy", "--ready-within", "48h") == 1
    assert "refused to change the service levels" in capsys.readouterr().err
    with team_db.connect("bob") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE stablepay.triage_policy SET ready_within = '48 hours'")
    with team_db.connect("carol") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("UPDATE stablepay.triage_policy SET changed_by = 'alice'")
    with team_db.connect(OWNER) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege, match="DELETE is refused"):
        conn.execute("DELETE FROM stablepay.triage_policy")  # the one policy row stays, even for the owner
    assert cli("record", "policy", "--json") == 0
    assert json.loads(capsys.readouterr().out)["readyWithin"] == "24h"
    assert [(a, who) for a, who, _ in audit_of(team_db)] == [("triage.policy", "carol")]


# --- one transaction, and the report ----------------------------------------------------------------------------


def test_a_step_refused_by_the_database_is_kept_as_a_refusal_in_its_words(  # type: ignore[no-untyped-def]
        team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str]) -> None:
    """The team record's rules are the database's: the console says what it said, word for word, and keeps the
    attempt as a refusal (an entry that counts as nothing), never as a step."""
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "ready", RFI) == 0
    capsys.readouterr()
    assert cli("rfis", "approve", RFI) == 1
    assert capsys.readouterr().err.strip().endswith(
        "approve refused: four eyes: alice made the answer ready and cannot approve it.")
    assert audit_of(team_db) == [("triage.ready", "alice", "ready"), (
        "triage.approve", "alice", "refused: four eyes: alice made the answer ready and cannot approve it")]
    assert triage_rows(team_db) == [("ready", "alice")]


def test_the_report_counts_what_each_role_did(team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    issued = (datetime.now(timezone.utc) - timedelta(hours=6)).isoformat(timespec="milliseconds")
    expires = (datetime.now(timezone.utc) + timedelta(days=2)).isoformat(timespec="milliseconds")
    with team_db.connect() as conn:
        conn.execute("INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, "
                     "expires_at, wire, first_seen, last_seen) VALUES (%s, %s, 1, 'r1', 'f', %s, %s, '{}', %s, %s)",
                     (SERVER, RFI, issued, expires, issued, issued))
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "ready", RFI) == 0
    as_role("bob")
    assert cli("rfis", "approve", RFI) == 0
    capsys.readouterr()
    assert cli("rfis", "report", "--since", "7d", "--json") == 0
    made = json.loads(capsys.readouterr().out)
    assert made["totals"] | {} == {"issued": 1, "claimed": 1, "approved": 1, "submittedInTime": 0, "expired": 0}
    rows = {row["analyst"]: row for row in made["analysts"]}
    assert rows.pop("alice") == {"analyst": "alice", "claimed": 1, "madeReady": 1, "approved": 0, "openNow": 1}
    assert rows.pop("bob") == {"analyst": "bob", "claimed": 0, "madeReady": 0, "approved": 1, "openNow": 0}
    assert "carol" in rows, "every analyst of the team is listed, those with nothing done too"
    assert all(row | {"analyst": ""} == {"analyst": "", "claimed": 0, "madeReady": 0, "approved": 0, "openNow": 0}
               for row in rows.values())  # (other tests' logins of the same server may be analysts too)
    assert made["breaches"] == {"claim": 1, "ready": 0, "approve": 0}  # claimed 6 h after issue: over 4 h


def test_history_shows_the_steps_with_who_when_and_note(as_role, team_db: TeamDb,  # type: ignore[no-untyped-def]
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from stablepay_console.storage.record_types import RfiSighting, RoundSighting, SeenPage
    from tests.conftest import FIXED_NOW

    walt = PgRecord(parse(team_db.url("walt")), lambda name: SERVER if name else "")
    sighting = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":null,'
                                '"submittedAt":null,"link":null}', "rf1")
    walt.observe([SeenPage(EMBEDDED_PROFILE.name, "sandbox", FIXED_NOW,
                           (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', sighting),))])
    walt.close()
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "ready", RFI, "--note", "statement and ID checked") == 0
    as_role("bob")
    assert cli("rfis", "approve", RFI) == 0
    capsys.readouterr()
    assert cli("rfis", "history", RFI, "--json") == 0
    steps = json.loads(capsys.readouterr().out)["steps"]
    assert [(s["step"], s["by"], s["round"], s["note"]) for s in steps] == [
        ("ready", "alice", 1, "statement and ID checked"), ("approve", "bob", 1, None)]
    assert cli("rfis", "history", RFI) == 0
    text = capsys.readouterr().out
    assert "Triage steps (2):" in text and "ready    alice: statement and ID checked" in text
