"""A member who wants to stop or confuse the team, not only to lie: each finding replayed as it was met, `psql` as
that member's own login (a plain psycopg connection as bob, carol or walt).

- one statement froze every write: `SELECT pg_advisory_lock(...)` of the audit chain's key (or of a request's, for
  its steps). Now no lock a member can take (any advisory key, any row their privileges let them lock, any table
  they may lock) stops another member's note, claim, step or assignment for more than a few seconds, and a wait
  that long says the record is busy;
- one typed entry broke the log for everyone: 100,000 `[` as its detail. Now the database bounds what a member
  types, and every reader shows what it cannot read as "unreadable entry";
- a typed entry passed for an act by its spelling (`'claim.release '`). Now no spelling of the database's own acts
  is accepted, and `audit log` marks what a member typed;
- a stale snapshot approved a closed request: a REPEATABLE READ transaction begun before the watcher recorded the
  close. Now a step on a request the watcher closed is refused in any isolation level, and the console says so;
- the watcher's own `record status` said the record was unreachable. Now every role's works.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg
import pytest

from stablepay_console.cli.main import main
from stablepay_console.services.audit import verify
from stablepay_console.storage.postgres.connection import LOCK_MS, RecordBusy
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record_types import AuditDraft, RfiSighting, RoundSighting, SeenPage
from tests.conftest import FIXED_NOW
from tests.postgres import OWNER, TeamDb, wait_for

pytestmark = pytest.mark.postgres

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
OTHER = "7a2c0f55-3b1e-4d7c-9a0e-5f6b7c8d9e0f"
SERVER = "production https://api.stablepay.example"
BUSY_WITHIN = 3 * LOCK_MS / 1000
"""A write that meets a held lock gives up after LOCK_MS at each lock it waits for (a step meets at most two)."""


def record(db: TeamDb, role: str, server: str = SERVER) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: server if name else "")


def cli(*argv: str) -> int:
    return main(list(argv))


def seen_by_the_watcher(db: TeamDb, *rfis: str, status: str = "issued", server: str = SERVER) -> PgRecord:
    walt = record(db, "walt", server)
    round_ = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":'
                              '"2026-11-27T09:00:00Z","submittedAt":null,"link":"https://x.example/l"}', "rf")
    walt.observe([SeenPage("prod", "production", FIXED_NOW, tuple(
        RfiSighting(r, status, f"f-{r}-{status}", json.dumps({"id": r, "status": status}), round_) for r in rfis))])
    return walt


ADVISORY_KEYS = (
    "SELECT pg_advisory_lock(1397769038)",  # the audit chain's, as found
    "SELECT pg_advisory_lock(1397770573)",  # the import's
    "SELECT pg_advisory_lock(hashtextextended(%(server)s || ' ' || %(rfi)s, 1397772371))",  # a request's steps
    "SELECT pg_advisory_lock(hashtextextended(%(server)s || ' ' || %(other)s, 1397772371))",
    "SELECT pg_advisory_lock(21328, hashtext(%(server)s))",  # the watcher's sightings of a server
    "SELECT pg_advisory_lock(1397771591)",  # record init's
)


@contextmanager
def holding_everything(db: TeamDb, roles: tuple[str, ...], table_locks: bool) -> Iterator[list[str]]:
    """Each role's psql holds every advisory key the record's functions used, locks every row its privileges let
    it lock (FOR UPDATE, else FOR SHARE) on every table of the record, and with `table_locks` every table it may
    lock in the strongest mode it may; all held until the block ends. What each took is returned."""
    taken: list[str] = []
    keys = {"server": SERVER, "rfi": RFI, "other": OTHER}
    with ExitStack() as stack:
        for role in roles:
            conn = stack.enter_context(db.connect(role))
            conn.execute("SET lock_timeout = '200ms'")  # what another attacker holds already is held
            for statement in ADVISORY_KEYS:  # the first role takes each key (advisory keys are exclusive)
                try:
                    conn.execute(statement, keys)
                except psycopg.errors.LockNotAvailable:
                    continue
                taken.append(f"{role}: {statement}")
            conn.execute("BEGIN")
            tables = [t for (t,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'stablepay' ORDER BY 1").fetchall()]
            for table in tables:
                for how in ("FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"):
                    conn.execute("SAVEPOINT try")
                    try:
                        rows = conn.execute(f"SELECT 1 FROM stablepay.{table} {how}").fetchall()
                    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.LockNotAvailable):
                        conn.execute("ROLLBACK TO SAVEPOINT try")
                        continue
                    conn.execute("RELEASE SAVEPOINT try")
                    taken.append(f"{role}: {len(rows)} rows of {table} {how}")
                    break
                if not table_locks:
                    continue
                for mode in ("ACCESS EXCLUSIVE", "EXCLUSIVE", "SHARE ROW EXCLUSIVE", "SHARE", "SHARE UPDATE EXCLUSIVE"):
                    conn.execute("SAVEPOINT try")
                    try:
                        conn.execute(f"LOCK TABLE stablepay.{table} IN {mode} MODE")
                    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.LockNotAvailable):
                        conn.execute("ROLLBACK TO SAVEPOINT try")
                        continue
                    conn.execute("RELEASE SAVEPOINT try")
                    taken.append(f"{role}: {table} in {mode} mode")
                    break
        yield taken


def timed(work) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.monotonic()
    try:
        done: object = work()
    except RecordBusy as exc:
        done = exc
    return time.monotonic() - start, done


def note_with_its_entry(alice: PgRecord, text: str) -> object:
    """What the console does for a note: the note and its audit entry, one transaction."""
    with alice.transaction():
        note = alice.add_note("prod", RFI, "", text, FIXED_NOW)
        alice.append_audit(AuditDraft(FIXED_NOW, "", "prod", "production", "note.add", RFI, "added", {"chars": 4}))
    return note


# --- 1. no member can stop another's work --------------------------------------------------------------------


def test_every_advisory_key_and_every_row_a_member_may_lock_stop_no_note_claim_step_or_assignment(
    team_db: TeamDb,
) -> None:
    """As found: `SELECT pg_advisory_lock(1397769038)` from any member's psql, and every other member's note, claim
    and step waited for statement_timeout and failed; a request's own key (its steps' and its assignment's, until
    schema 9) stopped every step of that request the same way. Now they are saved, and a lead's assignment too,
    while bob, carol (a lead) and walt (the watcher) hold every advisory key the record ever used and every row
    their privileges let them lock."""
    seen_by_the_watcher(team_db, RFI, OTHER)
    alice, carol = record(team_db, "alice"), record(team_db, "carol")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    with holding_everything(team_db, ("bob", "carol", "walt"), table_locks=False) as taken:
        assert any("1397769038" in t for t in taken) and any("rows of rfis FOR UPDATE" in t for t in taken)
        assert any("1397772371" in t and "%(rfi)s" in t for t in taken), "the request's own key is held"
        note_seconds, note = timed(lambda: note_with_its_entry(alice, "kept"))
        claim_seconds, claim = timed(lambda: alice.claim("prod", OTHER, "", FIXED_NOW))
        step_seconds, step = timed(lambda: alice.add_triage_step("prod", RFI, "ready", "", "", FIXED_NOW))
        assign_seconds, assigned = timed(lambda: carol.assign("prod", OTHER, "bob"))
        watcher_seconds, sighted = timed(lambda: seen_by_the_watcher(team_db, "a-third-request"))
    assert not isinstance(note, RecordBusy) and note_seconds < LOCK_MS / 1000, "the chain takes no member's key"
    assert not isinstance(claim, RecordBusy) and claim.done  # type: ignore[attr-defined]
    assert claim_seconds < LOCK_MS / 1000
    assert not isinstance(step, RecordBusy) and step_seconds < LOCK_MS / 1000, "a request's steps take no key"
    assert step.step == "ready" and step.actor == "alice"  # type: ignore[attr-defined]
    assert not isinstance(assigned, RecordBusy) and assign_seconds < LOCK_MS / 1000, "nor does its assignment"
    assert assigned.done and assigned.claim.claimant == "bob"  # type: ignore[attr-defined]
    assert not isinstance(sighted, RecordBusy) and watcher_seconds < LOCK_MS / 1000, "nor do the watcher's sightings"
    assert [n.text for n in alice.notes("prod", RFI)] == ["kept"]
    assert alice.triage_case("prod", RFI).steps[-1].step == "ready"
    assert verify(alice).ok


def test_a_table_a_member_may_lock_makes_the_others_busy_for_seconds_never_hung(
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    """The strongest table locks members may take (an analyst may lock claims, the watcher the requests): each
    write succeeds or gives up within seconds, saying in one line that the record is busy and what was not saved."""
    seen_by_the_watcher(team_db, RFI, OTHER)
    alice = record(team_db, "alice")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    with holding_everything(team_db, ("bob", "carol", "walt"), table_locks=True) as taken:
        assert any("claims in ACCESS EXCLUSIVE mode" in t for t in taken)
        outcomes = [timed(lambda: note_with_its_entry(alice, "kept")),
                    timed(lambda: alice.claim("prod", OTHER, "", FIXED_NOW)),
                    timed(lambda: alice.add_triage_step("prod", RFI, "ready", "", "", FIXED_NOW))]
        start = time.monotonic()
        assert cli("rfis", "claim", OTHER) == 1
        shell_seconds = time.monotonic() - start
    for seconds, outcome in outcomes:
        assert seconds < BUSY_WITHIN
        if isinstance(outcome, RecordBusy):
            assert "is busy: another session has held what this needs for over 3 s" in str(outcome)
            assert "Nothing was saved" in str(outcome)
    assert any(isinstance(outcome, RecordBusy) for _, outcome in outcomes), "a locked claims table is met"
    err = capsys.readouterr().err
    assert shell_seconds < BUSY_WITHIN + 5
    assert "is busy" in err and "could not" in err and "Nothing was saved" in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "busy" in line]) == 1


def test_only_the_owners_functions_lock_the_records_own_rows(team_db: TeamDb) -> None:
    """The chain's head, the import's row, the sightings' rows and the requests' rows: members never lock them, nor
    call what does."""
    for role in ("bob", "carol", "walt"):
        with team_db.connect(role) as conn:
            for statement in ("SELECT 1 FROM stablepay.audit_head FOR UPDATE",
                              "SELECT 1 FROM stablepay.audit_head FOR KEY SHARE",
                              "SELECT 1 FROM stablepay.import_held FOR UPDATE",
                              "SELECT 1 FROM stablepay.sightings_held FOR UPDATE",
                              "SELECT 1 FROM stablepay.request_held FOR UPDATE",
                              "SELECT 1 FROM stablepay.request_held FOR KEY SHARE",
                              "SELECT stablepay.hold_chain()",
                              f"SELECT stablepay.hold_request('{SERVER}', '{RFI}')"):
                with conn.transaction(force_rollback=True), pytest.raises(psycopg.errors.InsufficientPrivilege):
                    conn.execute(statement)
    # Refused by the privilege itself (EXECUTE is the watcher's alone), before the function's own check of who calls.
    with team_db.connect("bob") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege,
                                                       match="permission denied for function hold_sightings"):
        conn.execute("SELECT stablepay.hold_sightings(ARRAY[%s])", (SERVER,))


# --- 2. what a member types stays small; what cannot be read says so -------------------------------------------------


def typed(db: TeamDb, role: str, action: str = "link.copy", detail: str = "{}", outcome: str = "ok") -> None:
    with db.connect(role) as conn:
        conn.execute("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                     "VALUES ('prod', 'production', %s, %s, %s, %s, %s)", (action, RFI, outcome, detail, SERVER))


@pytest.mark.parametrize(("detail", "said"), [
    ("[" * 100_000, "holds at most 20000 bytes"),  # as found
    ('{"a":' * 21 + "1" + "}" * 21, "nests at most 20 deep"),
    ('{"a":"' + "x" * 20_000 + '"}', "holds at most 20000 bytes"),
    ("not json", "is a JSON object; this one is not JSON"),
    ("[1, 2]", "is a JSON object, not array"),
    ("{" * 500, "nests at most 20 deep"),
], ids=["100,000 [ as found", "21 deep", "20,001 bytes", "not json", "a list", "500 {"])
def test_the_database_refuses_a_typed_detail_too_big_too_deep_or_not_an_object(
    team_db: TeamDb, detail: str, said: str,
) -> None:
    with pytest.raises(psycopg.errors.CheckViolation, match=said):
        typed(team_db, "bob", detail=detail)
    typed(team_db, "bob", detail='{"a":' * 19 + '"[[[{{{"' + "}" * 19)  # 19 deep, brackets in a string count none
    assert verify(record(team_db, "alice")).ok


def written_before_schema_8(db: TeamDb, action: str, detail: str, outcome: str = "ok", target: str = RFI,
                            server: str = SERVER) -> None:
    """An entry the log already holds from before the bounds (the owner's superuser puts one there, chained)."""
    with db.connect() as conn, conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("""
            INSERT INTO stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, detail,
                prev_hash, hash, server)
            SELECT h.count + 1, '2026-11-20T10:00:00.000+00:00', 'bob', 'prod', 'production', %(action)s, %(target)s,
                %(outcome)s, %(detail)s, h.hash,
                stablepay.entry_hash(h.hash, h.count + 1, '2026-11-20T10:00:00.000+00:00', 'bob', 'prod',
                    'production', %(action)s, %(target)s, %(outcome)s, %(detail)s), %(server)s
            FROM stablepay.audit_head h""",
                     {"action": action, "detail": detail, "outcome": outcome, "target": target, "server": server})
        conn.execute("UPDATE stablepay.audit_head SET count = a.seq, hash = a.hash FROM "
                     "(SELECT seq, hash FROM stablepay.audit ORDER BY seq DESC LIMIT 1) a")


def test_an_entry_already_in_the_log_that_cannot_be_read_is_shown_as_unreadable_never_a_traceback(
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str], tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    """As found: an entry whose detail is 100,000 `[` made `audit log --json` and the request's evidence pack die
    with a RecursionError for the whole team (the log is append-only: it stays)."""
    assert cli("rfis", "note", RFI, "first") == 0
    with team_db.connect() as conn:
        row = conn.execute("SELECT server FROM stablepay.notes").fetchone()
    assert row is not None
    written_before_schema_8(team_db, "link.copy", "[" * 100_000, server=row[0])
    capsys.readouterr()
    assert cli("audit", "log", "--json") == 0
    out, err = capsys.readouterr()
    shown = json.loads(out)
    assert [e["detail"] for e in shown if e["action"] == "link.copy"] == ["unreadable entry"]
    assert "Traceback" not in err
    assert cli("audit", "log") == 0
    assert cli("rfis", "evidence", RFI, "--output", str(tmp_path / "pack")) == 0
    kept = json.loads((tmp_path / "pack" / "audit.json").read_text())
    assert "unreadable entry" in [e["detail"] for e in kept["entries"]]
    assert cli("audit", "verify") == 0, "the chain itself is whole"


# --- 3. a typed entry never passes for an act ---------------------------------------------------------------------


@pytest.mark.parametrize("action", [
    "claim.release ", "claim ", " claim", "Claim", "CLAIM.RELEASE", "claim\u00a0", "claim.release\n", "claim\x01",
    "triage.approve\t", "Triage.approve", "triage.approve.", "сlaim",  # a Cyrillic с
    "claim.releases", "triage", "triage.", "claim..release", "",
])
def test_no_spelling_of_an_act_the_database_writes_is_accepted_typed(team_db: TeamDb, action: str) -> None:
    """As found: `'claim.release '` (a trailing space) or `'claim '` was accepted and printed like a real release."""
    with pytest.raises((psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege)):
        typed(team_db, "bob", action=action, outcome="released alice's")


def test_typed_entries_keep_the_known_shape_and_a_refusal_may_still_be_noted(team_db: TeamDb) -> None:
    for action in ("note.add", "link.copy", "record.import", "evidence.write", "ping"):
        typed(team_db, "bob", action=action)
    typed(team_db, "bob", action="claim.release", outcome="refused: claimed by alice")
    for action in ("note add", "note.add;drop", "x" * 65, "note.Add"):
        with pytest.raises(psycopg.errors.CheckViolation, match="lower-case words joined by dots"):
            typed(team_db, "bob", action=action)
    with pytest.raises(psycopg.errors.CheckViolation, match="at most 2000 characters"):
        typed(team_db, "bob", outcome="x" * 2001)


def test_the_audit_log_marks_what_a_member_typed(
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    """The database's own entry of a release reads as bob's act; what bob typed says so, and so does an entry typed
    before the shape was enforced ('claim.release ' with its trailing space)."""
    as_role("bob")
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "release", RFI) == 0
    with team_db.connect() as conn:
        row = conn.execute("SELECT server FROM stablepay.claim_log LIMIT 1").fetchone()
    assert row is not None
    typed(team_db, "bob", action="link.copy")
    written_before_schema_8(team_db, "claim.release ", "{}", outcome="released alice's", server=row[0])
    capsys.readouterr()
    assert cli("audit", "log", "--json") == 0
    shown = {e["seq"]: e for e in json.loads(capsys.readouterr().out)}
    assert [(e["action"], e["typed"]) for e in shown.values()] == [
        ("claim", False), ("claim.release", False), ("link.copy", True), ("claim.release ", True)]
    assert cli("audit", "log") == 0
    lines = capsys.readouterr().out.splitlines()
    assert [("(typed)" in line) for line in lines if RFI in line] == [False, False, True, True]


def test_a_requests_steps_and_its_assignment_wait_for_each_other(team_db: TeamDb) -> None:
    """Serialised on the request's row (no longer a key): carol's assignment under way holds alice's step, which then
    reads that the request is bob's now and is refused."""
    seen_by_the_watcher(team_db, RFI)
    assert record(team_db, "alice").claim("prod", RFI, "", FIXED_NOW).done
    with team_db.connect("carol") as carol, team_db.connect("alice") as alice:
        pid = alice.info.backend_pid
        carol.execute("BEGIN")
        carol.execute("SELECT * FROM stablepay.assign(%s, 'prod', %s, 'bob')", (SERVER, RFI))
        refused: list[BaseException] = []

        def ready() -> None:
            try:
                alice.execute("INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, 'ready')",
                              (SERVER, RFI))
            except psycopg.Error as exc:
                refused.append(exc)

        waiting = threading.Thread(target=ready)
        waiting.start()
        with team_db.connect() as owner:
            assert wait_for(lambda: owner.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted",
                                                  (pid,)).fetchone() == (1,)), "the step waits for the assignment"
        carol.execute("COMMIT")
        waiting.join(10)
    assert [type(e) for e in refused] == [psycopg.errors.InsufficientPrivilege]
    assert "is claimed by bob" in str(refused[0])
    assert kept(team_db, RFI) == ([], [("triage.assign", "assigned to bob (taken from alice)")])


