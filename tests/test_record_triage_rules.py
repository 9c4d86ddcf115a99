"""Triage in the local record (`storage/local/triage.py`): which round a step is kept in and counted for, the
refusals of a round the console showed wrongly, the report's facts, the policy, and version 4's repair of steps
kept with no round. Each on a small SQLite file of its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from stablepay_console.storage.local import open_record
from stablepay_console.storage.local.schema import MIGRATIONS
from stablepay_console.storage.record import Record, RecordRefused
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
)
from stablepay_console.storage.record_types import AuditDraft, Claim, RfiSighting, RoundSighting, SeenPage, stamp
from tests.conftest import FIXED_NOW

P = "p"
R = "rfi-r"


def at(hours: float) -> datetime:
    return FIXED_NOW + timedelta(hours=hours)


def seen(record: Record, rfi_id: str, round_no: int | None, issued: float = 0, *, hours: float, status: str = "issued",
         round_id: str = "", expires: float | None = None, submitted: float | None = None) -> None:
    """The record sees the request at `hours`, in round `round_no` (None: with no round) issued at `issued`."""
    sighting = None
    if round_no is not None:
        parts = [f'"id": "{round_id or f"r{round_no}"}"', f'"round": {round_no}', f'"issuedAt": "{stamp(at(issued))}"']
        if expires is not None:
            parts.append(f'"expiresAt": "{stamp(at(expires))}"')
        if submitted is not None:
            parts.append(f'"submittedAt": "{stamp(at(submitted))}"')
        wire = "{" + ", ".join(parts) + "}"
        sighting = RoundSighting(round_no, wire, f"round {wire}")
    fingerprint = f"{status} {sighting.fingerprint if sighting else '-'}"
    record.observe([SeenPage(P, "sandbox", at(hours), (RfiSighting(rfi_id, status, fingerprint, "{}", sighting),))])


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Record]:
    made = open_record(tmp_path / "record.sqlite3")
    yield made
    made.close()


def refused(record: Record, shown: RoundShown | None, rfi_id: str = R) -> RecordRefused:
    before = record.request_steps(P, rfi_id)
    with pytest.raises(RecordRefused) as caught:
        record.add_triage_step(P, rfi_id, "wait", "alice", "", at(9), shown)
    assert record.request_steps(P, rfi_id) == before, "a refused step is not kept"
    return caught.value


def test_a_case_holds_the_status_round_and_claim_as_seen_and_the_steps_of_its_current_round_only(
        record: Record) -> None:
    seen(record, R, 1, 0, hours=0)
    record.claim(P, R, "alice", at(1))
    ready = record.add_triage_step(P, R, "ready", "alice", "first", at(2))
    assert ready == TriageStep(R, "ready", "alice", at(2), "first", 1)
    seen(record, R, 2, 3, hours=3)
    wait = record.add_triage_step(P, R, "wait", "alice", "", at(4), RoundShown(2, "r2"))
    assert wait == TriageStep(R, "wait", "alice", at(4), "", 2)
    assert record.triage_case(P, R) == TriageCase(R, "issued", 2, Claim(P, R, "alice", at(1)), (wait,))
    assert record.request_steps(P, R) == [ready, wait]
    assert record.every_triage_step(P) == {R: [ready, wait]}
    assert record.triage_steps(P, [R, R, "rfi-never"]) == {R: [wait]}
    assert record.triage_case("other", R) == TriageCase(R, None, None, None, ())


def test_a_request_seen_with_no_round_counts_its_steps_taken_in_no_round(record: Record) -> None:
    seen(record, R, None, hours=0)
    step = record.add_triage_step(P, R, "wait", "alice", "", at(1))
    assert step.round_no is None
    assert record.triage_case(P, R) == TriageCase(R, "issued", None, None, (step,))


def test_a_step_on_a_round_the_record_has_seen_is_refused_when_the_console_showed_another(record: Record) -> None:
    seen(record, R, 2, 0, hours=0, round_id="round-two")
    earlier = refused(record, RoundShown(1, "round-one"))
    why = f"{R} is in round 2 now; the console showed round 1: read it again"
    assert (str(earlier), earlier.why) == (f"The step was not kept: {why}.", why)
    later = refused(record, RoundShown(3))
    assert later.why == (f"the record has seen round 2 of {R}, not round 3 yet: read the request again, then take "
                         "the step")
    other = refused(record, RoundShown(2, "round-else"))
    assert other.why == f"round 2 of {R} is not the round the record saw (another round ID): read it again"
    kept = record.add_triage_step(P, R, "wait", "alice", "", at(9), RoundShown(2, "round-two"))
    assert kept.round_no == 2
    assert record.add_triage_step(P, R, "resume", "alice", "", at(10), RoundShown(2)).round_no == 2


def test_a_request_never_seen_is_in_the_round_its_first_steps_named(record: Record) -> None:
    first = record.add_triage_step(P, R, "wait", "alice", "", at(1), RoundShown(1, "r1"))
    assert first == TriageStep(R, "wait", "alice", at(1), "", 1)
    for wrong in (RoundShown(2), RoundShown(2, "r1"), RoundShown(1, "r9")):
        refusal = refused(record, wrong)
        assert refusal.why == (f"{R} is in round 1 by the steps taken on it; the console showed round "
                               f"{wrong.round_no}: read it again")
    assert record.add_triage_step(P, R, "resume", "alice", "", at(2)).round_no == 1
    assert record.add_triage_step(P, R, "wait", "alice", "", at(3), RoundShown(1, "r1")).round_no == 1
    assert [s.round_no for s in record.triage_case(P, R).steps] == [1, 1, 1]


def test_a_step_kept_with_no_round_belongs_to_the_round_seen_issued_at_or_before_it(
        record: Record, tmp_path: Path) -> None:
    """Whatever order the record saw the rounds in, and past a round it cannot date."""
    before = record.add_triage_step(P, R, "wait", "alice", "", at(-1))
    during = record.add_triage_step(P, R, "resume", "alice", "", at(5))
    boundary = record.add_triage_step(P, R, "wait", "alice", "", at(6))
    late = record.add_triage_step(P, R, "resume", "alice", "", at(7))
    assert [s.round_no for s in (before, during, boundary, late)] == [None] * 4
    with sqlite3.connect(tmp_path / "record.sqlite3") as raw:  # a round another program kept, with no usable date
        raw.execute("INSERT INTO rounds (profile, rfi_id, round_no, round_id, fingerprint, issued_at, wire, "
                    "first_seen, last_seen) VALUES (?, ?, 9, 'r9', 'x', 'not a time', '{}', '', '')", (P, R))
    seen(record, R, 2, 6, hours=8)
    seen(record, R, 1, 0, hours=9)  # an older page, seen after the newer one
    assert [s.round_no for s in record.request_steps(P, R)] == [None, 1, 2, 2]
    assert [s.round_no for s in record.every_triage_step(P)[R]] == [None, 1, 2, 2]
    assert record.request_steps(P, R)[1] == TriageStep(R, "resume", "alice", at(5), "", 1)
    assert record.every_triage_step(P)[R][1] == TriageStep(R, "resume", "alice", at(5), "", 1)


def test_every_step_of_a_profile_is_listed_each_with_its_own_requests_round(record: Record) -> None:
    seen(record, "rfi-a", 3, 0, hours=0)
    kept = record.add_triage_step(P, "rfi-a", "wait", "alice", "", at(1))
    loose = record.add_triage_step(P, "rfi-b", "wait", "bob", "", at(2))
    assert loose.round_no is None, "never seen, and no round shown"
    later = record.add_triage_step(P, "rfi-a", "resume", "alice", "", at(3))
    seen(record, "rfi-b", 1, 0, hours=4)
    assert record.every_triage_step(P) == {"rfi-a": [kept, later], "rfi-b": [TriageStep("rfi-b", "wait", "bob", at(2),
                                                                                          "", 1)]}
    assert record.every_triage_step("other") == {}


def test_the_reports_facts_are_the_rounds_statuses_claims_and_steps_the_record_holds(record: Record) -> None:
    seen(record, R, 1, 0, hours=0, expires=48)
    seen(record, R, 1, 0, hours=1, expires=50, submitted=1)  # the deadline moved, then the request was answered
    seen(record, R, 1, 0, hours=2, status="submitted", expires=50)  # the same round, its answer no longer shown
    seen(record, R, 2, 3, hours=3, status="issued")
    seen(record, "rfi-other", 1, 0, hours=0)
    record.claim(P, R, "alice", at(1))
    record.append_audit(AuditDraft(at(1), "alice", P, "sandbox", "claim", R, "claimed"))
    record.append_audit(AuditDraft(at(1), "bob", P, "sandbox", "claim", R, "refused: held"))
    record.append_audit(AuditDraft(at(1), "bob", "other", "sandbox", "claim", R, "claimed"))
    step = record.add_triage_step(P, R, "wait", "alice", "", at(4))
    policy = record.set_triage_policy(TriagePolicy(timedelta(hours=1), timedelta(hours=2), timedelta(hours=3)),
                                      "alice", at(1))
    assert record.triage_facts(P, at(5)) == TriageFacts(
        rounds=[RoundFact(R, 1, at(0), at(50), at(1)), RoundFact(R, 2, at(3), None, None),
                RoundFact("rfi-other", 1, at(0), None, None)],
        statuses=[StatusFact(R, "issued", at(0)), StatusFact(R, "submitted", at(2)), StatusFact(R, "issued", at(3)),
                  StatusFact("rfi-other", "issued", at(0))],
        claims_taken=[ClaimFact(R, "alice", at(1))],
        steps=[step],
        claims_now={R: Claim(P, R, "alice", at(1))},
        policy=policy,
        now=at(5),
    )


def test_the_policy_is_no_policy_until_set_then_what_was_set_by_whom_and_when(record: Record) -> None:
    assert record.triage_policy() == NO_POLICY
    chosen = TriagePolicy(timedelta(hours=1), timedelta(hours=2), timedelta(hours=3))
    expected = TriagePolicy(timedelta(hours=1), timedelta(hours=2), timedelta(hours=3), "alice", at(1))
    assert record.set_triage_policy(chosen, "alice", at(1)) == expected
    assert record.triage_policy() == expected


def test_a_new_record_reports_no_round_repairs(record: Record) -> None:
    assert record.round_repairs() == {}


def version_3_file(path: Path) -> sqlite3.Connection:
    """A file as a console of schema version 3 left it (its steps have no round)."""
    conn = sqlite3.connect(path, isolation_level=None)
    for script, step in MIGRATIONS[:3]:
        conn.executescript(script)
        if callable(step):
            step(conn)
    conn.execute("PRAGMA user_version = 3")
    return conn


def test_version_4_gives_each_roundless_step_the_round_current_at_its_own_audit_entry(tmp_path: Path) -> None:
    """The round current when the step's audit entry was written, else at the step's own time, else none; each
    repair is kept with the audit entry it went by, and the steps stay append-only."""
    path = tmp_path / "record.sqlite3"
    conn = version_3_file(path)
    for round_no, issued in ((1, 0), (2, 6)):
        conn.execute("INSERT INTO rounds (profile, rfi_id, round_no, round_id, fingerprint, issued_at, wire, "
                     "first_seen, last_seen) VALUES (?, ?, ?, ?, 'x', ?, '{}', '', '')",
                     (P, R, round_no, f"r{round_no}", stamp(at(issued))))
    for step, actor, when in (("ready", "alice", stamp(at(5))), ("wait", "bob", "not a time"),
                              ("resume", "bob", stamp(at(3)))):
        conn.execute("INSERT INTO triage (profile, rfi_id, step, actor, at) VALUES (?, ?, ?, ?, ?)",
                     (P, R, step, actor, when))
    # The ready step's entry was written after round 2 was issued; bob's steps have none.
    conn.execute("INSERT INTO audit VALUES (7, ?, 'alice', ?, 'sandbox', 'triage.ready', ?, 'ready', '{}', '', '')",
                 (stamp(at(7)), P, R))
    conn.close()

    record = open_record(path)
    assert record.round_repairs() == {"given": 2, "unknown": 1}
    record.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT round_no, round_id FROM triage ORDER BY id").fetchall() == [
            (2, "r2"), (None, None), (1, "r1")]
        assert raw.execute("SELECT step_id, rfi_id, round_no, audit_seq FROM round_repairs ORDER BY step_id"
                           ).fetchall() == [(1, R, 2, 7), (2, R, None, None), (3, R, 1, None)]
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            raw.execute("UPDATE triage SET note = 'x'")
