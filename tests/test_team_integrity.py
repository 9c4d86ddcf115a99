"""The team record holds against its own members: every rule attacked as a member would, going around our code.

Each attack is `psql` as that role (a plain psycopg connection logged in as alice, bob, carol or walt):
a forged author, actor, time or hash; an imported row written by hand; UPDATE, DELETE and TRUNCATE on every
table; a login with no team role; a lead's release racing a takeover. After every attack the audit chain
still verifies, and what the team reads is what the database decided.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest

from stablepay_console.services.audit import verify
from stablepay_console.storage.postgres import connection as record_pg_conn
from stablepay_console.storage.postgres.connection import RecordOutcomeUnknown, RecordUnavailable
from stablepay_console.storage.postgres.conninfo import libpq_view
from stablepay_console.storage.postgres.schema import LATEST, init_schema
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import RecordUrlError, parse, shown
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_chain import entry_hash
from stablepay_console.storage.record_types import AuditDraft, AuditEntry, SeenPage
from stablepay_console.storage.writing import NotWritten
from tests.conftest import FIXED_NOW
from tests.postgres import OWNER, TeamDb, wait_for

pytestmark = pytest.mark.postgres

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
SERVER = "production https://api.stablepay.example"
ODD = 'quote " backslash \\ tab\t newline\n é 😀 \x7f end'
"""Text whose canonical JSON needs every escape (the database's hash must equal the console's)."""


def record(db: TeamDb, role: str) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: SERVER if name else "")


def draft(action: str = "ping", outcome: str = "ok", **detail: object) -> AuditDraft:
    return AuditDraft(FIXED_NOW, "typed name", "prod", "production", action, RFI, outcome, dict(detail))


def refused(conn: psycopg.Connection, statement: str, params: tuple[object, ...] = ()) -> None:
    """The statement fails on a privilege, and the connection is usable afterwards."""
    with conn.transaction(force_rollback=True), pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement, params)


# --- who and when are the database's --------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [
    "(server, rfi_id, text, author)", "(server, rfi_id, text, at)", "(server, rfi_id, text, imported_from)",
    "(server, rfi_id, text, imported_by)", "(server, rfi_id, text, written_as)",
])
def test_an_analyst_cannot_write_a_note_as_someone_else_or_backdate_it(team_db: TeamDb, columns: str) -> None:
    values = {"author": "carol", "at": "2020-01-01", "imported_from": "laptop", "imported_by": "carol",
              "written_as": "carol"}
    extra = columns.strip("()").split(", ")[-1]
    with team_db.connect("bob") as conn:
        refused(conn, f"INSERT INTO stablepay.notes {columns} VALUES (%s, %s, 'hello', %s)",
                (SERVER, RFI, values[extra]))
        row = conn.execute("INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%s, %s, 'mine') "
                           "RETURNING author, at, imported_from", (SERVER, RFI)).fetchone()
    assert row is not None and row[0] == "bob" and row[2] is None
    assert abs(row[1] - datetime.now(timezone.utc)) < timedelta(minutes=5)  # the database's clock


@pytest.mark.parametrize("column, value", [
    ("actor", "carol"), ("at", "2020-01-01T00:00:00.000+00:00"), ("seq", 1), ("hash", "0" * 64),
    ("prev_hash", "0" * 64), ("imported_from", "laptop"), ("imported_by", "carol"), ("imported_hash", "f" * 64),
])
def test_an_analyst_cannot_forge_an_audit_entrys_actor_time_number_hash_or_import(
    team_db: TeamDb, column: str, value: object
) -> None:
    record(team_db, "alice").append_audit(draft())
    with team_db.connect("bob") as conn:
        refused(conn, f"INSERT INTO stablepay.audit (action, outcome, {column}) VALUES ('ping', 'ok', %s)", (value,))
    assert verify(record(team_db, "carol")).ok


def test_an_entry_written_from_psql_is_the_writers_own_and_follows_the_chain(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    alice.append_audit(draft(note=ODD))
    with team_db.connect("bob") as conn:
        row = conn.execute(
            "INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail) "
            "VALUES ('prod', 'production', 'link.copy', %s, %s, %s) RETURNING actor, seq, at",
            (RFI, ODD, json.dumps({"odd": ODD}, ensure_ascii=False))).fetchone()
    assert row is not None and (row[0], row[1]) == ("bob", 2)
    assert abs(datetime.fromisoformat(row[2]) - datetime.now(timezone.utc)) < timedelta(minutes=5)
    entries = alice.audit()
    assert [e.actor for e in entries] == ["alice", "bob"] and entries[1].outcome == ODD
    assert verify(alice).ok, verify(alice).describe()
    for entry in entries:  # the database's hash is the console's, byte for byte, odd characters included
        assert entry.hash == entry_hash(entry.prev_hash, entry.content())


def test_concurrent_appends_from_many_members_keep_one_unbroken_chain(team_db: TeamDb) -> None:
    stores = [record(team_db, ("alice", "bob", "carol", "walt")[n % 4]) for n in range(8)]
    for store in stores:
        store.whoami()
    start = threading.Barrier(len(stores))

    def append(store: PgRecord) -> None:
        start.wait()
        for _ in range(5):
            store.append_audit(draft())

    threads = [threading.Thread(target=append, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    report = verify(stores[0])
    assert report.ok and report.checked == 40, report.describe()


# --- imports are the importer's testimony ---------------------------------------------------------------------


def test_an_analyst_who_imports_by_hand_vouches_for_it_under_their_own_name(team_db: TeamDb) -> None:
    forged = {
        "notes": [{"server": SERVER, "rfi_id": RFI, "profile": "prod", "text": "Approved by me", "key": "k1",
                   "author": "carol", "at": "2020-01-01T00:00:00+00:00"}],
        "entries": [{"profile": "prod", "environment": "production", "action": "claim", "target": RFI,
                     "outcome": "approved", "detail": '{"written_as": "carol"}', "server": SERVER, "hash": "h1"}],
    }
    with team_db.connect("alice") as conn:
        conn.execute("SELECT stablepay.import_local('laptop', %s)", (psycopg.types.json.Jsonb(forged),))
    bob = record(team_db, "bob")
    (note,) = bob.notes("prod", RFI)
    assert note.author == "alice" and note.imported is not None
    assert note.imported.describe() == (f"imported by alice on {datetime.now(timezone.utc):%Y-%m-%d} from a local "
                                        "record, where it was written as carol")
    (entry,) = bob.audit()
    assert entry.actor == "alice" and entry.imported is not None and entry.imported.by == "alice"
    assert entry.to_json()["imported"]["description"].startswith("imported by alice on ")
    assert verify(bob).ok
    with team_db.connect("walt") as conn, pytest.raises(  # the watcher is no analyst: may not even call it
            psycopg.errors.InsufficientPrivilege, match="permission denied for function import_local"):
        conn.execute("SELECT stablepay.import_local('laptop', '{}'::jsonb)")
    with team_db.connect(OWNER) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege,
                                                       match="stablepay_owner is not a member of the team's roles"):
        conn.execute("SELECT stablepay.import_local('laptop', '{}'::jsonb)")  # the owner may run it: still refused
    with team_db.connect("alice") as conn, pytest.raises(psycopg.errors.InvalidParameterValue,
                                                         match="an import names where it comes from"):
        conn.execute("SELECT stablepay.import_local('', '{}'::jsonb)")


# --- one member cannot change what the team shares --------------------------------------------------------------

SHARED = [
    "UPDATE stablepay.rfis SET status = 'resolved'",
    "DELETE FROM stablepay.rfis",
    "INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, first_seen, last_seen) "
    "VALUES ('s', 'r', 'e', 'resolved', 'f', '{}', 'x', 'x')",
    "UPDATE stablepay.rounds SET expires_at = NULL",
    "DELETE FROM stablepay.rounds",
    "UPDATE stablepay.statuses SET status = 'resolved'",
    "DELETE FROM stablepay.statuses",
    "UPDATE stablepay.sweeps SET swept_at = now() + interval '1 year'",
    "INSERT INTO stablepay.sweeps (server, interval_s, radar) VALUES ('s', 60, '{}')",
    "DELETE FROM stablepay.sweeps",
    "UPDATE stablepay.notes SET text = 'rewritten'",
    "DELETE FROM stablepay.notes",
    "UPDATE stablepay.audit SET outcome = 'nothing happened'",
    "DELETE FROM stablepay.audit",
    "TRUNCATE stablepay.audit",
    "UPDATE stablepay.audit_head SET count = 0",
    "UPDATE stablepay.schema_version SET version = 1",
    "TRUNCATE stablepay.claims",
]


def watched(db: TeamDb) -> PgRecord:
    """The team watcher saw one issued request and marked its sweep."""
    from stablepay_console.storage.record_types import RfiSighting, RoundSighting

    walt = record(db, "walt")
    round_ = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":'
                              '"2026-11-27T09:00:00Z","submittedAt":null,"link":"https://x.example/l"}', "rf1")
    seen = RfiSighting(RFI, "issued", "f1", '{"id": "x"}', round_)
    walt.observe([SeenPage("prod", "production", FIXED_NOW, (seen,))])
    assert walt.mark_sweep("prod", 60, '{"issued": []}')
    return walt


@pytest.mark.parametrize("role", ["alice", "carol"])
@pytest.mark.parametrize("statement", SHARED)
def test_analysts_and_leads_change_nothing_shared(team_db: TeamDb, role: str, statement: str) -> None:
    walt = watched(team_db)
    alice = record(team_db, "alice")
    alice.add_note("prod", RFI, "", "kept", FIXED_NOW)
    alice.append_audit(draft())
    with team_db.connect(role) as conn:
        refused(conn, statement)
    assert walt.issued("prod") and len(walt.history("prod", RFI).statuses) == 1
    assert walt.last_sweep("prod").fresh  # type: ignore[union-attr]
    assert verify(alice).ok


def test_the_watcher_cannot_fake_its_freshness_either(team_db: TeamDb) -> None:
    walt = watched(team_db)
    with team_db.connect("walt") as conn:
        conn.execute("UPDATE stablepay.sweeps SET swept_at = now() - interval '1 year', by_role = 'carol'")
    sweep = walt.last_sweep("prod")
    assert sweep is not None and sweep.by_role == "walt" and sweep.age_seconds < 60


def test_an_analysts_console_records_no_facts_and_never_fails_for_it(team_db: TeamDb) -> None:
    from stablepay_console.storage.record_types import RfiSighting

    alice = record(team_db, "alice")
    page = SeenPage("prod", "production", FIXED_NOW, (RfiSighting(RFI, "resolved", "f9", "{}", None),))
    assert alice.observe([page]) == 0 and not alice.mark_sweep("prod", 60, "{}")
    assert not alice.history("prod", RFI).seen
    walt = watched(team_db)
    assert alice.observe([page]) == 0
    assert [rfi for rfi, _, _ in walt.issued("prod") or []], "the needs-action view keeps it on an analyst's word"


def test_two_watchers_that_see_the_same_change_record_it_once(team_db: TeamDb) -> None:
    from stablepay_console.storage.record_types import RfiSighting

    page = SeenPage("prod", "production", FIXED_NOW,
                    tuple(RfiSighting(f"rfi-{n}", "issued", "f", "{}", None) for n in range(50)))
    watchers = [record(team_db, "walt") for _ in range(2)]
    for w in watchers:
        w.whoami()
    start, changed = threading.Barrier(2), []

    def observe(w: PgRecord) -> None:
        start.wait()
        changed.append(w.observe([page]))

    threads = [threading.Thread(target=observe, args=(w,)) for w in watchers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(changed) == [0, 50]
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.statuses").fetchone() == (50,)


def test_a_login_with_no_team_role_cannot_connect_or_listen(team_db: TeamDb) -> None:
    with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
        team_db.connect("mallory")
    with pytest.raises(RecordError, match="refused the connection of mallory: permission denied"):
        record(team_db, "mallory").notes("prod", RFI)


# --- claims: only the claim read is released ------------------------------------------------------------------


def test_a_leads_plain_release_never_deletes_a_claim_taken_over_meanwhile(team_db: TeamDb) -> None:
    alice, bob, carol = (record(team_db, r) for r in ("alice", "bob", "carol"))
    assert alice.claim("prod", RFI, "", FIXED_NOW, lapse=timedelta(seconds=1)).done
    assert wait_for(lambda: alice.claim_of("prod", RFI) is None, 10), "the claim lapses"
    held = carol._held  # carol reads alice's lapsed claim; before her DELETE, bob takes it over

    def read_then_race(*args: object) -> object:
        found = held(*args)  # type: ignore[arg-type]
        taken = bob.claim("prod", RFI, "", FIXED_NOW)
        assert taken.done and taken.claim is not None and taken.claim.claimant == "bob"
        return found

    carol._held = read_then_race  # type: ignore[method-assign]
    outcome = carol.release("prod", RFI, "carol", force=True)
    assert not outcome.done and "bob took it over" in outcome.refusal
    claim = bob.claim_of("prod", RFI)
    assert claim is not None and claim.claimant == "bob"


def test_a_lead_cannot_update_someone_elses_live_claim(team_db: TeamDb) -> None:
    record(team_db, "alice").claim("prod", RFI, "", FIXED_NOW)
    with team_db.connect("carol") as conn:
        assert conn.execute("UPDATE stablepay.claims SET until = now() - interval '1 s'").rowcount == 0
        refused(conn, "UPDATE stablepay.claims SET claimant = 'carol'")
        refused(conn, "UPDATE stablepay.claims SET at = '2020-01-01'")
    claim = record(team_db, "bob").claim_of("prod", RFI)
    assert claim is not None and claim.claimant == "alice"


# --- one transaction per action ---------------------------------------------------------------------------------


def test_a_note_is_kept_with_its_audit_entry_or_not_at_all(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    with team_db.connect() as conn:  # the audit log refuses this one entry
        conn.execute("CREATE FUNCTION stablepay.no_more() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'the audit log refused it'; END $$")
        conn.execute("CREATE TRIGGER audit_0_refuse BEFORE INSERT ON stablepay.audit FOR EACH ROW "
                     "EXECUTE FUNCTION stablepay.no_more()")
    with pytest.raises(RecordError, match="refused it"), alice.transaction():
        alice.add_note("prod", RFI, "", "half a story", FIXED_NOW)
        alice.append_audit(draft("note.add"))
    assert alice.notes("prod", RFI) == [] and alice.audit() == []


def test_a_connection_lost_during_commit_says_the_outcome_is_unknown(team_db: TeamDb) -> None:
    alice = record(team_db, "alice")
    with team_db.connect() as conn:  # the server process ends while it commits
        conn.execute("CREATE FUNCTION stablepay.die() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$")
        conn.execute("CREATE CONSTRAINT TRIGGER notes_die AFTER INSERT ON stablepay.notes DEFERRABLE INITIALLY "
                     "DEFERRED FOR EACH ROW EXECUTE FUNCTION stablepay.die()")
    with pytest.raises(RecordOutcomeUnknown, match="not known whether it was saved"):
        alice.add_note("prod", RFI, "", "did it land?", FIXED_NOW)


# --- connections as libpq sees them ---------------------------------------------------------------------------


def test_what_the_watcher_writes_is_its_own_and_a_request_carries_its_rounds_deadline(team_db: TeamDb) -> None:
    # A fact the watcher writes is one it saw itself, whatever it sends as imported_by (only the owner's import
    # tags facts), and a request's deadline is its current round's, as the database reads it.
    with team_db.connect("walt") as conn:
        conn.execute("INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, "
                     "expires_at, wire, first_seen, last_seen, imported_by) VALUES (%s, %s, 1, 'r1', 'f', 'x', "
                     "'2026-12-01T09:30:00.000+00:00', '{}', 'x', 'x', 'forged')", (SERVER, RFI))
        (round_row,) = conn.execute("SELECT id FROM stablepay.rounds").fetchone()
        conn.execute("INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen, imported_by) "
                     "VALUES (%s, %s, 'issued', 'x', 'x', 'forged')", (SERVER, RFI))
        conn.execute("INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, round_row, "
                     "first_seen, last_seen, imported_by, deadline) VALUES (%s, %s, 'sandbox', 'issued', 'f', '{}', "
                     "%s, 'x', 'x', 'forged', '1999-01-01')", (SERVER, RFI, round_row))
    with team_db.connect() as conn:
        tags = [conn.execute(f"SELECT imported_by FROM stablepay.{table}").fetchone()[0]
                for table in ("rfis", "rounds", "statuses")]
        deadline = conn.execute("SELECT deadline FROM stablepay.rfis").fetchone()[0]
    assert tags == [None, None, None]
    assert deadline == "2026-12-01T09:30:00.000+00:00"


def test_tls_is_decided_on_what_libpq_will_use(tmp_path: Path) -> None:
    services = tmp_path / "pg_service.conf"
    services.write_text("[team]\nhost=db.example.com\ndbname=team\n[team-verified]\nhost=db.example.com\n"
                        "sslmode=verify-full\n", encoding="utf-8")
    env = {"PGSERVICEFILE": str(services), "HOME": str(tmp_path)}
    with pytest.raises(RecordUrlError, match="environment or a service file"):
        parse("postgresql:///team", {"PGHOST": "db.example.com"})
    with pytest.raises(RecordUrlError, match=r"db\.example\.com"):
        parse("postgresql:///team?service=team", env)
    with pytest.raises(RecordUrlError, match=r"db\.example\.com"):
        parse("postgresql:///team", {**env, "PGSERVICE": "team"})
    with pytest.raises(RecordUrlError, match="does not check which server answers"):
        parse("postgresql://alice@db.example.com/team", {"PGSSLMODE": "require"})
    assert parse("postgresql:///team?service=team-verified", env).sslmode == "verify-full"
    assert parse("postgresql://alice@db.example.com/team", {"PGSSLMODE": "verify-full"}).hosts == ("db.example.com",)
    assert parse("postgresql:///team", {"PGHOST": "/var/run/postgresql"}).hosts == ("/var/run/postgresql",)


def test_tls_is_decided_on_the_service_files_libpq_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, system = tmp_path / "home", tmp_path / "etc"
    home.mkdir()
    system.mkdir()
    remote = "[team]\nhost=db.example.com\napplication_name=50%off\n"  # a % is a value, not an interpolation
    (home / ".pg_service.conf").write_text(remote, encoding="utf-8")
    with pytest.raises(RecordUrlError, match=r"db\.example\.com \(a host libpq takes"):
        parse("postgresql:///team", {"HOME": str(home), "PGSERVICE": "team"})  # ~/.pg_service.conf
    (home / ".pg_service.conf").unlink()
    (system / "pg_service.conf").write_text(remote, encoding="utf-8")
    with pytest.raises(RecordUrlError, match=r"db\.example\.com"):  # no file of the user's: the system's
        parse("postgresql:///team", {"HOME": str(home), "PGSYSCONFDIR": str(system), "PGSERVICE": "team"})
    other_twice = home / "other.conf"  # a section given twice elsewhere in the file does not hide this one
    other_twice.write_text("[old]\nhost=a\n[old]\nhost=b\n[team]\nhost=db.example.com\n", encoding="utf-8")
    with pytest.raises(RecordUrlError, match=r"db\.example\.com"):
        parse("postgresql:///team?service=team", {"PGSERVICEFILE": str(other_twice), "PGSYSCONFDIR": str(home)})
    empty_host = libpq_view({"host": "", "dbname": "team"}, {"PGHOST": "db.example.com"})
    assert empty_host == {"dbname": "team", "host": "db.example.com"}  # an empty value is libpq's "not given"
    monkeypatch.setenv("PGHOST", "db.example.com")
    assert libpq_view({"dbname": "team"})["host"] == "db.example.com"  # no environment given: the process's


def test_a_service_given_twice_is_read_as_libpq_reads_it(tmp_path: Path) -> None:
    twice = tmp_path / "twice.conf"  # libpq 15 connects to db.example.com here, in plain text unless refused
    twice.write_text("[team]\nhost=db.example.com\n[team]\nhost=localhost\n", encoding="utf-8")
    with pytest.raises(RecordUrlError, match=r"db\.example\.com"):
        parse("postgresql:///team?service=team", {"PGSERVICEFILE": str(twice), "PGSYSCONFDIR": str(tmp_path)})


PASSWORD_HOME = ("Keep the password where libpq looks for it: the PGPASSWORD variable, ~/.pgpass (mode 0600), a "
                 "service file, or use peer or certificate authentication.")
REFUSED_URLS = {
    "mysql://a@b/c": "mysql://a@b/c is not a PostgreSQL URL: write postgresql://ROLE@HOST:PORT/DB.",
    "postgresql://alice:pw@db/team": f"The record URL holds a password (postgresql://alice:***@db/team); it is not "
                                     f"kept. {PASSWORD_HOME}",
    "postgresql://a@h/d?sslpassword=x": f"The record URL holds a password (postgresql://a@h/d?sslpassword=***); it is "
                                        f"not kept. {PASSWORD_HOME}",
    "postgresql://alice@localhost/team?port=1&&x": "postgresql://alice@localhost/team?port=1&x= is not a URL like "
                                                   "postgresql://ROLE@HOST:PORT/DB.",
    "postgresql://alice@db.example.com/team": (
        "The team record at db.example.com would be reached without TLS that checks the server (sslmode=prefer). "
        "Add ?sslmode=verify-full to the URL (the server's CA certificate in ~/.postgresql/root.crt or "
        "sslrootcert=FILE); plain connections are allowed to loopback and local sockets only, as plain HTTP is."),
    "postgresql://alice@db.example.com/team?sslmode=require": (
        "The team record at db.example.com would be reached with sslmode=require, which encrypts but does not check "
        "which server answers. Use ?sslmode=verify-full (the server's CA certificate in ~/.postgresql/root.crt or "
        "sslrootcert=FILE)."),
}


@pytest.mark.parametrize("url", list(REFUSED_URLS))
def test_every_refused_record_url_is_told_in_one_full_sentence(url: str) -> None:
    with pytest.raises(RecordUrlError) as refused:
        parse(url, {})
    assert str(refused.value) == REFUSED_URLS[url]


def test_a_record_url_names_its_database_and_role(monkeypatch: pytest.MonkeyPatch) -> None:
    verified = parse(" postgresql://alice@db:5432/team?sslmode=verify-full ", {})
    assert (verified.url, verified.hosts, verified.port, verified.database, verified.user, verified.sslmode) == (
        "postgresql://alice@db:5432/team?sslmode=verify-full", ("db",), "5432", "team", "alice", "verify-full")
    assert (verified.where, verified.role) == ("db:5432/team", "alice")
    monkeypatch.setenv("PGUSER", "carol")
    socket_url = parse("postgresql:///team", {})
    assert (socket_url.where, socket_url.role, socket_url.user) == ("local socket/team", "carol", "")
    bare = parse("postgresql://", {})  # libpq's defaults for everything: the fields are empty text, never None
    assert (bare.hosts, bare.port, bare.database, bare.user, bare.sslmode) == ((), "", "", "", "")
    assert parse("postgresql://alice@127.0.0.1/team?application_name=see://x", {}).database == "team"
    assert parse("postgres://127.0.0.1", {}).where == "127.0.0.1/(default database)"
    assert shown("postgresql://alice:pw@h/d?password=x&sslmode=require") == (
        "postgresql://alice:***@h/d?password=***&sslmode=require")
    assert shown("postgresql://[bad") == "(an unreadable URL)"
    assert shown("postgresql://alice:p@ss:w@rd@h/d?sslmode=&application_name=x") == (
        "postgresql://alice:***@h/d?sslmode=&application_name=x")  # a password holding @ and : is hidden whole


def test_every_host_of_a_record_url_is_checked_and_local_sockets_are_loopback() -> None:
    with pytest.raises(RecordUrlError, match=r"db\.example\.com would be reached without TLS"):
        parse("postgresql://alice@localhost,db.example.com/team", {})
    assert parse("postgresql:///team?host=@pg-abstract", {}).hosts == ("@pg-abstract",)
    assert parse("postgresql:///team?host=/run/postgresql,127.0.0.2", {}).hosts == ("/run/postgresql", "127.0.0.2")


def test_the_saved_record_url_is_read_back_only_when_it_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.storage.postgres import url as record_url

    monkeypatch.delenv(record_url.URL_VARIABLE, raising=False)
    assert record_url.forget() is False and record_url.chosen() is None
    record_url.save("postgresql://alice@127.0.0.1/team")
    setting = record_url.setting_file()
    assert json.loads(setting.read_text(encoding="utf-8")) == {"url": "postgresql://alice@127.0.0.1/team"}
    assert record_url.chosen() == ("postgresql://alice@127.0.0.1/team", str(setting))
    monkeypatch.setenv(record_url.URL_VARIABLE, " postgresql://bob@127.0.0.1/team ")
    assert record_url.chosen() == ("postgresql://bob@127.0.0.1/team", record_url.URL_VARIABLE)
    for kept in ('["postgresql://alice@127.0.0.1/team"]', '{"url": 5}', '{"url": "  "}', "{not json"):
        setting.write_text(kept, encoding="utf-8")
        assert record_url.saved() is None, kept
    assert record_url.forget() is True and not setting.exists()
    setting.mkdir()  # something in the way of the setting file: one line says what was not written
    with pytest.raises(NotWritten, match=r"^Could not write the record setting to .*record\.json: is a directory\.$"):
        record_url.save("postgresql://alice@127.0.0.1/team")


def test_without_the_team_extra_a_record_url_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as where psycopg is not installed: importing it fails
    with pytest.raises(RecordUrlError) as refused:
        parse("postgresql://alice@127.0.0.1/team", {})
    assert str(refused.value) == ("A team record URL needs PostgreSQL support: install stablepay-console[team] "
                                  "(pip install 'stablepay-console[team]').")


def test_hostaddr_off_loopback_needs_tls() -> None:
    # libpq connects to hostaddr, not host: a loopback host name beside an outside address is not loopback.
    with pytest.raises(RecordUrlError, match=r"10\.0\.0\.5 would be reached without TLS"):
        parse("postgresql://alice@localhost/team?hostaddr=10.0.0.5", {})
    with pytest.raises(RecordUrlError, match=r"10\.0\.0\.5 \(a host libpq takes from the environment"):
        parse("postgresql://alice@localhost/team", {"PGHOSTADDR": "10.0.0.5"})
    with pytest.raises(RecordUrlError, match="does not check which server answers"):
        parse("postgresql://alice@localhost/team?hostaddr=10.0.0.5&sslmode=require", {})
    assert parse("postgresql://alice@localhost/team?hostaddr=10.0.0.5&sslmode=verify-full", {}).hosts == (
        "localhost", "10.0.0.5")
    assert parse("postgresql://alice@localhost/team?hostaddr=127.0.0.1", {}).sslmode == ""


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a stopped server behind a live kernel)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(2)
    for s in held:
        s.close()
    listener.close()


def test_a_server_that_accepts_and_never_answers_ends_the_call_with_a_message(silent_server: int) -> None:
    url = parse(f"postgresql://alice@127.0.0.1:{silent_server}/team")
    with pytest.raises(RecordUnavailable, match="cannot be reached"):
        record_pg_conn.connect(url, timeout=2)


class FreezingProxy:
    """A TCP relay to the real server that can stop relaying (the server wedged, the socket still open)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.frozen = threading.Event()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if self.frozen.is_set():
                    return  # swallow: nothing comes back, the socket stays open
                sink.sendall(data)
        except OSError:
            return

    def close(self) -> None:
        self.listener.close()