# --- 4. four eyes in any isolation level --------------------------------------------------------------------------

CLOSED_SINCE = "could not serialize access due to concurrent update"
STEP = "INSERT INTO stablepay.triage (server, rfi_id, step) VALUES (%s, %s, %s)"


def made_ready(db: TeamDb, server: str = SERVER) -> None:
    """RFI claimed by alice and made ready (bob may approve it); OTHER claimed by alice, not yet ready."""
    seen_by_the_watcher(db, RFI, OTHER, server=server)
    alice = record(db, "alice", server)
    assert alice.claim("prod", RFI, "", FIXED_NOW).done and alice.claim("prod", OTHER, "", FIXED_NOW).done
    alice.add_triage_step("prod", RFI, "ready", "", "", FIXED_NOW)


def kept(db: TeamDb, rfi: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The request's steps, and its steps' audit entries (action, outcome), as the owner reads them."""
    with db.connect() as conn:
        steps = [s for (s,) in conn.execute("SELECT step FROM stablepay.triage WHERE rfi_id = %s ORDER BY id",
                                            (rfi,)).fetchall()]
        entries = conn.execute("SELECT action, outcome FROM stablepay.audit WHERE target = %s AND action LIKE "
                               "'triage.%%' ORDER BY seq", (rfi,)).fetchall()
    return steps, [(str(a), str(o)) for a, o in entries]


@pytest.mark.parametrize("level", ["REPEATABLE READ", "SERIALIZABLE"])
@pytest.mark.parametrize(("who", "rfi", "step"), [("bob", RFI, "approve"), ("alice", OTHER, "ready")],
                         ids=["approve", "ready"])
def test_a_snapshot_taken_before_the_watcher_closed_the_request_takes_no_step_on_it(
    team_db: TeamDb, level: str, who: str, rfi: str, step: str,
) -> None:
    """As found: a REPEATABLE READ transaction begun before the watcher recorded the request as submitted still
    approved it (no audit entry was written meanwhile). From psql as the member's own login: the snapshot is
    fixed, the watcher records the close, then the step: refused, and nothing of it is kept."""
    made_ready(team_db)
    before = kept(team_db, rfi)
    with team_db.connect(who) as conn:
        conn.execute(f"BEGIN ISOLATION LEVEL {level}")
        assert conn.execute("SELECT status FROM stablepay.rfis WHERE rfi_id = %s", (rfi,)).fetchone() == ("issued",)
        seen_by_the_watcher(team_db, RFI, OTHER, status="submitted")
        assert conn.execute("SELECT status FROM stablepay.rfis WHERE rfi_id = %s", (rfi,)).fetchone() == ("issued",)
        with pytest.raises(psycopg.errors.SerializationFailure, match=CLOSED_SINCE):
            conn.execute(STEP, (SERVER, rfi, step))
        conn.execute("ROLLBACK")
    assert kept(team_db, rfi) == before
    with team_db.connect(who) as conn, pytest.raises(psycopg.errors.CheckViolation, match="is closed"):
        conn.execute(STEP, (SERVER, rfi, step))  # begun after: it reads the close
    assert verify(record(team_db, "alice")).ok


@pytest.mark.parametrize("level", ["REPEATABLE READ", "SERIALIZABLE"])
def test_a_snapshot_taken_before_the_watcher_first_saw_the_request_closed_takes_no_step_on_it(
    team_db: TeamDb, level: str,
) -> None:
    """The same for a request the watcher had never seen (its steps name their round): its first sighting, as
    closed, moves the request's row as a change of status does, so the older snapshot cannot approve it."""
    alice = record(team_db, "alice")
    assert alice.claim("prod", RFI, "", FIXED_NOW).done
    alice.add_triage_step("prod", RFI, "ready", "", "", FIXED_NOW)
    before = kept(team_db, RFI)
    with team_db.connect("bob") as conn:
        conn.execute(f"BEGIN ISOLATION LEVEL {level}")
        assert conn.execute("SELECT count(*) FROM stablepay.rfis WHERE rfi_id = %s", (RFI,)).fetchone() == (0,)
        seen_by_the_watcher(team_db, RFI, status="submitted")
        with pytest.raises(psycopg.errors.SerializationFailure, match=CLOSED_SINCE):
            conn.execute(STEP, (SERVER, RFI, "approve"))
        conn.execute("ROLLBACK")
    assert kept(team_db, RFI) == before
    with team_db.connect("bob") as conn, pytest.raises(psycopg.errors.CheckViolation, match="is closed"):
        conn.execute(STEP, (SERVER, RFI, "approve"))


def test_read_committed_waits_for_the_watchers_close_and_reads_it(team_db: TeamDb) -> None:
    """READ COMMITTED, as a console runs: a step begun while the watcher records the close waits for it (on the
    request's row), then reads the close and is refused; a step after it is refused as before."""
    made_ready(team_db)
    before = kept(team_db, RFI)
    with team_db.connect("walt") as walt, team_db.connect("bob") as bob:
        pid = bob.info.backend_pid
        bob.execute("BEGIN")
        assert bob.execute("SELECT status FROM stablepay.rfis WHERE rfi_id = %s", (RFI,)).fetchone() == ("issued",)
        walt.execute("BEGIN")
        walt.execute("UPDATE stablepay.rfis SET status = 'submitted' WHERE rfi_id = %s", (RFI,))
        refused: list[BaseException] = []

        def approve() -> None:
            try:
                bob.execute(STEP, (SERVER, RFI, "approve"))
            except psycopg.Error as exc:
                refused.append(exc)

        waiting = threading.Thread(target=approve)
        waiting.start()
        with team_db.connect() as owner:
            assert wait_for(lambda: owner.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted",
                                                  (pid,)).fetchone() == (1,)), "the step waits for the watcher"
        walt.execute("COMMIT")
        waiting.join(10)
        assert [type(e) for e in refused] == [psycopg.errors.CheckViolation]
        assert "is closed: the provider says it is submitted" in str(refused[0])
        bob.execute("ROLLBACK")
        with pytest.raises(psycopg.errors.CheckViolation, match="is closed"):
            bob.execute(STEP, (SERVER, RFI, "approve"))
    assert kept(team_db, RFI) == before


