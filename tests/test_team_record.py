"""The team record on a real PostgreSQL, as two analysts (alice, bob), a lead (carol) and the owner.

What the database itself enforces is tested by going around our code: an analyst's UPDATE, DELETE
or TRUNCATE on the audit table, a typed actor, an entry that does not follow the chain, a claim
released by someone else. No mock of the database anywhere.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest

from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.services.audit import verify
from stablepay_console.services.history import sighting
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.local import open_record
from stablepay_console.storage.postgres.schema import LATEST, init_schema, installed_version
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record import RecordError, RecordTooNew
from stablepay_console.storage.record_types import AuditDraft, RfiSighting, SeenPage
from tests.conftest import FIXED_NOW
from tests.postgres import OWNER, TeamDb

pytestmark = pytest.mark.postgres

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
SERVER = "production https://api.stablepay.example"


def record(db: TeamDb, role: str, scope: str = SERVER) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: scope if name else "")


def draft(action: str = "ping", actor: str = "typed name", target: str = "") -> AuditDraft:
    return AuditDraft(FIXED_NOW, actor, "prod", "production", action, target, "ok", {"n": 1})


# --- who did it --------------------------------------------------------------------------------------------------


def test_the_actor_is_the_database_role_whatever_name_is_passed(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    note = alice.add_note("prod", RFI, "mallory", "Asked the user for a new ID scan.", FIXED_NOW)
    claim = alice.claim("prod", RFI, "mallory", FIXED_NOW)
    entry = alice.append_audit(draft(actor="mallory"))
    assert (note.author, claim.claim.claimant if claim.claim else "", entry.actor) == ("alice", "alice", "alice")
    assert abs(note.at - datetime.now(timezone.utc)) < timedelta(minutes=1)  # the database's clock, not FIXED_NOW
    assert record(team_db, "bob").notes("prod", RFI)[0].author == "alice"


def test_the_database_refuses_a_typed_actor_and_an_entry_off_the_chain(team_db: TeamDb) -> None:
    record(team_db, "alice").append_audit(draft())
    with team_db.connect("bob") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="audit"):
            conn.execute("INSERT INTO stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, "
                         "detail, prev_hash, hash) VALUES (2, 'x', 'alice', '', '', 'ping', '', 'ok', '{}', 'x', 'y')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE stablepay.audit_head SET count = 0")
    assert verify(record(team_db, "carol")).ok


# --- audit immutability and tamper evidence ---------------------------------------------------------------------


@pytest.mark.parametrize("statement", [
    "UPDATE stablepay.audit SET outcome = 'nothing happened' WHERE seq = 1",
    "DELETE FROM stablepay.audit WHERE seq = 1",
    "TRUNCATE stablepay.audit",
    "DELETE FROM stablepay.notes",
    "UPDATE stablepay.notes SET text = 'rewritten'",
])
@pytest.mark.parametrize("role", ["alice", "carol"])
def test_analysts_and_leads_cannot_change_or_remove_audit_entries_or_notes(
    team_db: TeamDb, statement: str, role: str
) -> None:
    alice = record(team_db, "alice")
    alice.append_audit(draft())
    alice.add_note("prod", RFI, "", "kept", FIXED_NOW)
    with team_db.connect(role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert verify(alice).ok and len(alice.notes("prod", RFI)) == 1


@pytest.mark.parametrize("role", ["alice", "carol", "stablepay_analyst", "stablepay_lead"])
def test_no_application_role_has_the_privilege_to_change_the_audit_log(team_db: TeamDb, role: str) -> None:
    with team_db.connect() as conn:
        for table in ("stablepay.audit", "stablepay.audit_head", "stablepay.notes"):
            for privilege in ("UPDATE", "DELETE", "TRUNCATE"):
                held = conn.execute("SELECT has_table_privilege(%s, %s, %s)", (role, table, privilege)).fetchone()
                assert held == (False,), (role, table, privilege)


def test_even_the_owner_is_stopped_by_the_trigger(team_db: TeamDb) -> None:
    record(team_db, "alice").append_audit(draft())
    with team_db.connect(OWNER) as conn:
        for statement in ("UPDATE stablepay.audit SET outcome = 'x'", "DELETE FROM stablepay.audit",
                          "TRUNCATE stablepay.audit", "TRUNCATE stablepay.audit_head"):  # the head, cut with it
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                conn.execute(statement)


def test_an_edit_by_a_superuser_is_exposed_by_the_chain(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    for n in range(5):
        alice.append_audit(draft(target=f"rfi-{n}"))
    assert verify(alice).ok
    with team_db.connect() as conn:  # a superuser can switch the triggers off
        conn.execute("SET session_replication_role = replica")
        conn.execute("UPDATE stablepay.audit SET outcome = 'refused' WHERE seq = 3")
    report = verify(alice)
    assert (report.ok, report.broken_at) == (False, 3)
    assert "changed after it was written" in report.reason


def test_a_superuser_who_cuts_the_tail_is_exposed_too(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    for _ in range(4):
        alice.append_audit(draft())
    with team_db.connect() as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("DELETE FROM stablepay.audit WHERE seq = 4")
    assert verify(alice).broken_at == 4


# --- claims -------------------------------------------------------------------------------------------------------


def test_claims_belong_to_their_holder_and_only_a_lead_releases_anyones(team_db: TeamDb) -> None:
    alice, bob, carol = (record(team_db, r) for r in ("alice", "bob", "carol"))
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    refused = bob.claim("prod", RFI, "", FIXED_NOW)
    assert not refused.done and refused.claim is not None and refused.claim.claimant == "alice"
    assert not bob.release("prod", RFI, "bob").done
    forced = bob.release("prod", RFI, "bob", force=True)
    assert not forced.done and "stablepay_lead" in forced.refusal
    with team_db.connect("bob") as conn:  # around our code: row security still says no
        assert conn.execute("DELETE FROM stablepay.claims").rowcount == 0
        assert conn.execute("UPDATE stablepay.claims SET until = now() WHERE rfi_id = %s", (RFI,)).rowcount == 0
        with conn.transaction(force_rollback=True), pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE stablepay.claims SET claimant = 'bob' WHERE rfi_id = %s", (RFI,))
        with conn.transaction(force_rollback=True), pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO stablepay.claims (server, rfi_id, claimant) VALUES ('s', 'r', 'alice')")
        typed = conn.execute("INSERT INTO stablepay.claims (server, rfi_id) VALUES ('s', 'r') RETURNING claimant"
                             ).fetchone()
        assert typed == ("bob",)  # a claim is always made in your own name
    assert alice.claim_of("prod", RFI) is not None
    assert carol.release("prod", RFI, "carol", force=True).done
    assert alice.claim_of("prod", RFI) is None


def test_an_analyst_cannot_take_over_a_claim_by_updating_it(team_db: TeamDb) -> None:
    record(team_db, "alice").claim("prod", RFI, "", FIXED_NOW)
    with team_db.connect("bob") as conn:
        assert conn.execute("UPDATE stablepay.claims SET until = now()").rowcount == 0
    assert record(team_db, "bob").claim_of("prod", RFI).claimant == "alice"  # type: ignore[union-attr]


def test_a_claim_with_an_expiry_lapses_and_anyone_may_take_it(team_db: TeamDb) -> None:
    alice, bob = record(team_db, "alice"), record(team_db, "bob")
    held = alice.claim("prod", RFI, "", FIXED_NOW, lapse=timedelta(seconds=1)).claim
    assert held is not None and held.until is not None
    assert not bob.claim("prod", RFI, "", FIXED_NOW).done
    time.sleep(1.2)
    assert alice.claims("prod") == {} and alice.claim_of("prod", RFI) is None
    taken = bob.claim("prod", RFI, "", FIXED_NOW)
    assert taken.done and taken.claim is not None and taken.claim.claimant == "bob" and taken.claim.until is None


def test_sixteen_simultaneous_claims_from_two_analysts_leave_exactly_one_holder(team_db: TeamDb) -> None:
    stores = [record(team_db, "alice" if n % 2 else "bob") for n in range(16)]
    for store in stores:
        store.whoami()  # connected before the start line
    start = threading.Barrier(16)
    outcomes: list[tuple[str, bool, str]] = []

    def claim(store: PgRecord) -> None:
        start.wait()
        outcome = store.claim("prod", RFI, "", FIXED_NOW)
        outcomes.append((store.role, outcome.done, outcome.claim.claimant if outcome.claim else ""))

    threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    holders = {holder for _, _, holder in outcomes}
    assert len(outcomes) == 16 and len(holders) == 1
    (holder,) = holders
    assert all(done == (role == holder) for role, done, _ in outcomes)
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.claims").fetchone() == (1,)


# --- keyed by server ------------------------------------------------------------------------------------------


def test_two_profile_names_for_one_server_share_one_record(team_db: TeamDb, client) -> None:  # type: ignore[no-untyped-def]
    prod = Profile("prod", "production", "https://API.stablepay.example/")
    live = Profile("live", "production", "https://api.stablepay.example")
    sandbox = Profile("prod", "sandbox", "https://api.stablepay.example")
    assert server_key(prod) == server_key(live) != server_key(sandbox)
    assert "built-in simulation on" in server_key(EMBEDDED_PROFILE)
    alice = PgRecord(parse(team_db.url("alice")), lambda name: server_key(prod))
    bob = PgRecord(parse(team_db.url("bob")), lambda name: server_key(live))
    alice.add_note("prod", RFI, "", "seen", FIXED_NOW)
    assert [n.text for n in bob.notes("live", RFI)] == ["seen"]


async def test_the_history_is_the_same_as_the_local_records(team_db: TeamDb, client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    page = await client.list_rfis(limit=30)
    changed = [r.model_copy(update={"status": "submitted"}) for r in page.data[:5]]
    pages = [SeenPage("prod", "production", FIXED_NOW, tuple(sighting(r) for r in page.data)),
             SeenPage("prod", "production", FIXED_NOW + timedelta(hours=1), tuple(sighting(r) for r in changed))]
    local, team = open_record(tmp_path / "r.sqlite3"), record(team_db, "walt")
    assert local.observe(pages) == team.observe(pages) >= 30
    assert team.observe(pages[1:]) == 0
    for rfi in page.data[:8]:
        assert team.history("prod", rfi.id) == local.history("prod", rfi.id)
        assert record(team_db, "alice").history("prod", rfi.id) == local.history("prod", rfi.id)
    assert record(team_db, "alice").observe(pages[:1]) == 0  # an analyst's console records no facts, and says nothing


# --- the connection ------------------------------------------------------------------------------------------


def backend(rec: PgRecord) -> int:
    row = rec.run("read the session's process", lambda conn: conn.execute("SELECT pg_backend_pid()").fetchone())
    return int(row[0])


def gone(db: TeamDb, pid: int) -> None:
    """Until the server has ended that session (it ends it a moment after being asked)."""
    with db.connect() as conn:
        while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() != (0,):
            time.sleep(0.05)


def test_one_connection_serves_every_call_and_one_the_server_dropped_is_replaced_before_it_fails(
    team_db: TeamDb,
) -> None:
    alice = record(team_db, "alice")
    first = backend(alice)
    assert backend(alice) == first, "a call right after another uses the same session, unchecked"
    alice.check_after = 0.0  # from now on every call checks its connection first
    assert backend(alice) == first, "a connection that answers the check is kept"
    with team_db.connect() as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (first,))
    gone(team_db, first)
    assert alice.add_note("prod", RFI, "alice", "Saved after the server dropped the session.", FIXED_NOW)
    replaced = backend(alice)
    assert replaced != first
    alice.close()
    gone(team_db, replaced)
    assert backend(alice) not in (first, replaced), "closed, the record opens a new session on its next call"
    assert [n.text for n in alice.notes("prod", RFI)] == ["Saved after the server dropped the session."]


def test_a_call_given_a_time_limit_is_cut_at_it_and_the_next_call_works(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    with pytest.raises(RecordError, match="could not wait for the server"):
        alice.run("wait for the server", lambda conn: conn.execute("SELECT pg_sleep(5)"), seconds=0.5)
    assert alice.notes("prod", RFI) == []


def test_opening_learns_the_role_its_lead_membership_and_the_server_version(team_db: TeamDb) -> None:
    told: list[str] = []
    carol = PgRecord(parse(team_db.url("carol")), lambda name: SERVER if name else "", on_role=told.append)
    assert (carol.whoami(), told) == (("carol", True), ["carol"])
    assert record(team_db, "alice").whoami() == ("alice", False)
    with team_db.connect() as conn:
        version = str(conn.execute("SHOW server_version").fetchone()[0])
    assert carol.server_version == version.split()[0] and carol.server_version[:1].isdigit()


def test_a_login_let_in_by_hand_but_in_no_team_role_is_refused_naming_the_database(team_db: TeamDb) -> None:
    from psycopg import sql

    with team_db.connect() as conn:  # a DBA's mistake: CONNECT granted to a login, not to a team role
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO mallory").format(sql.Identifier(team_db.name)))
    where = parse(team_db.url("mallory")).where
    with pytest.raises(RecordError) as refused:
        record(team_db, "mallory").notes("prod", RFI)
    assert f"The team record at {where} refused to open the team record: permission denied" in str(refused.value)


# --- read back ----------------------------------------------------------------------------------------------


def test_a_note_read_back_says_where_it_was_imported_from_and_when_if_that_was_kept() -> None:
    from stablepay_console.storage.postgres.store import _note
    from stablepay_console.storage.record_types import Imported, Note

    written, imported = FIXED_NOW - timedelta(days=3), FIXED_NOW
    row: tuple[object, ...] = (7, "alice", imported, "Asked for a new ID scan.", None, None, None)
    assert _note("prod", RFI, row) == Note(7, "prod", RFI, "alice", imported, "Asked for a new ID scan.", None)
    row = (8, "carol", imported, "Copied.", "laptop:/r.sqlite3", "bob", written)
    assert _note("prod", RFI, row).imported == Imported("laptop:/r.sqlite3", "carol", imported, "bob", written)
    # version 1 of the import kept one time (the writing's) in both columns, and no writer
    row = (9, "carol", written, "Copied early.", "laptop:/r.sqlite3", None, written)
    assert _note("prod", RFI, row).imported == Imported("laptop:/r.sqlite3", "carol", None, "?", written)


def test_the_audit_log_read_for_a_profile_is_its_servers_and_for_a_target_that_targets(team_db: TeamDb) -> None:
    servers = {"prod": SERVER, "staging": "sandbox https://sandbox.stablepay.example"}
    alice = PgRecord(parse(team_db.url("alice")), lambda name: servers.get(name, ""))
    for profile, target in (("prod", RFI), ("staging", RFI), ("prod", "")):
        alice.append_audit(AuditDraft(FIXED_NOW, "alice", profile, "production", "ping", target, "ok", {}))
    assert [(e.profile, e.target) for e in alice.audit(profile="prod")] == [("prod", RFI), ("prod", "")]
    assert [e.profile for e in alice.audit(target=RFI)] == ["prod", "staging"]
    assert len(alice.audit()) == 3


# --- schema and migrations ----------------------------------------------------------------------------------------


def test_init_creates_the_schema_once_and_a_newer_one_is_refused_untouched(bare_db: TeamDb) -> None:
    with bare_db.connect(OWNER) as conn:
        assert installed_version(conn) == 0
        first = init_schema(conn)
        again = init_schema(conn)
        assert (first.before, first.after, again.before, again.after) == (0, LATEST, LATEST, LATEST)
    with bare_db.connect() as conn:
        conn.execute("DROP SCHEMA stablepay CASCADE")
    with pytest.raises(RecordError, match=f"The database {parse(bare_db.url()).where} holds no team record"):
        record(bare_db, "alice").whoami()
    with bare_db.connect(OWNER) as conn:
        init_schema(conn)
        conn.execute("UPDATE stablepay.schema_version SET version = %s", (LATEST + 1,))
        with pytest.raises(RecordTooNew):
            init_schema(conn)
        assert installed_version(conn) == LATEST + 1
        assert conn.execute("SELECT count(*) FROM stablepay.audit").fetchone() == (0,)
    with pytest.raises(RecordTooNew, match="newer console"):
        record(bare_db, "alice").notes("prod", RFI)


def test_the_owner_must_not_be_an_analyst(bare_db: TeamDb) -> None:
    with bare_db.connect("alice") as conn, pytest.raises(RecordError, match="must not be one of the application"):
        init_schema(conn)


def test_the_analysts_own_nothing(team_db: TeamDb) -> None:
    with team_db.connect() as conn:
        owners = conn.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'stablepay'").fetchall()
    assert owners == [(OWNER,)]


@pytest.mark.parametrize(("ci", "outcome"), [("true", pytest.fail.Exception), ("1", pytest.fail.Exception),
                                             ("", pytest.skip.Exception), ("false", pytest.skip.Exception)])
def test_without_a_server_ci_fails_and_a_laptop_skips(
    ci: str, outcome: type[BaseException], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.postgres import unavailable

    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="no PostgreSQL"):
        unavailable("no /usr/lib/postgresql/*/bin/initdb")


def test_a_round_whose_request_row_was_lost_is_the_same_entry_when_the_request_is_seen_again(team_db: TeamDb) -> None:
    from tests.test_record_contract import ROUND

    walt, later = record(team_db, "walt"), FIXED_NOW + timedelta(hours=1)
    walt.observe([SeenPage("prod", "production", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", "{}", ROUND),))])
    with team_db.connect() as conn:  # the superuser removes the request's row by hand, its round left behind
        conn.execute("DELETE FROM stablepay.rfis WHERE rfi_id = %s", (RFI,))
    assert walt.observe([SeenPage("prod", "production", later, (RfiSighting(RFI, "issued", "f1", "{}", ROUND),))]) == 1
    history = walt.history("prod", RFI)
    assert [(r.round_id, r.first_seen, r.last_seen) for r in history.rounds] == [("r1", FIXED_NOW, later)]
    assert history.record is not None and history.record.has_round


def test_a_round_whose_request_row_was_lost_seen_changed_is_a_new_entry(team_db: TeamDb) -> None:
    from dataclasses import replace

    from tests.test_record_contract import ROUND

    walt, later = record(team_db, "walt"), FIXED_NOW + timedelta(hours=1)
    walt.observe([SeenPage("prod", "production", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", "{}", ROUND),))])
    with team_db.connect() as conn:
        conn.execute("DELETE FROM stablepay.rfis WHERE rfi_id = %s", (RFI,))
    changed = replace(ROUND, fingerprint="another round's")
    walt.observe([SeenPage("prod", "production", later, (RfiSighting(RFI, "issued", "f2", "{}", changed),))])
    rounds = walt.history("prod", RFI).rounds
    assert [(r.first_seen, r.last_seen) for r in rounds] == [(FIXED_NOW, FIXED_NOW), (later, later)]


# --- what the watcher saw ---------------------------------------------------------------------------------------


def test_one_sweep_of_two_profiles_counts_every_page_s_new_requests(team_db: TeamDb) -> None:
    other = "7c0e3f4a-1b2c-4d5e-8f90-a1b2c3d4e5f6"
    pages = [SeenPage("prod", "production", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", "{}", None),)),
             SeenPage("live", "production", FIXED_NOW, (RfiSighting(other, "issued", "f1", "{}", None),))]
    assert record(team_db, "walt").observe(pages) == 2


def test_two_watchers_of_one_server_record_a_new_request_once_the_second_waiting_for_the_first(
    team_db: TeamDb,
) -> None:
    """The second watcher's sweep waits for the first one's to commit, then finds the request known and unchanged
    (without the server's row lock it would insert the same request again and fail on the first one's key)."""
    page = SeenPage("prod", "production", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", "{}", None),))
    second = record(team_db, "walt")  # its scope: SERVER for a profile's name ("" for none)
    second_pid = backend(second)
    outcome: list[object] = []

    def sweep() -> None:
        try:
            outcome.append(second.observe([page]))
        except Exception as error:  # the test reads what the second watcher met
            outcome.append(error)

    with team_db.connect("walt") as conn, conn.transaction():
        from stablepay_console.storage.postgres import history

        assert history.observe(conn, lambda name: SERVER, [page]) == 1  # the first watcher's sweep, uncommitted
        thread = threading.Thread(target=sweep)
        thread.start()
        with team_db.connect() as watching:  # until the second watcher's session waits on a lock
            waiting = "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s"
            while thread.is_alive() and watching.execute(waiting, (second_pid,)).fetchone() != ("Lock",):
                time.sleep(0.02)
    thread.join(30)
    assert outcome == [0]
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.statuses WHERE rfi_id = %s", (RFI,)).fetchone() == (1,)
