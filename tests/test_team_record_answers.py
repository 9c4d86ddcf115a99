"""What the team record's calls answer, field by field, against the real PostgreSQL.

The screens and the commands show what these answers say (who holds a request, who held it before, who assigned
it, when it lapses), so each answer is asserted whole: a claim given another request's ID, a previous holder
dropped or an assignment's lead lost would each show a user something the record does not hold.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest

from stablepay_console.storage.postgres.connection import RecordUnavailable
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record import assignments
from stablepay_console.storage.record_types import (
    AuditDraft,
    Claim,
    ClaimOutcome,
    RfiSighting,
    RoundSighting,
    SeenPage,
)
from tests.conftest import FIXED_NOW
from tests.postgres import free_port, wait_for
from tests.test_record_contract import RFI, ROUND, SERVER

pytestmark = pytest.mark.postgres

OTHER = "7c1e2a9b-0f3d-4c55-9a61-2b8e4d6f0a17"
THIRD = "8d2f3b0c-1a4e-4d66-8b72-3c9f5e7a1b28"


@pytest.fixture
def records(team_db) -> Iterator[dict[str, PgRecord]]:  # type: ignore[no-untyped-def]
    opened = {role: PgRecord(parse(team_db.url(role)), lambda name: SERVER if name else "")
              for role in ("alice", "bob", "carol", "walt")}
    yield opened
    for record in opened.values():
        record.close()


def held(outcome: ClaimOutcome) -> Claim:
    assert outcome.claim is not None, outcome
    return outcome.claim


def test_a_claim_answers_who_holds_which_request_and_who_held_it_before(records: dict[str, PgRecord]) -> None:
    alice, bob = records["alice"], records["bob"]
    first = alice.claim("p", RFI, "alice", FIXED_NOW)
    mine = held(first)
    assert first == ClaimOutcome(True, Claim("p", RFI, "alice", mine.at, None, None), None)
    assert alice.claim("p", RFI, "alice", FIXED_NOW) == ClaimOutcome(True, mine, mine), "claimed again: still mine"
    assert bob.claim("p", RFI, "bob", FIXED_NOW) == ClaimOutcome(False, mine, mine), "refused: alice holds it"
    assert bob.release("p", RFI, "bob") == ClaimOutcome(False, mine, mine), "bob may not release alice's"
    assert bob.claims("p") == {RFI: mine} and bob.claim_of("p", RFI) == mine
    assert bob.claim_of("p", OTHER) is None
    assert alice.release("p", RFI, "alice") == ClaimOutcome(True, None, mine)
    assert alice.release("p", RFI, "alice") == ClaimOutcome(False, None, None), "nothing left to release"
    assert bob.claims("p") == {} and bob.claim_of("p", RFI) is None


def test_a_claim_for_a_while_is_extended_by_its_holder_and_taken_over_once_it_lapsed(
        records: dict[str, PgRecord]) -> None:
    alice, bob = records["alice"], records["bob"]
    brief = held(alice.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(hours=1)))
    assert (brief.profile, brief.rfi_id, brief.claimant, brief.assigned_by) == ("p", RFI, "alice", None)
    assert brief.until is not None and brief.until - brief.at >= timedelta(minutes=59)
    extended = alice.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(hours=3))
    longer = held(extended)
    assert extended.done and extended.previous == brief
    assert (longer.profile, longer.rfi_id, longer.claimant) == ("p", RFI, "alice")
    assert longer.until is not None and longer.until - brief.until >= timedelta(hours=1, minutes=59)
    assert bob.claims("p") == {RFI: longer}

    lapsing = held(alice.claim("p", OTHER, "alice", FIXED_NOW, lapse=timedelta(milliseconds=1)))
    time.sleep(0.05)  # the claim above ends 1 ms after it was taken; the database's clock decides it has
    assert bob.claim_of("p", OTHER) is None and set(bob.claims("p")) == {RFI}, "a lapsed claim is no claim"
    taken = bob.claim("p", OTHER, "bob", FIXED_NOW, lapse=timedelta(hours=2))
    assert taken.done and taken.previous == lapsing
    bobs = held(taken)
    assert bobs == Claim("p", OTHER, "bob", bobs.at, bobs.until, None)
    assert bobs.until is not None and bobs.until - bobs.at >= timedelta(hours=1, minutes=59), "for the while asked"
    assert bob.release("p", OTHER, "bob") == ClaimOutcome(True, None, held(taken))


def test_a_lead_releases_anyones_claim_only_when_asked_to(records: dict[str, PgRecord]) -> None:
    alice, carol = records["alice"], records["carol"]
    mine = held(alice.claim("p", RFI, "alice", FIXED_NOW))
    assert carol.release("p", RFI, "carol") == ClaimOutcome(False, mine, mine), "not asked: not released"
    assert carol.release("p", RFI, "carol", force=True) == ClaimOutcome(True, None, mine)
    assert alice.claim_of("p", RFI) is None


def test_an_analyst_forcing_a_release_is_refused_by_the_database(records: dict[str, PgRecord]) -> None:
    alice, bob = records["alice"], records["bob"]
    mine = held(alice.claim("p", RFI, "alice", FIXED_NOW))
    refused = bob.release("p", RFI, "bob", force=True)
    assert refused == ClaimOutcome(False, mine, mine, refusal=(
        "the database refused: only a member of stablepay_lead may release someone else's claim"))
    assert bob.claim_of("p", RFI) == mine


def test_an_assignment_answers_the_analyst_the_lead_and_who_held_it_before(records: dict[str, PgRecord]) -> None:
    records["walt"].observe([SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", "{}", ROUND),))])
    alice, carol = records["alice"], records["carol"]
    lead = assignments(carol)
    given = lead.assign("p", RFI, "bob")
    bobs = held(given)
    assert given == ClaimOutcome(True, Claim("p", RFI, "bob", bobs.at, None, "carol"), None)
    assert alice.claims("p") == {RFI: bobs}
    moved = lead.assign("p", RFI, "alice")
    alices = held(moved)
    assert moved == ClaimOutcome(True, Claim("p", RFI, "alice", alices.at, None, "carol"),
                                 Claim("p", RFI, "bob", alices.at))
    team = {member.name: member.lead for member in lead.team_analysts()}
    assert team == {"alice": False, "bob": False, "carol": True}


# --- a record that cannot be reached says what was not done ------------------------------------------------------

def _calls() -> list[tuple[str, str, object]]:
    at = FIXED_NOW
    return [
        ("save the claim", "claim", ("p", RFI, "alice", at)),
        ("release the claim", "release", ("p", RFI, "alice")),
        ("read the claim", "claim_of", ("p", RFI)),
        ("read the claims", "claims", ("p",)),
        ("read the team's analysts", "team_analysts", ()),
        (f"assign {RFI} to bob", "assign", ("p", RFI, "bob")),
        ("read the webhook deliveries taken", "delivery_known", ("p", "evt_1")),
        ("read the team watcher's sweep", "last_sweep", ("p",)),
        ("read the issued requests", "issued_first", ("p", at, 10)),
        ("read the issued requests", "issued", ("p",)),
        ("read the issued requests", "issued_due", ("p", at)),
        ("read the issued requests", "open_rounds", ("p",)),
        ("read the request's triage", "triage_case", ("p", RFI)),
        ("keep the step 'ready'", "add_triage_step", ("p", RFI, "ready", "alice", "", at)),
        ("read the triage steps", "triage_steps", ("p", [RFI])),
        ("read the request's steps", "request_steps", ("p", RFI)),
        ("read the triage steps", "every_triage_step", ("p",)),
        ("read the service levels", "triage_policy", ()),
        ("read the steps given their round", "round_repairs", ()),
        ("read the report's facts", "triage_facts", ("p", at)),
        ("look up the request's ID", "ids_starting", ("p", RFI[:8])),
        ("read the request's history", "history", ("p", RFI)),
        ("save the note", "add_note", ("p", RFI, "alice", "checked", at)),
        ("read the notes", "notes", ("p", RFI)),
        ("append 'note' to the audit log", "append_audit", (AuditDraft(at, "alice", "p", "sandbox", "note", RFI, "ok",
                                                                      {}),)),
        ("read the audit log", "audit", ()),
        ("read the audit log's head", "audit_head", ()),
        ("read the audit log", "audit_hash", (1,)),
        ("print the record's status", "run", ("print the record's status", lambda conn: None)),
    ]


@pytest.mark.parametrize(("doing", "method", "args"), _calls(), ids=[c[1] for c in _calls()])
def test_a_team_record_that_cannot_be_reached_says_what_was_not_done(doing: str, method: str, args: tuple) -> None:
    record = PgRecord(parse(f"postgresql://alice@127.0.0.1:{free_port()}/team"), lambda name: SERVER)
    with pytest.raises(RecordUnavailable) as refused:
        getattr(record, method)(*args)
    assert str(refused.value).startswith(f"Could not {doing}. The team record at "), str(refused.value)
    record.close()


def test_a_team_record_that_cannot_be_reached_says_so_when_asked_who_this_is() -> None:
    port = free_port()
    record = PgRecord(parse(f"postgresql://alice@127.0.0.1:{port}/team"), lambda name: SERVER)
    with pytest.raises(RecordUnavailable) as refused:
        record.whoami()
    assert str(refused.value).startswith(f"The team record at 127.0.0.1:{port}/team cannot be reached: ")
    with pytest.raises(RecordUnavailable):
        record.observe([])
    record.close()


# --- the watcher's sweep, the issued requests, the webhook deliveries --------------------------------------------

SOONER = RoundSighting(2, '{"id":"r2","round":2,"issuedAt":"2026-11-19T09:00:00Z","expiresAt":"2026-11-25T09:00:00Z",'
                          '"submittedAt":null,"link":"https://x.example/m"}', "rf2")


def two_issued(watcher: PgRecord) -> None:
    watcher.observe([SeenPage("p", "sandbox", FIXED_NOW, (
        RfiSighting(RFI, "issued", "f1", '{"id": "a"}', ROUND),
        RfiSighting(OTHER, "issued", "f2", '{"id": "b"}', SOONER),
    ))])


def test_only_the_watcher_marks_a_sweep_and_the_sweep_answers_who_when_and_what_it_saw(
        records: dict[str, PgRecord]) -> None:
    from datetime import datetime

    alice, walt = records["alice"], records["walt"]
    assert alice.mark_sweep("p", 60, '{"issued": []}') is False and alice.last_sweep("p") is None
    radar = json.dumps({"issued": [[RFI, "2026-11-27T09:00:00Z"]]})
    assert walt.mark_sweep("p", 60, radar) is True
    sweep = alice.last_sweep("p")
    assert sweep is not None
    assert (sweep.server, sweep.interval_seconds, sweep.by_role, sweep.radar) == (SERVER, 60, "walt", radar)
    assert isinstance(sweep.swept_at, datetime) and 0 <= sweep.age_seconds < 600 and sweep.fresh
    unread = alice.last_sweep("p", radar=False)
    assert unread is not None and unread.radar == "" and unread.by_role == "walt", "the radar left in the database"


def test_the_issued_requests_answer_nearest_first_with_their_rounds_only_when_asked(
        records: dict[str, PgRecord]) -> None:
    alice = records["alice"]
    two_issued(records["walt"])
    first, total = alice.issued_first("p", FIXED_NOW, 1)
    assert total == 2 and first == [('{"id": "b"}', SOONER.wire_json, first[0][2])], "the nearest deadline first"
    later, _ = alice.issued_first("p", FIXED_NOW + timedelta(days=6), 5)
    assert [wire for wire, _, _ in later] == ['{"id": "a"}'], "only what is due after the time asked"
    due = alice.issued_due("p", FIXED_NOW + timedelta(days=6))
    assert [(rfi, wire, no, round_wire) for rfi, wire, no, round_wire, _ in due] == [(OTHER, '{"id": "b"}', 2, None)]
    with_rounds = alice.issued_due("p", FIXED_NOW + timedelta(days=30), rounds=True)
    assert [(rfi, no, round_wire) for rfi, _, no, round_wire, _ in with_rounds] == [
        (OTHER, 2, SOONER.wire_json), (RFI, 1, ROUND.wire_json)]
    assert sorted((rfi, no) for rfi, no, _, _ in alice.open_rounds("p")) == sorted([(RFI, 1), (OTHER, 2)])
    records["walt"].observe([SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(THIRD, "issued", "f3", '{"id": "c"}'),))])
    assert sorted(alice.issued("p")) == [('{"id": "a"}', ROUND.wire_json, "2026-11-27T09:00:00.000+00:00"),
                                         ('{"id": "b"}', SOONER.wire_json, "2026-11-25T09:00:00.000+00:00"),
                                         ('{"id": "c"}', None, None)], "a request with no round has no round's text"


def test_a_delivery_is_taken_once_by_the_watcher_alone_and_is_known_after(records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record import RecordError

    alice, walt = records["alice"], records["walt"]
    with pytest.raises(RecordError) as refused:
        alice.take_delivery("p", "evt_1", "rfi.issued", "nothing", [])
    assert str(refused.value) == ("Webhook deliveries are taken by the team watcher's role (a member of "
                                  "stablepay_watcher): this role records nothing the API said.")
    assert alice.delivery_known("p", "evt_1") is False
    assert walt.take_delivery("p", "evt_1", "rfi.issued", "x" * 2500, []) is True
    assert walt.take_delivery("p", "evt_1", "rfi.issued", "again", []) is False, "the event id: taken once"
    assert alice.delivery_known("p", "evt_1") is True and alice.delivery_known("p", "evt_2") is False


def test_what_a_delivery_led_to_is_kept_to_2000_characters(records: dict[str, PgRecord], team_db) -> None:  # type: ignore[no-untyped-def]
    assert records["walt"].take_delivery("p", "evt_1", "rfi.issued", "x" * 2500, [])
    with team_db.connect() as conn:
        assert conn.execute("SELECT length(led_to) FROM stablepay.webhook_events").fetchone() == (2000,)


def test_the_deliveries_kept_are_capped_every_so_many_taken(records: dict[str, PgRecord], team_db,  # type: ignore[no-untyped-def]
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.storage.postgres import deliveries

    monkeypatch.setattr(deliveries, "KEEP_ROWS", 2)  # the cap and its period, small enough to see: 100,000 and 100
    monkeypatch.setattr(deliveries, "PRUNE_ROWS_EVERY", 3)
    kept = []
    with team_db.connect() as conn:
        for n in range(1, 6):
            assert records["walt"].take_delivery("p", f"evt_{n}", "rfi.issued", "", [])
            kept.append(conn.execute("SELECT count(*) FROM stablepay.webhook_events").fetchone()[0])
    assert kept == [1, 2, 3, 2, 3], "capped at the 1st and the 4th delivery taken, to the newest 2"


# --- the audit log: what an entry says of itself -------------------------------------------------------------------

def test_an_entry_about_a_profile_names_its_server_and_one_about_none_names_no_server(
        records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record_types import AuditDraft

    alice = records["alice"]
    about = alice.append_audit(AuditDraft(FIXED_NOW, "alice", "p", "sandbox", "note", RFI, "ok", {"n": 1}))
    assert about.details == {"n": 1, "server": SERVER}
    general = alice.append_audit(AuditDraft(FIXED_NOW, "alice", "", "", "witness.save", "", "ok", {"n": 2}))
    assert general.details == {"n": 2}


def test_the_audit_log_is_read_since_a_time_and_as_its_latest_entries(records: dict[str, PgRecord]) -> None:
    from datetime import datetime, timezone

    from stablepay_console.storage.record_types import AuditDraft

    alice = records["alice"]
    for n in range(3):
        alice.append_audit(AuditDraft(FIXED_NOW, "alice", "p", "sandbox", "note", RFI, f"ok {n}", {}))
    now = datetime.now(timezone.utc)
    assert [e.outcome for e in alice.audit(since=now - timedelta(hours=1))] == ["ok 0", "ok 1", "ok 2"]
    assert alice.audit(since=now + timedelta(hours=1)) == [], "the entries were written before that time"
    assert [e.outcome for e in alice.audit(limit=2)] == ["ok 1", "ok 2"], "the latest, in order"
    assert [e.seq for e in alice.audit(profile="p", target=RFI, limit=1)] == [3]


def test_detail_text_is_the_local_records_spelling_sorted_and_ascii() -> None:
    from datetime import datetime, timezone

    from stablepay_console.storage.postgres.audit import detail_text

    when = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
    assert detail_text({"b": 1, "a": "caf\u00e9", "t": when}) == (
        '{"a": "caf\\u00e9", "b": 1, "t": "2026-11-20 09:30:00+00:00"}')


def test_whether_a_member_typed_an_entry_is_the_databases_stamp_else_read_from_its_spelling() -> None:
    from stablepay_console.storage.postgres.audit import typed

    assert typed("claim", "claimed", True) is True and typed("note", "ok", False) is False, "the stamp decides"
    assert typed("claim", "claimed", None) is False, "an act's own entry, written by the database"
    assert typed("triage.ready", "ready", None) is False and typed("claim.release", "released", None) is False
    assert typed("claim", "refused: held by bob", None) is True, "a member could type an act's name as a refusal"
    assert typed("note", "ok", None) is True and typed("claim ", "ok", None) is True


AUDIT_ROW = ("INSERT INTO stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, detail, "
             "prev_hash, hash, server, imported_from, imported_by, typed) "
             "VALUES (%s, %s, %s, 'p', 'sandbox', %s, %s, %s, %s, 'x', %s, %s, %s, %s, %s)")


def test_entries_written_by_older_consoles_read_as_they_were_written(records: dict[str, PgRecord], team_db) -> None:  # type: ignore[no-untyped-def]
    """Rows of schema 1 to 7 (no `typed` stamp; imports of version 1 and 2), as a long-lived team record holds."""
    from stablepay_console.storage.record_types import Imported

    at = "2026-11-20T09:30:00+00:00"
    rows = [  # seq, actor, action, target, outcome, detail, hash, imported_from, imported_by, typed
        (1, "alice", "claim", RFI, "claimed", "{}", "h1", None, None, None),
        (2, "alice", "claim", RFI, "refused: held by bob", "{}", "h2", None, None, None),
        (3, "alice", "note", RFI, "ok", "{}", "h3", None, None, None),
        (4, "mallory", "claim", RFI, "claimed", "{}", "h4", None, None, True),
        (5, "ana", "note", RFI, "ok", "{}", "h5", "laptop:/r.sqlite3", "alice", None),
        (6, "ana", "note", RFI, "ok", "{}", "h6", "laptop:/r.sqlite3", None, None),
        (7, "alice", "note", RFI, "ok", '{"written_as": "ana", "written_at": "2026-11-01T08:00:00+00:00"}', "h7",
         "laptop:/r.sqlite3", "alice", None),
        (8, "alice", "note", RFI, "ok", '{"written_as": "ana"}', "h8", "laptop:/r.sqlite3", "alice", None),
    ]
    with team_db.connect() as conn:
        conn.execute("SET session_replication_role = replica")  # as a restore would: the append-only rule is off
        for seq, actor, action, target, outcome, detail, hash_, source, by, stamp in rows:
            conn.execute(AUDIT_ROW, (seq, at, actor, action, target, outcome, detail, hash_, SERVER, source, by, stamp))
    entries = records["bob"].audit()
    assert [(e.seq, e.typed) for e in entries[:4]] == [(1, False), (2, True), (3, True), (4, True)]
    assert [e.imported for e in entries[4:]] == [
        Imported("laptop:/r.sqlite3", "alice", None, "ana", at),
        Imported("laptop:/r.sqlite3", "(unknown importer)", None, "ana", at),
        Imported("laptop:/r.sqlite3", "alice", at, "ana", "2026-11-01T08:00:00+00:00"),
        Imported("laptop:/r.sqlite3", "alice", at, "ana", None),
    ]


# --- triage: a request's case, the report's facts, the service levels ---------------------------------------------

ANSWERED = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":"2026-11-27T09:00:00Z",'
                            '"submittedAt":"2026-11-21T10:00:00Z","link":"https://x.example/l"}', "rf1b")
UNANSWERED_AGAIN = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z",'
                                    '"expiresAt":"2026-11-27T09:00:00Z","submittedAt":null,'
                                    '"link":"https://x.example/l2"}', "rf1c")


def seen(watcher: PgRecord, rfi_id: str, status: str, sighting: RoundSighting, at_minutes: int = 0) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW + timedelta(minutes=at_minutes),
                    (RfiSighting(rfi_id, status, f"{status}-{sighting.fingerprint}", '{"id": "x"}', sighting),))
    watcher.observe([page])


def test_a_requests_triage_case_answers_its_status_round_holder_and_steps(records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record_triage_types import TriageCase

    bob = records["bob"]
    assert bob.triage_case("p", RFI) == TriageCase(RFI, None, None, None, ()), "never seen: nothing known"
    seen(records["walt"], RFI, "issued", ROUND)
    assignments(records["carol"]).assign("p", RFI, "bob")
    claim = bob.claim_of("p", RFI)
    assert claim == Claim("p", RFI, "bob", claim.at if claim else FIXED_NOW, None, "carol")
    step = bob.add_triage_step("p", RFI, "ready", "bob", "checked", FIXED_NOW)
    assert (step.rfi_id, step.step, step.actor, step.note, step.round_no) == (RFI, "ready", "bob", "checked", 1)
    assert records["alice"].triage_case("p", RFI) == TriageCase(RFI, "issued", 1, claim, (step,))


def test_the_reports_facts_are_what_the_database_recorded(records: dict[str, PgRecord]) -> None:
    from datetime import datetime, timezone

    from stablepay_console.storage.record_triage_types import ClaimFact, RoundFact

    walt, alice = records["walt"], records["alice"]
    seen(walt, RFI, "issued", ROUND)
    seen(walt, RFI, "issued", ANSWERED, 1)
    seen(walt, RFI, "issued", UNANSWERED_AGAIN, 2)  # a later sighting that lost the answer keeps the one seen
    seen(walt, OTHER, "issued", SOONER)
    assignments(records["carol"]).assign("p", RFI, "bob")
    mine = held(alice.claim("p", OTHER, "alice", FIXED_NOW))
    assert walt.mark_sweep("p", 60, "{}")
    facts = records["bob"].triage_facts("p", FIXED_NOW)

    def utc(text: str) -> datetime:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)

    assert sorted(facts.rounds, key=lambda r: r.rfi_id) == sorted([
        RoundFact(RFI, 1, utc("2026-11-20T09:00:00Z"), utc("2026-11-27T09:00:00Z"), utc("2026-11-21T10:00:00Z")),
        RoundFact(OTHER, 2, utc("2026-11-19T09:00:00Z"), utc("2026-11-25T09:00:00Z"), None),
    ], key=lambda r: r.rfi_id)
    assert sorted((s.rfi_id, s.status) for s in facts.statuses) == sorted([(RFI, "issued"), (OTHER, "issued")])
    assert all(isinstance(s.first_seen, datetime) for s in facts.statuses)
    bobs = facts.claims_now[RFI]
    assert facts.claims_now == {RFI: Claim("p", RFI, "bob", bobs.at, None, "carol"), OTHER: mine}
    assert [(c.rfi_id, c.actor, c.assigned_by) for c in facts.claims_taken] == [(RFI, "bob", "carol"),
                                                                                  (OTHER, "alice", "")]
    assert all(isinstance(c, ClaimFact) and isinstance(c.at, datetime) for c in facts.claims_taken)
    sweep = walt.last_sweep("p")
    assert facts.watched is True and sweep is not None and facts.swept_at == sweep.swept_at
    assert facts.now is not None and abs((facts.now - datetime.now(timezone.utc)).total_seconds()) < 600
    assert set(facts.analysts) >= {"alice", "bob"}


def test_the_service_levels_answer_who_changed_them_and_when(records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record_triage_types import TriagePolicy

    chosen = TriagePolicy(timedelta(hours=2), timedelta(hours=8), timedelta(hours=6))
    changed = records["carol"].set_triage_policy(chosen, "carol", FIXED_NOW)
    assert (changed.claim_within, changed.ready_within, changed.approve_before, changed.changed_by) == (
        timedelta(hours=2), timedelta(hours=8), timedelta(hours=6), "carol")
    assert changed.changed_at is not None and records["alice"].triage_policy() == changed


def test_the_steps_schema_6_gave_a_round_are_counted_as_it_kept_them(records: dict[str, PgRecord], team_db) -> None:  # type: ignore[no-untyped-def]
    assert records["alice"].round_repairs() == {}, "no step was kept without a round: nothing to report"
    with team_db.connect() as conn:
        for step_id, round_no in ((1, 1), (2, 2), (3, None)):
            conn.execute("INSERT INTO stablepay.round_repairs (step_id, rfi_id, server, round_no) "
                         "VALUES (%s, %s, %s, %s)", (step_id, RFI, SERVER, round_no))
    assert records["alice"].round_repairs() == {"given": 2, "unknown": 1}
    with team_db.connect() as conn:
        conn.execute("DELETE FROM stablepay.round_repairs WHERE round_no IS NOT NULL")
    assert records["alice"].round_repairs() == {"given": 0, "unknown": 1}


def test_a_lead_releasing_a_lapsed_claim_someone_takes_over_meanwhile_is_told_who_took_it(
        records: dict[str, PgRecord], team_db) -> None:  # type: ignore[no-untyped-def]
    """The release reads the claim, then deletes that claim and no other: bob's take-over, committed while the
    delete waits on his row, stays, and the lead is told so (nothing was released)."""
    import threading

    alice, bob, carol = records["alice"], records["bob"], records["carol"]
    lapsed = held(alice.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(milliseconds=1)))
    time.sleep(0.05)  # the claim above ends 1 ms after it was taken
    answer: list[ClaimOutcome] = []
    with bob.transaction():
        taken = bob.claim("p", RFI, "bob", FIXED_NOW)  # uncommitted: carol still reads alice's claim
        assert taken.done and taken.previous == lapsed
        releasing = threading.Thread(target=lambda: answer.append(carol.release("p", RFI, "carol", force=True)))
        releasing.start()
        with team_db.connect() as watch:
            assert wait_for(lambda: watch.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE usename = 'carol' AND wait_event_type = 'Lock'"
            ).fetchone() == (1,), 10), "carol's delete waits on bob's row"
    releasing.join(10)
    bobs = held(taken)
    assert answer == [ClaimOutcome(False, bobs, bobs, refusal="bob took it over meanwhile")]
    assert alice.claim_of("p", RFI) == bobs



@pytest.mark.parametrize(("doing", "table", "act"), [
    ("mark the team watcher's sweep", "sweeps", lambda walt: walt.mark_sweep("p", 60, "{}")),
    ("record the webhook delivery and what it led to", "webhook_events",
     lambda walt: walt.take_delivery("p", "evt_1", "rfi.issued", "", [])),
    ("record the requests received", "rfis", lambda walt: walt.observe([SeenPage("p", "sandbox", FIXED_NOW, (
        RfiSighting(RFI, "issued", "f1", "{}", ROUND),))])),
], ids=["sweep", "delivery", "observe"])
def test_a_watcher_kept_waiting_past_the_lock_limit_says_the_record_is_busy_and_what_was_not_saved(
        records: dict[str, PgRecord], team_db, doing: str, table: str, act) -> None:  # type: ignore[no-untyped-def]
    from psycopg import sql

    from stablepay_console.storage.postgres.connection import RecordBusy

    walt = records["walt"]
    assert walt.whoami() == ("walt", False)
    with team_db.connect() as admin, admin.transaction():  # an admin's session holding the table
        admin.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(sql.Identifier("stablepay", table)))
        with pytest.raises(RecordBusy) as busy:
            act(walt)
    assert str(busy.value) == (f"The team record at {walt.url.where} is busy: another session has held what this "
                               f"needs for over 3 s, so it could not {doing}. Nothing was saved; try again in a "
                               "moment.")


def test_a_step_names_the_round_its_console_showed_and_the_database_checks_it_against_the_watchers(
        records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record import RecordRefused
    from stablepay_console.storage.record_triage_types import RoundShown

    bob = records["bob"]
    seen(records["walt"], RFI, "issued", ROUND)  # round 1, whose ID is r1
    assert bob.claim("p", RFI, "bob", FIXED_NOW).done
    for wrong in (RoundShown(2, "r1"), RoundShown(1, "r-other")):
        with pytest.raises(RecordRefused):
            bob.add_triage_step("p", RFI, "ready", "bob", "", FIXED_NOW, shown=wrong)
    step = bob.add_triage_step("p", RFI, "ready", "bob", "", FIXED_NOW, shown=RoundShown(1, ""))
    assert step.round_no == 1, "a round shown without its ID is checked by its number"
    assert [s.round_no for s in bob.request_steps("p", RFI)] == [1]


def test_a_lapsing_claim_keeps_its_end_and_a_round_without_a_deadline_has_none_in_the_facts(
        records: dict[str, PgRecord]) -> None:
    from stablepay_console.storage.record_triage_types import RoundFact

    alice = records["alice"]
    open_ended = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":null,'
                                  '"submittedAt":null,"link":"https://x.example/l"}', "rf-open")
    seen(records["walt"], RFI, "issued", open_ended)
    mine = held(alice.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(hours=1)))
    assert mine.until is not None and mine.assigned_by is None
    case = alice.triage_case("p", RFI)
    assert case.claim == mine, "its end and no lead who assigned it"
    facts = alice.triage_facts("p", FIXED_NOW)
    assert facts.claims_now == {RFI: mine}
    assert [(r.rfi_id, r.expires_at) for r in facts.rounds] == [(RFI, None)]
    assert isinstance(facts.rounds[0], RoundFact)