def test_the_console_says_in_one_line_that_a_stale_step_was_refused_and_audits_it_refused(
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str],  # type: ignore[no-untyped-def]
) -> None:
    """bob's console runs REPEATABLE READ (his login's default in this database): it reads the request, the watcher's
    close commits while the approve waits, and the approve is refused. The shell says so in one line, exits 1, and
    the step's audit entry says refused."""
    from psycopg import sql

    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.services.team.scope import server_key

    made_ready(team_db, server_key(EMBEDDED_PROFILE))  # the shell's own server (its built-in sandbox)
    with team_db.connect() as owner:
        owner.execute(sql.SQL("ALTER ROLE bob IN DATABASE {} SET default_transaction_isolation = 'repeatable read'")
                      .format(sql.Identifier(team_db.name)))
    as_role("bob")
    capsys.readouterr()
    with team_db.connect("walt") as walt, team_db.connect() as owner:
        walt.execute("BEGIN")
        walt.execute("UPDATE stablepay.rfis SET status = 'submitted' WHERE rfi_id = %s", (RFI,))
        said: list[int] = []
        shell = threading.Thread(target=lambda: said.append(cli("rfis", "approve", RFI)))
        shell.start()
        assert wait_for(lambda: owner.execute(
            "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted "
            "AND a.usename = 'bob' AND a.datname = current_database()").fetchone() == (1,)), "the approve waits"
        walt.execute("COMMIT")
        shell.join(30)
    assert said == [1]
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(
        "stablepay-console: approve refused: another session changed what this rests on")
    assert "read it again" in lines[0]
    steps, entries = kept(team_db, RFI)
    assert steps == ["ready"]
    assert entries[-1][0] == "triage.approve" and entries[-1][1].startswith("refused: another session changed")
    assert verify(record(team_db, "alice")).ok


