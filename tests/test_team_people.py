"""Every act in the team record is a person's, attacked as a member would: `psql` as alice, bob, carol and walt.

- `SET ROLE` to each team group, and to a role that cannot log in, before every kind of act: refused, by name;
  a member acting as another member (a login granted to a login): refused;
- `STABLEPAY_RECORD_ROLE` naming a group: refused by the console before it connects;
- audit entries of claims and steps typed by hand: refused; each step has exactly the entry the database wrote
  with it; the report counts claims as the database logged them, never typed rows;
- an import of rounds and statuses for a request the watcher has seen writes nothing; for another request, what
  it brings stays labelled and counts in no total, even once the watcher has seen the request;
- a 1 MB note is refused by the database, and by the console before it sends anything;
- a flood of forged change announcements costs a console at most one re-read per window.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import psycopg
import pytest
from psycopg.types.json import Jsonb

from stablepay_console.cli.main import main
from stablepay_console.services.audit import verify
from stablepay_console.storage.postgres.listen import Change, TeamListener
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record_types import AuditDraft, RfiSighting, RoundSighting, SeenPage
from tests.conftest import FIXED_NOW
from tests.postgres import PgServer, TeamDb, wait_for

pytestmark = pytest.mark.postgres

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
OTHER = "7a2c0f55-3b1e-4d7c-9a0e-5f6b7c8d9e0f"
SERVER = "production https://api.stablepay.example"


def record(db: TeamDb, role: str) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: SERVER if name else "")


@pytest.fixture
def people(pg_server: PgServer) -> Iterator[None]:
    """erin and frank, two more analysts; `desk`, a role that cannot log in but holds the analysts' rights, granted
    to erin; and frank granted to erin (a DBA's slip: one person may SET ROLE to another). Dropped afterwards:
    roles are the cluster's, and the next test of this process counts the team's analysts."""
    with pg_server.connect() as conn:
        conn.execute("""
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'erin') THEN
                    CREATE ROLE erin LOGIN; CREATE ROLE frank LOGIN; CREATE ROLE desk NOLOGIN;
                    GRANT stablepay_analyst TO erin, frank, desk;
                    GRANT desk TO erin; GRANT frank TO erin;
                END IF;
            END $$""")
    yield
    with pg_server.connect() as conn:
        conn.execute("DROP ROLE IF EXISTS erin, frank, desk")


def watch(db: TeamDb, rfi: str = RFI, status: str = "issued") -> PgRecord:
    """walt, the team watcher, saw the request (issued, round 1)."""
    walt = record(db, "walt")
    round_ = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":'
                              '"2026-11-27T09:00:00Z","submittedAt":null,"link":"https://x.example/l"}', f"rf-{rfi}")
    walt.observe([SeenPage("prod", "production", FIXED_NOW,
                           (RfiSighting(rfi, status, f"f-{rfi}-{status}", json.dumps({"id": rfi}), round_),))])
    return walt


# --- a person, always -------------------------------------------------------------------------------------------

ACTS = {
    "note": "INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%(server)s, %(rfi)s, 'anonymous')",
    "claim": "INSERT INTO stablepay.claims (server, rfi_id) VALUES (%(server)s, %(other)s)",
    "release": "DELETE FROM stablepay.claims WHERE server = %(server)s AND rfi_id = %(rfi)s",
    "step": "INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%(server)s, %(rfi)s, 'ready')",
    "audit": "INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
             "VALUES ('prod', 'production', 'ping', %(rfi)s, 'ok', '{}', %(server)s)",
    "policy": "UPDATE stablepay.triage_policy SET claim_within = interval '1 hour'",
    "import": "SELECT stablepay.import_local('laptop', '{}'::jsonb)",
    "fact": "INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen) "
            "VALUES (%(server)s, %(rfi)s, 'resolved', 'x', 'x')",
    "sweep": "INSERT INTO stablepay.sweeps (server, interval_s, radar) VALUES ('s2', 60, '{}')",
}
"""Every kind of act a member may make, each as that member's own psql would."""