def test_a_server_that_stops_answering_mid_session_fails_the_call(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stablepay_console.storage.postgres import store as record_pg

    proxy = FreezingProxy(team_db.server.port)
    try:
        alice = PgRecord(parse(f"postgresql://alice@127.0.0.1:{proxy.port}/{team_db.name}"), lambda n: SERVER)
        alice.notes("prod", RFI)
        monkeypatch.setattr(record_pg, "ANSWER_SECONDS", 2.0)
        alice.check_after = 3600.0
        proxy.frozen.set()
        with pytest.raises(RecordUnavailable, match="connection failed"):
            alice.notes("prod", RFI)
    finally:
        proxy.close()


# --- the connection itself -----------------------------------------------------------------------------------------


def test_a_connection_names_itself_carries_its_limits_and_keeps_nothing_uncommitted(team_db: TeamDb) -> None:
    """What a DBA sees (the console's name), the server's and the socket's limits, and the session's set-up (UTC)
    committed apart: an act is kept only once committed, and rolling it back keeps the set-up."""
    conn = record_pg_conn.connect(parse(team_db.url("alice")))
    try:
        used = conn.info.get_parameters()
        assert {k: used.get(k) for k in ("application_name", "connect_timeout", "options", "keepalives",
                                         "keepalives_idle", "keepalives_interval", "keepalives_count",
                                         "tcp_user_timeout")} == {
            "application_name": "stablepay-console", "connect_timeout": "10",
            "options": "-c statement_timeout=15000 -c lock_timeout=3000", "keepalives": "1", "keepalives_idle": "10",
            "keepalives_interval": "5", "keepalives_count": "3", "tcp_user_timeout": "20000"}
        assert conn.execute("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()"
                            ).fetchone() == ("stablepay-console",)
        assert conn.execute("SHOW statement_timeout").fetchone() == ("15s",)
        assert conn.execute("SHOW lock_timeout").fetchone() == ("3s",)
        conn.execute("INSERT INTO stablepay.notes (server, rfi_id, profile, text) VALUES (%s, %s, 'prod', 'x')",
                     (SERVER, RFI))
        conn.rollback()
        assert conn.execute("SHOW TimeZone").fetchone() == ("UTC",)
    finally:
        conn.close()
    with team_db.connect() as owner:
        assert owner.execute("SELECT count(*) FROM stablepay.notes").fetchone() == (0,)


def test_a_connection_that_went_off_loopback_without_tls_is_closed_before_anything_is_sent(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The URL passed the TLS rule on loopback; by the time libpq connects, PGHOST says 0.0.0.0 (no loopback
    address, though it reaches this machine): the connection libpq made is checked again, and closed."""
    monkeypatch.setenv("PGHOST", "127.0.0.1")
    monkeypatch.setenv("PGPORT", str(team_db.server.port))
    url = parse(f"postgresql:///{team_db.name}?user=alice")
    monkeypatch.setenv("PGHOST", "0.0.0.0")
    with pytest.raises(RecordUnavailable) as refused:
        record_pg_conn.connect(url)
    assert str(refused.value) == (f"The team record at {url.where} was reached at 0.0.0.0 without TLS; the "
                                  "connection was closed before anything was sent.")
    with team_db.connect() as owner:
        assert wait_for(lambda: owner.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = 'alice'"
                                              ).fetchone() == (0,), 10), "the session was closed"


def test_a_browser_consoles_connection_acts_as_its_person_or_says_why_it_cannot(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from psycopg import sql

    auth = f"web_auth_{team_db.name[-10:]}"
    with team_db.connect() as owner:  # the web server's login: no rights of its own, may act as alice only
        owner.execute(sql.SQL("CREATE ROLE {} LOGIN NOINHERIT").format(sql.Identifier(auth)))
        owner.execute(sql.SQL("GRANT alice TO {}").format(sql.Identifier(auth)))
        owner.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(team_db.name),
                                                                        sql.Identifier(auth)))
    url = parse(team_db.url(auth))
    monkeypatch.setenv(record_pg_conn.ROLE_VARIABLE, "alice")
    conn = record_pg_conn.connect(url)
    try:
        conn.rollback()  # the role was set with the session, not with the first act
        assert conn.execute("SELECT current_user, session_user").fetchone() == ("alice", auth)
    finally:
        conn.close()
    monkeypatch.setenv(record_pg_conn.ROLE_VARIABLE, "bob")
    with pytest.raises(RecordUnavailable) as refused:
        record_pg_conn.connect(url)
    assert str(refused.value) == f'The team record at {url.where} cannot be used: permission denied to set role "bob"'


class QuietAfterStartup(FreezingProxy):
    """A relay that lets the start-up through, then stops relaying at the first query (the server wedged)."""

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if data[:1] in (b"P", b"Q") and source.getpeername()[1] != self.target:  # a client's query
                    self.frozen.set()
                if self.frozen.is_set():
                    return
                sink.sendall(data)
        except OSError:
            return


def test_a_server_that_stops_answering_during_the_set_up_ends_the_connection_with_a_message(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = QuietAfterStartup(team_db.server.port)
    try:
        monkeypatch.setattr(record_pg_conn, "ANSWER_SECONDS", 1.0)
        url = parse(f"postgresql://alice@127.0.0.1:{proxy.port}/{team_db.name}")
        with pytest.raises(RecordUnavailable, match=r"cannot be used: "):
            record_pg_conn.connect(url)
        assert proxy.frozen.is_set(), "the start-up went through and the set-up's query was held"
    finally:
        proxy.close()


def test_a_login_outside_the_team_is_told_who_may_connect_and_what_an_admin_grants(team_db: TeamDb) -> None:
    url = parse(team_db.url("mallory"))
    with pytest.raises(RecordError) as refused:
        record_pg_conn.connect(url)
    assert str(refused.value) == (
        f'The team record at {url.where} refused the connection of mallory: permission denied for database '
        f'"{team_db.name}". Only members of stablepay_analyst, stablepay_lead and stablepay_watcher may connect; an '
        "admin grants one (GRANT stablepay_analyst TO mallory;).")


def test_a_server_that_is_down_is_named_in_libpqs_own_words(team_db: TeamDb) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nobody listens here once it is closed
    url = parse(f"postgresql://alice@127.0.0.1:{port}/team")
    with pytest.raises(RecordUnavailable) as down:
        record_pg_conn.connect(url)
    assert str(down.value).startswith(
        f'The team record at 127.0.0.1:{port}/team cannot be reached: connection to server at "127.0.0.1", '
        f"port {port} failed: Connection refused")


def test_a_refusal_or_failure_is_said_in_its_first_line_cleaned_and_cut(team_db: TeamDb) -> None:
    url = parse(team_db.url("alice"))
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege) as refused:
            conn.execute("UPDATE stablepay.triage_policy SET claim_within = interval '1 hour'")
        said = record_pg_conn.problem(refused.value, url, "change the service levels")
        assert isinstance(said, record_pg_conn.RecordRefused)
        assert str(said) == (f"The team record at {url.where} refused to change the service levels: permission "
                             "denied for table triage_policy.")
        with pytest.raises(psycopg.errors.RaiseException) as long:
            conn.execute("DO $$ BEGIN RAISE EXCEPTION '%', repeat('x', 500) || chr(27) || '[2J'; END $$")
    assert record_pg_conn.reason(long.value) == "x" * 299 + "…"
    assert record_pg_conn.reason(OSError("the network went away\nand more")) == "the network went away"
    assert record_pg_conn.reason(OSError("\n  \n")) == "OSError"  # no words: named by its kind
    assert record_pg_conn.reason(OSError()) == "OSError"


# --- migrations -------------------------------------------------------------------------------------------------


def test_a_version_1_record_moves_to_version_2_with_nothing_lost(bare_db: TeamDb, monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    from stablepay_console.storage.postgres import schema as record_pg_schema

    every = record_pg_schema.migrations()
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every[:1])
    with bare_db.connect(OWNER) as conn:
        init_schema(conn)
    with bare_db.connect() as conn:  # the version-1 roles' members
        conn.execute(f'GRANT CONNECT ON DATABASE "{bare_db.name}" TO PUBLIC')
    entries: list[AuditEntry] = []
    with bare_db.connect("alice") as conn:  # what version-1 consoles wrote, and alice's forgery in carol's name
        prev = "0" * 64
        for seq, actor in ((1, "alice"), (2, "alice")):
            unsigned = AuditEntry(seq, f"2026-11-2{seq}T09:00:00.000+00:00", actor, "prod", "production", "ping", "",
                                  "ok", "{}", prev, "")
            made = AuditEntry(*list(unsigned.content().values()), prev_hash=prev,
                              hash=entry_hash(prev, unsigned.content()))
            conn.execute("INSERT INTO stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, "
                         "detail, prev_hash, hash) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                         (made.seq, made.at, made.actor, made.profile, made.environment, made.action, made.target,
                          made.outcome, made.detail, made.prev_hash, made.hash))
            entries.append(made)
            prev = made.hash
        conn.execute("INSERT INTO stablepay.notes (server, rfi_id, text) VALUES (%s, %s, 'mine')", (SERVER, RFI))
        conn.execute("INSERT INTO stablepay.notes (server, rfi_id, author, at, text, imported_from) "
                     "VALUES (%s, %s, 'carol', '2020-01-01', 'approved', 'x')", (SERVER, RFI))
        conn.execute("INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, first_seen, "
                     "last_seen) VALUES (%s, %s, 'production', 'resolved', 'f', '{}', 'x', 'x')", (SERVER, RFI))
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every)
    with bare_db.connect(OWNER) as conn:
        report = init_schema(conn)
    assert (report.before, report.after) == (1, LATEST)
    alice = record(bare_db, "alice")
    assert [(e.seq, e.hash) for e in alice.audit()] == [(e.seq, e.hash) for e in entries]
    alice.append_audit(draft())
    assert verify(alice).ok and len(alice.audit()) == 3
    forged, mine = alice.notes("prod", RFI)  # in the order written: the forgery claimed 2020
    assert (mine.author, mine.imported) == ("alice", None)
    assert forged.author == "alice" and forged.imported is not None and forged.imported.written_as == "carol"
    assert forged.imported.describe() == "imported by alice from a local record, where it was written as carol"
    assert alice.issued("prod") == [], "a version-1 analyst's word is not the watcher's"
    with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
        bare_db.connect("mallory")


def test_an_imported_entry_reads_as_the_importers_testimony_in_the_audit_log(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stablepay_console.cli.main import main

    forged = {"entries": [{"profile": "prod", "environment": "production", "action": "claim", "target": RFI,
                           "outcome": "ok", "detail": '{"written_as": "carol", "written_at": "2020-01-01"}',
                           "server": SERVER, "hash": "h1"}]}
    with team_db.connect("alice") as conn:
        conn.execute("SELECT stablepay.import_local('laptop', %s)", (psycopg.types.json.Jsonb(forged),))
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("bob"))
    capsys.readouterr()
    assert main(["audit", "log"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[:3] == ["SEQ", "TIME", "ACTOR"]
    assert "  alice (imported: carol)  " in row, row  # never carol's act, nor alice's own
    assert main(["audit", "log", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["actor"] == "alice"
    said = entry["imported"]["description"]
    assert said.startswith("imported by alice on ") and said.endswith("where it was written as carol"), said


def test_init_without_createrole_names_the_privilege_then_the_dbas_sql_lets_it_finish(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """On a server of its own: the group roles are the cluster's, and here a DBA has not made them yet."""
    from psycopg import sql

    from stablepay_console.cli.main import main
    from tests.postgres import start_server

    server, root = start_server()
    try:
        with server.connect() as conn:
            conn.execute("CREATE ROLE plain_owner LOGIN")
            conn.execute("CREATE DATABASE team OWNER plain_owner")
        url = server.url("plain_owner", "team")
        assert main(["record", "init", url]) == 1
        said = capsys.readouterr()
        assert "lacks the CREATEROLE privilege" in said.err and "--print-sql" in said.err
        assert "Traceback" not in said.err + said.out
        assert main(["record", "init", url, "--print-sql"]) == 0
        printed = capsys.readouterr().out
        assert printed.index("CREATE ROLE") < printed.index("CREATE SCHEMA stablepay")
        assert 'REVOKE CONNECT ON DATABASE "team" FROM PUBLIC' in printed
        dba_part = printed.split("-- 2.")[0]
        with server.connect() as conn:  # the DBA runs the first part, as printed
            for statement in (line for line in dba_part.splitlines() if line and not line.startswith("--")):
                conn.execute(statement.encode())
            conn.execute(sql.SQL("CREATE ROLE ann LOGIN IN ROLE stablepay_analyst"))
        assert main(["record", "init", url]) == 0
        assert f"schema version {LATEST} (was none)" in capsys.readouterr().out
        assert record_for(server.url("ann", "team")).whoami() == ("ann", False)
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def record_for(url: str) -> PgRecord:
    return PgRecord(parse(url), lambda name: SERVER if name else "")