# --- 10. every role's record status ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("role", "lead", "watcher"), [
    ("alice", False, False), ("carol", True, False), ("walt", False, True), (OWNER, False, False),
])
def test_record_status_works_for_every_role(  # type: ignore[no-untyped-def]
    team_db: TeamDb, as_role, capsys: pytest.CaptureFixture[str], role: str, lead: bool, watcher: bool,
) -> None:
    """As found: the watcher's own `record status` said the record was unreachable (it may not read the triage
    table it counted); the analyst's, the lead's and the owner's are checked the same way."""
    seen_by_the_watcher(team_db, RFI)
    record(team_db, "alice").add_note("prod", RFI, "", "a note", FIXED_NOW)
    as_role(role)
    assert cli("record", "status", "--json") == 0, capsys.readouterr().err
    status = json.loads(capsys.readouterr().out)
    assert (status["reachable"], status["you"], status["lead"], status["watcher"]) == (True, role, lead, watcher)
    assert status["stampedByNobody"] == {}
    assert cli("record", "status") == 0
    assert re.search(r"^reachable: +yes$", capsys.readouterr().out, re.MULTILINE)


def test_every_reader_of_json_from_a_record_is_bounded(team_db: TeamDb) -> None:
    """A request imported with 100,000 `[` as its JSON, and an announcement of 7,999 `[` (the most NOTIFY carries):
    the history reads "unreadable entry" for the request, the listener drops the announcement."""
    from psycopg.types.json import Jsonb

    from stablepay_console.storage.postgres.listen import parse_change

    deep = "[" * 100_000
    with team_db.connect("bob") as conn:
        conn.execute("SELECT stablepay.import_local('laptop', %s)", (Jsonb({"rfis": [{
            "server": SERVER, "rfi_id": OTHER, "environment": "production", "status": "issued", "fingerprint": "f",
            "wire": deep, "first_seen": "2026-11-20T09:00:00+00:00", "last_seen": "2026-11-20T09:00:00+00:00"}]}),))
    found = record(team_db, "alice").history("prod", OTHER)
    assert found.record is not None and found.record.wire == {"unreadable": "unreadable entry"}
    assert parse_change("[" * 7_999) is None
    assert parse_change('{"kind": "notes", "server": "s", "rfi": "r", "who": "bob", "op": "insert"}') is not None


READERS = ("storage/postgres", "storage/local", "storage/record_types.py", "storage/witness.py", "services/team",
           "cli/wire.py", "cli/kept_json.py", "cli/rfis.py", "cli/record_runs.py", "services/export")


def test_json_from_a_record_has_one_parser() -> None:
    """Every module that reads JSON back from a record goes through storage/record_json.py (its bounds, its
    "unreadable entry"); none calls json.loads itself."""
    import stablepay_console

    root = Path(stablepay_console.__file__).parent
    found = []
    for reader in READERS:
        for path in sorted((root / reader).rglob("*.py")) if (root / reader).is_dir() else [root / reader]:
            found += [f"{path.relative_to(root)}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1)
                      if "json.loads(" in line and "record_json" not in line]
    assert found == []