ANONYMOUS = [
    # (the login, the role it sets, why refused, the acts that role has the rights for)
    ("alice", "stablepay_analyst", "is a group role", ("note", "claim", "step", "audit", "import")),
    ("carol", "stablepay_lead", "is a group role", ("note", "claim", "release", "step", "audit", "policy", "import")),
    ("carol", "stablepay_analyst", "is a group role", ("note", "claim", "step", "audit", "import")),
    ("walt", "stablepay_watcher", "is a group role", ("audit", "fact", "sweep")),
    ("erin", "desk", "cannot log in", ("note", "claim", "step", "audit", "import")),
    ("erin", "frank", "erin logged in and acts as frank", ("note", "claim", "step", "audit", "import")),
]


@pytest.mark.parametrize(("login", "as_role", "why", "acts"), ANONYMOUS,
                         ids=[f"{login}-as-{role}" for login, role, _, _ in ANONYMOUS])
def test_an_act_under_set_role_to_a_group_or_a_nologin_role_is_refused(
    team_db: TeamDb, people: None, login: str, as_role: str, why: str, acts: tuple[str, ...]
) -> None:
    watch(team_db)
    alice = record(team_db, "alice")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    params = {"server": SERVER, "rfi": RFI, "other": OTHER}
    with team_db.connect(login) as conn:
        conn.execute(f'SET ROLE "{as_role}"')
        for act in acts:
            with conn.transaction(force_rollback=True), pytest.raises(
                    psycopg.errors.InsufficientPrivilege, match=why):
                conn.execute(ACTS[act], params)
    with team_db.connect() as conn:  # nothing of it was kept: the claim is alice's, no note, one step-free request
        assert conn.execute("SELECT claimant FROM stablepay.claims").fetchall() == [("alice",)]
        assert conn.execute("SELECT count(*) FROM stablepay.notes").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM stablepay.triage").fetchone() == (0,)
        actors = {a for (a,) in conn.execute("SELECT actor FROM stablepay.audit")}
        assert actors == {"alice"}, actors
    assert verify(alice).ok


def test_each_login_still_acts_under_its_own_name(team_db: TeamDb, people: None) -> None:
    """The same acts, without SET ROLE: kept, and stamped with the login (a lead's policy change included)."""
    watch(team_db)
    params = {"server": SERVER, "rfi": RFI, "other": OTHER}
    with team_db.connect("erin") as conn:
        for act in ("note", "claim", "audit"):
            conn.execute(ACTS[act], params)
    with team_db.connect("carol") as conn:
        conn.execute(ACTS["policy"])
    with team_db.connect() as conn:
        assert conn.execute("SELECT author FROM stablepay.notes").fetchall() == [("erin",)]
        assert conn.execute("SELECT changed_by FROM stablepay.triage_policy").fetchall() == [("carol",)]
        assert {a for (a,) in conn.execute("SELECT actor FROM stablepay.audit")} == {"erin", "carol"}


def test_four_eyes_cannot_be_skipped_by_approving_as_the_group(team_db: TeamDb) -> None:
    """alice makes her answer ready, then tries to approve it as stablepay_analyst (and as stablepay_lead's carol
    would): refused; bob, a person, approves it."""
    watch(team_db)
    alice = record(team_db, "alice")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    alice.add_triage_step("prod", RFI, "ready", "", "checked", FIXED_NOW)
    with team_db.connect("alice") as conn:
        conn.execute("SET ROLE stablepay_analyst")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="stablepay_analyst is a group role"):
            conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'approve')",
                         (SERVER, RFI))
    with team_db.connect("bob") as conn:
        conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'approve')", (SERVER, RFI))
    with team_db.connect() as conn:
        assert conn.execute("SELECT step, actor FROM stablepay.triage ORDER BY id").fetchall() == [
            ("ready", "alice"), ("approve", "bob")]


