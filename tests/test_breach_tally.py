"""`rfis due`'s breaches, counted as the issued requests stream past, against the service-level clock itself."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from stablepay_console.api.models import Rfi, RfiRound
from stablepay_console.services.triage.due import BreachTally, HeldTriage, row_triage
from stablepay_console.storage.record import RecordTooNew
from stablepay_console.storage.record_triage_types import TriagePolicy, TriageStep
from stablepay_console.storage.record_types import Claim
from stablepay_console.storage.triage_steps import NAMES as STEPS

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)


def rfi(rfi_id: str, issued_hours_ago: float, expires_in_hours: float | None, round_no: int = 2,
        status: str = "issued") -> Rfi:
    expires = NOW + expires_in_hours * HOUR if expires_in_hours is not None else None
    return Rfi(id=rfi_id, kind="onboarding", status=status, subject_type="individual", created_at=NOW - 400 * HOUR,
               current_round=round_no,
               round=RfiRound(id="r", round=round_no, issued_at=NOW - issued_hours_ago * HOUR, expires_at=expires))


hours = st.floats(min_value=0, max_value=200, allow_nan=False)
a_step = st.tuples(st.sampled_from(STEPS), hours, st.sampled_from([1, 2]))
a_request = st.tuples(hours, st.none() | st.floats(min_value=-50, max_value=200, allow_nan=False),
                      st.none() | hours, st.lists(a_step, max_size=5), st.sampled_from(["issued", "submitted"]))


@settings(max_examples=300, deadline=None)
@given(requests=st.lists(a_request, min_size=1, max_size=8),
       spans=st.tuples(st.integers(1, 48), st.integers(1, 72), st.integers(0, 48)))
def test_the_tally_finds_exactly_what_the_service_level_clock_calls_breached(
        requests: list[tuple[float, float | None, float | None, list[tuple[str, float, int]], str]],
        spans: tuple[int, int, int]) -> None:
    policy = TriagePolicy(spans[0] * HOUR, spans[1] * HOUR, spans[2] * HOUR)
    rows, claims, steps = [], {}, {}
    for n, (issued, expires, claimed, taken, status) in enumerate(requests):
        row = rfi(f"R{n}", issued, expires, status=status)
        rows.append(row)
        if claimed is not None:
            claims[row.id] = Claim("p", row.id, "ana", NOW - claimed * HOUR)
        steps[row.id] = [TriageStep(row.id, name, "ana", NOW - ago * HOUR, "", round_no)
                         for name, ago, round_no in sorted(taken, key=lambda s: -s[1])]
    tally = BreachTally(lambda: HeldTriage(claims, steps, policy), NOW)
    tally.add_page(rows)  # as `rfis due` hands on each page

    expected = {}
    for row in rows:  # the inbox's own reckoning, with the steps of the round the API shows
        current = [s for s in steps[row.id] if s.round_no == 2]
        shown = row_triage(row, claims.get(row.id), current, policy, NOW)
        if shown.left is not None and shown.left.breached:
            expected[row.id] = (shown.step, shown.left.level)
    found = tally.found()
    assert {b.rfi_id: (b.step, b.level) for b in found} == expected
    assert [b.late_seconds for b in found] == sorted((b.late_seconds for b in found), reverse=True)


def test_steps_of_an_earlier_round_do_not_pause_the_current_one() -> None:
    row = rfi("R", issued_hours_ago=30, expires_in_hours=100)
    earlier_wait = TriageStep("R", "wait", "ana", NOW - 40 * HOUR, "", 1)
    tally = BreachTally(lambda: HeldTriage({}, {"R": [earlier_wait]}, TriagePolicy()), NOW)
    tally.add(row)
    assert [(b.step, b.level, b.late_seconds) for b in tally.found()] == [("unclaimed", "claim", 26 * 3600)]


def test_a_record_that_cannot_be_read_says_why_and_finds_nothing() -> None:
    calls = []

    def unreadable() -> HeldTriage:
        calls.append(1)
        raise RecordTooNew("the record file belongs to a newer console")

    tally = BreachTally(unreadable, NOW)
    for n in range(3):
        tally.add(rfi(f"R{n}", issued_hours_ago=30, expires_in_hours=1))
    assert tally.found() == [] and tally.problem == "the record file belongs to a newer console"
    assert calls == [1], "the record is asked once, not once a request"


def test_rounds_wait_for_a_slow_record_read_and_are_all_counted() -> None:
    """`rfis due` does not stop its walk for the record: rounds wait until the read is done, none is lost."""
    read = []
    ready = [False]

    def held() -> HeldTriage:
        read.append(1)
        return HeldTriage({}, {}, TriagePolicy())

    tally = BreachTally(held, NOW, ready=lambda: ready[0])
    tally.add(rfi("A", issued_hours_ago=30, expires_in_hours=100))
    tally.add(rfi("B", issued_hours_ago=31, expires_in_hours=100))
    assert read == [], "the record's read is not waited for while it is not done"
    ready[0] = True
    tally.add(rfi("C", issued_hours_ago=32, expires_in_hours=100))
    assert read == [1]
    assert [b.rfi_id for b in tally.found()] == ["C", "B", "A"]


def test_found_waits_for_the_read_when_the_walk_ends_first() -> None:
    tally = BreachTally(lambda: HeldTriage({}, {}, TriagePolicy()), NOW, ready=lambda: False)
    tally.add(rfi("A", issued_hours_ago=30, expires_in_hours=100))
    assert [b.rfi_id for b in tally.found()] == ["A"]


def test_without_a_policy_set_nothing_is_breached_nor_counts_down() -> None:
    """Nobody set service levels (the local record before `record policy`): requests issued days ago, unclaimed
    or made ready on a round about to expire, breach nothing: not in the tally `rfis due` prints, not in the
    banner's count from the record, not in the inbox's row (no time left at all, not even "paused")."""
    from stablepay_console.services.triage.due import breached_count, open_breaches
    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record_triage_types import NO_POLICY, RoundFact, TriageFacts

    old, ready, waiting = rfi("OLD", 200, 5), rfi("READY", 20, 2), rfi("WAIT", 50, 30)
    claims = {r.id: Claim("p", r.id, "ana", NOW - HOUR) for r in (ready, waiting)}
    steps = {"READY": [TriageStep("READY", "ready", "ana", NOW - HOUR / 2, "", 2)],
             "WAIT": [TriageStep("WAIT", "wait", "ana", NOW - HOUR / 2, "", 2)]}
    rows = [old, ready, waiting]
    with_levels = BreachTally(lambda: HeldTriage(claims, steps, TriagePolicy()), NOW)
    with_levels.add_page(rows)
    assert {b.rfi_id for b in with_levels.found()} == {"OLD", "READY"}, "the same rows breach with a policy"

    tally = BreachTally(lambda: HeldTriage(claims, steps, NO_POLICY), NOW)
    tally.add_page(rows)
    tally.add_open_rounds([("OLDER", 1, (NOW - 300 * HOUR).isoformat(), None)])  # the team watcher's rows
    assert tally.found() == [] and tally.problem is None
    assert breached_count(rows, claims, steps, NO_POLICY, NOW) == 0
    for row in rows:
        assert row_triage(row, claims.get(row.id), steps.get(row.id, ()), NO_POLICY, NOW).left is None
    rounds = [RoundFact("OLD", 2, NOW - 200 * HOUR, NOW + 5 * HOUR, None)]
    assert [b.rfi_id for b in open_breaches(TriageFacts(rounds=rounds, policy=TriagePolicy()), NOW)] == ["OLD"]
    assert open_breaches(TriageFacts(rounds=rounds, policy=NO_POLICY), NOW) == []  # the banner's count

    record = open_record()  # the local record reads as no policy until someone sets one
    try:
        assert record.triage_policy() == NO_POLICY and not record.triage_policy().is_set
        record.set_triage_policy(TriagePolicy(claim_within=2 * HOUR), "ana", NOW)
        assert record.triage_policy().is_set
    finally:
        record.close()


def test_a_round_shorter_than_the_approve_span_has_no_approve_level() -> None:
    """Approve 12 h before expiry, on a round issued 1 h ago that expires in 10 h: the approve-by would be 3 h
    before the round was issued. An answer made ready now is not "breached 2h ago": no approve level applies.
    On a round long enough for it, the level counts down as before."""
    claims = {"SHORT": Claim("p", "SHORT", "ana", NOW - HOUR / 2), "LONG": Claim("p", "LONG", "ana", NOW - HOUR / 2)}
    steps = {rfi_id: [TriageStep(rfi_id, "ready", "ana", NOW - HOUR / 4, "", 2)] for rfi_id in claims}
    policy = TriagePolicy()
    short = row_triage(rfi("SHORT", 1, 10), claims["SHORT"], steps["SHORT"], policy, NOW)
    assert short.step == "ready" and short.left is None
    long = row_triage(rfi("LONG", 1, 20), claims["LONG"], steps["LONG"], policy, NOW)
    assert long.left is not None and long.left.level == "approve" and long.left.left == 8 * HOUR