def test_the_console_refuses_a_group_role_before_it_connects(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a port nobody listens on: a connection attempt would say "cannot be reached" instead
    monkeypatch.setenv("STABLEPAY_RECORD_URL", "postgresql://alice@127.0.0.1:9/team")
    monkeypatch.setenv("STABLEPAY_RECORD_ROLE", "stablepay_analyst")
    assert main(["rfis", "approve", RFI]) != 0
    err = capsys.readouterr().err
    assert "stablepay_analyst is a group role" in err and "cannot be reached" not in err, err
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    monkeypatch.setenv("STABLEPAY_RECORD_ROLE", "stablepay_lead")
    assert main(["rfis", "claim", RFI]) != 0
    assert "stablepay_lead is a group role" in capsys.readouterr().err
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.claims").fetchone() == (0,)


def test_the_databases_own_writer_of_act_entries_is_no_members_to_call(team_db: TeamDb) -> None:
    """stablepay.act_entry writes, as the owner, the audit entry of a claim or a step with the act: a member who
    could call it would write a claim's entry with no claim, under any name the function is given."""
    for role in ("alice", "carol", "walt"):
        with team_db.connect(role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege,
                                                          match="permission denied for function act_entry"):
            conn.execute("SELECT stablepay.act_entry(%s, 'prod', 'claim', %s, 'claimed', '{}'::jsonb)",
                         (SERVER, RFI))
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.audit").fetchone() == (0,)


def test_a_watcher_a_dba_let_call_the_import_still_cannot_import(team_db: TeamDb) -> None:
    """Only analysts may EXECUTE import_local; were a DBA to grant it to the watcher too, the function itself still
    refuses anyone who is no analyst (walt is a person, a member of the team: only that check stands)."""
    with team_db.connect() as conn:
        conn.execute("GRANT EXECUTE ON FUNCTION stablepay.import_local(text, jsonb) TO walt")
    with team_db.connect("walt") as conn, pytest.raises(
            psycopg.errors.InsufficientPrivilege, match=r"only a member of stablepay_analyst may import a local record "
                                                        r"\(not walt\)"):
        conn.execute("SELECT stablepay.import_local('laptop', '{}'::jsonb)")


# --- facts only from where they happen ----------------------------------------------------------------------------

CLAIM_ROW = ("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
             "VALUES ('prod', 'production', %s, %s, %s, '{}', %s)")


@pytest.mark.parametrize(("action", "outcome"), [
    ("claim", "claimed"), ("claim.release", "released"), ("triage.ready", "ready"), ("triage.approve", "approved"),
    ("triage.reject", "claimed"), ("triage.wait", "waiting"), ("triage.resume", "claimed"),
    ("triage.policy", "changed"),
])
def test_the_audit_entry_of_a_claim_or_step_typed_alone_is_refused(team_db: TeamDb, action: str, outcome: str) -> None:
    with team_db.connect("bob") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege,
                                                       match="written by the database with the act"):
        conn.execute(CLAIM_ROW, (action, RFI, outcome, SERVER))


def test_typed_claims_count_for_nothing_and_the_report_counts_claims_as_made(team_db: TeamDb) -> None:
    watch(team_db)
    watch(team_db, OTHER)
    with team_db.connect("bob") as conn:
        for _ in range(20):
            with conn.transaction(force_rollback=True), pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(CLAIM_ROW, ("claim", RFI, "claimed", SERVER))
        # a refusal may be noted by hand (it records an attempt), and counts as no claim
        conn.execute(CLAIM_ROW, ("claim", RFI, "refused: claimed by alice", SERVER))
    alice = record(team_db, "alice")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    assert alice.claim("prod", RFI, "", FIXED_NOW, lapse=timedelta(hours=1)).done  # an extension is no new claim
    facts = alice.triage_facts("prod", FIXED_NOW)
    assert [(c.rfi_id, c.actor) for c in facts.claims_taken] == [(RFI, "alice")]
    entries = [(e.action, e.actor, e.outcome) for e in alice.audit()]
    assert entries == [("claim", "bob", "refused: claimed by alice"), ("claim", "alice", "claimed"),
                       ("claim", "alice", "claimed (extended)")]
    assert verify(alice).ok


def test_each_step_has_exactly_its_own_entry_written_with_it(team_db: TeamDb) -> None:
    watch(team_db)
    alice, bob = record(team_db, "alice"), record(team_db, "bob")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    with team_db.connect("alice") as conn, conn.transaction():  # two steps in one transaction: two entries
        conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, note) VALUES (%s, %s, 'wait', 'asked')",
                     (SERVER, RFI))
        conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'resume')", (SERVER, RFI))
    bob.add_triage_step("prod", RFI, "wait", "", "", FIXED_NOW)
    with team_db.connect() as conn:
        steps = conn.execute("SELECT id, step, actor FROM stablepay.triage ORDER BY id").fetchall()
    entries = [e for e in alice.audit() if e.action.startswith("triage.")]
    assert [(e.action, e.actor, e.outcome, e.details.get("was"), e.details.get("step")) for e in entries] == [
        ("triage.wait", "alice", "waiting", "claimed", steps[0][0]),
        ("triage.resume", "alice", "claimed", "waiting", steps[1][0]),
        ("triage.wait", "bob", "waiting", "claimed", steps[2][0]),
    ]
    assert entries[0].details["note"] == "asked" and entries[0].details["server"] == SERVER
    assert verify(alice).ok


def test_an_import_never_writes_over_what_the_watcher_saw_and_is_labelled_elsewhere(team_db: TeamDb) -> None:
    walt = watch(team_db)  # RFI: the watcher saw it issued
    forged_round = {"server": SERVER, "round_no": 1, "round_id": "r1", "fingerprint": "forged", "issued_at":
                    "2026-11-20T09:00:00+00:00", "expires_at": "2026-11-27T09:00:00+00:00", "submitted_at":
                    "2026-11-21T09:00:00+00:00", "link": None, "wire": "{}", "first_seen": "2026-11-19T00:00:00+00:00",
                    "last_seen": "2026-11-21T10:00:00+00:00"}
    payload = {
        "rounds": [{**forged_round, "rfi_id": RFI}, {**forged_round, "rfi_id": OTHER}],
        "statuses": [{"server": SERVER, "rfi_id": rfi, "status": "submitted", "first_seen": "2026-11-21T09:00:00+00:00",
                      "last_seen": "2026-11-21T10:00:00+00:00"} for rfi in (RFI, OTHER)],
        "rfis": [{"server": SERVER, "rfi_id": OTHER, "environment": "production", "status": "submitted",
                  "fingerprint": "forged", "wire": json.dumps({"id": OTHER}), "first_seen": "2026-11-19T00:00:00+00:00",
                  "last_seen": "2026-11-21T10:00:00+00:00", "round_fingerprint": "forged",
                  "round_first_seen": "2026-11-19T00:00:00+00:00", "status_first_seen": "2026-11-21T09:00:00+00:00"}],
    }
    alice = record(team_db, "alice")
    before = alice.triage_facts("prod", FIXED_NOW)
    with team_db.connect("alice") as conn:
        (counts,) = conn.execute("SELECT stablepay.import_local('laptop', %s)", (Jsonb(payload),)).fetchone()
    assert (counts["rounds"], counts["statuses"], counts["requests"]) == (1, 1, 1), "only OTHER's were taken"
    watched = walt.history("prod", RFI)
    assert [s.status for s in watched.statuses] == ["issued"] and len(watched.rounds) == 1
    imported = walt.history("prod", OTHER)
    assert imported.record is not None and imported.record.imported_by == "alice"
    assert [(s.status, s.imported_by) for s in imported.statuses] == [("submitted", "alice")]
    assert [r.imported_by for r in imported.rounds] == ["alice"]
    after = alice.triage_facts("prod", FIXED_NOW)
    assert (after.rounds, after.statuses) == (before.rounds, before.statuses), "an import counts in no total"
    # the watcher now sees OTHER issued: its own rows; the import's stay the import's, and still count for nothing
    watch(team_db, OTHER)
    seen = walt.history("prod", OTHER)
    assert seen.record is not None and seen.record.imported_by is None and seen.record.status == "issued"
    assert sorted((s.status, s.imported_by or "") for s in seen.statuses) == [("issued", ""), ("submitted", "alice")]
    assert sorted(r.imported_by or "" for r in seen.rounds) == ["", "alice"]
    final = alice.triage_facts("prod", FIXED_NOW)
    assert {s.status for s in final.statuses if s.rfi_id == OTHER} == {"issued"}
    assert [r.submitted_at for r in final.rounds if r.rfi_id == OTHER] == [None]


# --- bounded input ------------------------------------------------------------------------------------------------


def test_a_one_megabyte_note_is_refused_by_the_database_and_by_the_console_first(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    big = "x" * 1_000_000
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="notes_text_size"):
            conn.execute("INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%s, %s, %s)", (SERVER, RFI, big))
        conn.execute("INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%s, %s, %s)",
                     (SERVER, RFI, "y" * 20_000))  # the limit itself is kept
    watch(team_db)
    assert record(team_db, "alice").claim("prod", RFI, "", FIXED_NOW).done
    with team_db.connect("alice") as conn, pytest.raises(psycopg.errors.CheckViolation, match="triage_note_size"):
        conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, note) VALUES (%s, %s, 'wait', %s)",
                     (SERVER, RFI, big))
    monkeypatch.setenv("STABLEPAY_RECORD_URL", "postgresql://alice@127.0.0.1:9/team")  # nothing is sent anywhere
    assert main(["rfis", "note", RFI, "z" * 20_001]) == 2
    assert "A note holds at most 20,000 characters; this one has 20,001" in capsys.readouterr().err


def test_a_flood_of_forged_announcements_costs_at_most_one_reread_per_window(team_db: TeamDb) -> None:
    heard: list[tuple[float, Change]] = []
    listener = TeamListener(parse(team_db.url("alice")), lambda c: heard.append((time.monotonic(), c)),
                            hint_seconds=1.0).start()
    stop = threading.Event()

    def flood() -> None:
        with team_db.connect("bob") as conn:
            while not stop.is_set():
                with conn.transaction():
                    for n in range(50):
                        kind = "resync" if n % 2 else "claims"
                        conn.execute("SELECT pg_notify('stablepay_record', %s)",
                                     (json.dumps({"kind": kind, "rfi": f"r{n}", "who": "carol"}),))

    try:
        assert wait_for(lambda: listener.reachable is True, 10)
        worker = threading.Thread(target=flood, daemon=True)
        start = time.monotonic()
        worker.start()
        assert wait_for(lambda: time.monotonic() - start > 3.5, 10)
        stop.set()
        worker.join(10)
        flooded = time.monotonic() - start
        assert wait_for(lambda: heard and heard[-1][0] > start + flooded - 1.0, 5)
        told = [at for at, _ in heard if at >= start]
        assert 1 <= len(told) <= flooded / 1.0 + 1, f"{len(told)} re-reads in {flooded:.1f} s"
        assert all(b - a >= 0.9 for a, b in pairwise(told)), told
        # a real change after the flood still arrives, as itself
        heard.clear()
        assert wait_for(lambda: time.monotonic() - told[-1] > 1.0, 5)
        record(team_db, "carol").add_note("prod", RFI, "", "real", FIXED_NOW)
        assert wait_for(lambda: any(c.kind == "notes" and c.who == "carol" for _, c in heard), 3)
    finally:
        stop.set()
        listener.stop()


# --- witnesses of the chain -------------------------------------------------------------------------------------


def superuser_rehash(db: TeamDb, *statements: str) -> None:
    """A superuser hides an edit: triggers off, rows changed, the whole chain and its head re-hashed in SQL."""
    with db.connect() as conn, conn.transaction():
        conn.execute("ALTER TABLE stablepay.audit DISABLE TRIGGER USER")
        for statement in statements:
            conn.execute(statement)
        conn.execute("""
            DO $$ DECLARE e record; prev text := repeat('0', 64); h text; n bigint := 0; BEGIN
                FOR e IN SELECT * FROM stablepay.audit ORDER BY seq LOOP
                    h := stablepay.entry_hash(prev, e.seq, e.at, e.actor, e.profile, e.environment, e.action,
                                              e.target, e.outcome, e.detail);
                    UPDATE stablepay.audit SET prev_hash = prev, hash = h WHERE seq = e.seq;
                    prev := h; n := e.seq;
                END LOOP;
                UPDATE stablepay.audit_head SET count = n, hash = prev;
            END $$""")
        conn.execute("ALTER TABLE stablepay.audit ENABLE TRIGGER USER")


@pytest.mark.parametrize(("tampering", "said"), [
    (("UPDATE stablepay.audit SET outcome = 'nothing happened' WHERE seq = 1",), "was rewritten and re-hashed"),
    (("DELETE FROM stablepay.audit WHERE seq > 2",), "holds 2 entries, but this machine saw 4"),
])
def test_a_team_chain_rehashed_or_rolled_back_is_noticed_by_whoever_saw_it(  # type: ignore[no-untyped-def]
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str], tampering: tuple[str, ...], said: str,
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    alice = record(team_db, "alice")
    for n in range(4):
        alice.append_audit(AuditDraft(FIXED_NOW, "", "prod", "production", "ping", RFI, f"ok {n}", {}))
    assert main(["audit", "verify"]) == 0  # alice's machine sees 4 entries
    capsys.readouterr()
    superuser_rehash(team_db, *tampering)
    assert verify(alice).ok, "on its own, the re-hashed chain verifies"
    assert main(["audit", "verify", "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["chain"]["ok"] is True and found["witness"]["ok"] is False
    assert said in found["witness"]["problem"]
    as_role("bob")  # bob's machine never saw the original: it cannot tell, and says nothing false
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(tmp_path / "bobs-machine"))
    assert main(["audit", "verify"]) == 0


# --- moving an existing record forward ----------------------------------------------------------------------------


def test_a_version_3_record_moves_to_4_and_its_anonymous_rows_are_reported_not_rewritten(
    bare_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stablepay_console.storage.postgres import schema as record_pg_schema
    from stablepay_console.storage.postgres.schema import LATEST, init_schema
    from tests.postgres import OWNER

    every = record_pg_schema.migrations()
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every[:3])
    with bare_db.connect(OWNER) as conn:
        init_schema(conn)
    with bare_db.connect("alice") as conn:  # alice's own entry, then what version 3 let through: the group role's
        conn.execute("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                     "VALUES ('prod', 'production', 'ping', %s, 'ok', '{}', %s)", (RFI, SERVER))
        conn.execute("SET ROLE stablepay_analyst")
        conn.execute("INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%s, %s, 'nobody wrote this')",
                     (SERVER, RFI))
        conn.execute("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                     "VALUES ('prod', 'production', 'claim', %s, 'claimed', '{}', %s)", (RFI, SERVER))
        conn.execute("INSERT INTO stablepay.claims (server, rfi_id) VALUES (%s, %s)", (SERVER, RFI))
    with bare_db.connect() as conn:
        before = conn.execute("SELECT seq, hash FROM stablepay.audit ORDER BY seq").fetchall()
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every)
    with bare_db.connect(OWNER) as conn:
        report = init_schema(conn)
    assert (report.before, report.after) == (3, LATEST)
    alice = record(bare_db, "alice")
    assert [(e.seq, e.hash) for e in alice.audit()] == before and verify(alice).ok, "nothing lost, the chain holds"
    assert [n.author for n in alice.notes("prod", RFI)] == ["stablepay_analyst"], "kept as it was"
    monkeypatch.setenv("STABLEPAY_RECORD_URL", bare_db.url("alice"))
    assert main(["record", "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["schemaVersion"] == LATEST
    assert status["stampedByNobody"] == {"notes": 1, "claims": 1, "claimLog": 1, "auditEntries": 1}
    assert main(["record", "status"]) == 0
    assert "notes 1, claims 1, claimLog 1, auditEntries 1: written before schema 4" in capsys.readouterr().out
    alice.append_audit(AuditDraft(FIXED_NOW, "", "prod", "production", "ping", RFI, "ok", {}))  # alice works on
    assert verify(alice).ok
