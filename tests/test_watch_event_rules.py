"""The rules of the watch's events: the words of a line, the JSON of an event, the marks at their edges, the memory."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from stablepay_console.api import Rfi
from stablepay_console.services.watch.events import (
    CONSOLE_MARKS,
    DEADLINE_PASSED,
    NEW_REQUEST,
    NEW_ROUND,
    STATUS_CHANGED,
    Seen,
    Tracker,
    WatchEvent,
    deadline_words,
)
from tests.conftest import FIXED_NOW

H = timedelta(hours=1)
AT = "2026-11-20 09:30 UTC"


def rfi(rid: str = "r1", status: str = "issued", deadline: timedelta | None = 5 * H, *, kind: str = "transaction",
        user: str | None = "u1", round_no: int = 1, round_id: str = "round-1", no_round: bool = False) -> Rfi:
    body: dict[str, Any] = {"id": rid, "kind": kind, "status": status, "subjectType": "individual", "userId": user,
                            "createdAt": (FIXED_NOW - 100 * H).isoformat(), "currentRound": round_no}
    if not no_round:
        body["round"] = {"id": round_id, "round": round_no, "issuedAt": (FIXED_NOW - 10 * H).isoformat(),
                         "expiresAt": (FIXED_NOW + deadline).isoformat() if deadline is not None else None,
                         "items": []}
    return Rfi.model_validate(body)


def kinds(events: list[WatchEvent]) -> list[tuple[str, str]]:
    return [(e.kind, e.rfi.id) for e in events]


# --- the words -----------------------------------------------------------------------------


def test_a_deadline_reads_as_time_left_to_the_minute_or_overdue_from_its_very_moment() -> None:
    assert deadline_words(None, FIXED_NOW) == "no deadline"
    assert deadline_words(FIXED_NOW + 5 * H + timedelta(minutes=12, seconds=40), FIXED_NOW) == "deadline in 5h 12m"
    assert deadline_words(FIXED_NOW + timedelta(minutes=7, seconds=9), FIXED_NOW) == "deadline in 7m"
    assert deadline_words(FIXED_NOW + timedelta(milliseconds=500), FIXED_NOW) == "deadline in 0s"
    assert deadline_words(FIXED_NOW, FIXED_NOW) == "overdue by 0s"
    assert deadline_words(FIXED_NOW - 2 * H - timedelta(minutes=5), FIXED_NOW) == "overdue by 2h 05m"


def test_each_kind_of_event_is_one_line_for_a_person() -> None:
    new = WatchEvent(NEW_REQUEST, rfi(), FIXED_NOW).line()
    assert new == f"{AT}  new_request     r1  new transaction request, issued, deadline in 5h 00m · user u1"
    asked = WatchEvent(NEW_ROUND, rfi(round_no=3, user=None), FIXED_NOW, "submitted").line()
    assert asked == f"{AT}  new_round       r1  round 3 opened (compliance asked again), deadline in 5h 00m"
    roundless = WatchEvent(NEW_ROUND, rfi(no_round=True), FIXED_NOW).line()
    assert roundless == f"{AT}  new_round       r1  round ? opened (compliance asked again), no deadline · user u1"
    changed = WatchEvent(STATUS_CHANGED, rfi(status="submitted"), FIXED_NOW, "issued").line()
    assert changed == f"{AT}  status_changed  r1  status issued -> submitted · user u1"
    passed = WatchEvent(DEADLINE_PASSED, rfi(deadline=-H), FIXED_NOW).line()
    assert passed == f"{AT}  deadline_passed r1  deadline passed (overdue by 1h 00m); a reply is now rejected · user u1"
    crossing = WatchEvent("deadline_24h", rfi(deadline=20 * H), FIXED_NOW).line()
    assert crossing == f"{AT}  deadline_24h    r1  deadline in 20h 00m (at 2026-11-21 05:30 UTC) · user u1"


def test_a_servers_long_values_are_cut_in_a_line() -> None:
    long = rfi("i" * 60, status="s" * 30, kind="k" * 30, user="u" * 60)
    line = WatchEvent(NEW_REQUEST, long, FIXED_NOW).line()
    assert line == (f"{AT}  new_request     {'i' * 39}…  new {'k' * 19}… request, {'s' * 19}…, "
                    f"deadline in 5h 00m · user {'u' * 39}…")
    changed = WatchEvent(STATUS_CHANGED, long, FIXED_NOW, "p" * 30).line()
    assert f"status {'p' * 19}… -> {'s' * 19}… · user" in changed


def test_an_event_as_json_says_when_it_was_found_in_utc_and_the_status_before() -> None:
    body = WatchEvent(STATUS_CHANGED, rfi(status="submitted"), FIXED_NOW, "issued").to_json()
    assert list(body) == ["event", "detectedAt", "previousStatus", "rfi"]
    assert body["event"] == "status_changed" and body["detectedAt"] == "2026-11-20T09:30:00Z"
    assert body["previousStatus"] == "issued" and body["rfi"]["status"] == "submitted"


# --- the marks -----------------------------------------------------------------------------


def test_a_deadline_at_this_very_moment_has_passed_and_one_half_a_second_away_has_not() -> None:
    tracker = Tracker()
    events = tracker.observe([rfi("now", deadline=timedelta(0)), rfi("soon", deadline=timedelta(milliseconds=500))],
                             FIXED_NOW)
    assert kinds(events) == [("deadline_passed", "now"), ("deadline_1h", "soon")]


def test_a_deadline_exactly_on_a_mark_has_crossed_it() -> None:
    events = Tracker().observe([rfi("a", deadline=24 * H), rfi("b", deadline=72 * H)], FIXED_NOW)
    assert kinds(events) == [("deadline_24h", "a"), ("deadline_72h", "b")]


def test_a_mark_under_an_hour_is_named_in_minutes() -> None:
    tracker = Tracker(marks=(timedelta(minutes=30),))
    assert kinds(tracker.observe([rfi("a", deadline=20 * timedelta(minutes=1))], FIXED_NOW)) == [("deadline_30m", "a")]


def test_a_mark_remembered_that_this_watch_does_not_know_is_crossed_again_by_its_own_marks() -> None:
    """The console's marks are 24 h and 1 h: a 72 h mark remembered (by `rfis watch`) holds back none of them."""
    tracker = Tracker(seen={"a": Seen("issued", "round-1", 1, "72h", FIXED_NOW + 20 * H)}, primed=True,
                      marks=CONSOLE_MARKS)
    assert kinds(tracker.tick(FIXED_NOW)) == [("deadline_24h", "a")]


def test_a_deadline_moved_past_its_mark_says_nothing_until_it_is_crossed_again() -> None:
    tracker = Tracker()
    assert kinds(tracker.observe([rfi("a", deadline=2 * H)], FIXED_NOW)) == [("deadline_24h", "a")]
    assert tracker.observe([rfi("a", deadline=50 * H)], FIXED_NOW) == []
    assert tracker.observe([rfi("a", deadline=50 * H)], FIXED_NOW) == []
    assert tracker.tick(FIXED_NOW + H) == []
    assert kinds(tracker.tick(FIXED_NOW + 27 * H)) == [("deadline_24h", "a")]


# --- the baseline and the memory -----------------------------------------------------------


def test_a_look_the_caller_calls_a_baseline_leaves_the_next_look_a_baseline_too() -> None:
    """The watch primes its tracker itself once the sweep is through: until then nothing found is "new"."""
    tracker = Tracker()
    tracker.observe([rfi("a", deadline=100 * H)], FIXED_NOW, baseline=True)
    assert not tracker.primed
    assert tracker.observe([rfi("b", deadline=100 * H)], FIXED_NOW) == []
    assert tracker.primed


def test_a_look_the_caller_says_is_no_baseline_reports_what_is_new_even_before_the_first_poll() -> None:
    tracker = Tracker()
    assert kinds(tracker.observe([rfi("a", deadline=100 * H)], FIXED_NOW, baseline=False)) == [("new_request", "a")]


def test_a_new_round_says_the_status_it_had_before() -> None:
    tracker = Tracker()
    tracker.observe([rfi("a", status="submitted", deadline=None)], FIXED_NOW)
    (event,) = tracker.observe([rfi("a", deadline=100 * H, round_no=2, round_id="round-2")], FIXED_NOW)
    assert event.kind == "new_round" and event.previous_status == "submitted"
    assert event.to_json()["previousStatus"] == "submitted"


def test_a_request_with_a_very_long_id_is_known_again_after_the_state_file() -> None:
    long_id = "x" * 200
    tracker = Tracker()
    tracker.observe([rfi(long_id, deadline=100 * H)], FIXED_NOW)
    restored = Tracker()
    restored.load_json(tracker.to_json())
    assert restored.observe([rfi(long_id, deadline=100 * H)], FIXED_NOW) == []
    # A state file written by hand, its key not cut: the same request still.
    by_hand = Tracker()
    by_hand.load_json({"primed": True, "requests": {long_id: {"status": "issued", "roundId": "round-1", "round": 1}}})
    assert list(by_hand.seen) == [long_id[:79] + "…"]
    assert by_hand.observe([rfi(long_id, deadline=100 * H)], FIXED_NOW) == []


def test_a_state_file_entry_that_is_not_a_request_is_left_out() -> None:
    tracker = Tracker()
    tracker.load_json({"primed": True, "requests": {"junk": "issued", "a": {"status": "issued"}}})
    assert list(tracker.seen) == ["a"]
    assert tracker.tick(FIXED_NOW) == []


def test_a_last_sweep_that_is_no_moment_or_has_no_zone_is_not_trusted() -> None:
    for swept in ("yesterday", "2026-11-20T09:00:00"):
        tracker = Tracker()
        tracker.load_json({"primed": True, "lastSweep": swept, "requests": {}})
        assert tracker.last_sweep is None
    tracker.load_json({"primed": True, "lastSweep": "2026-11-20T09:00:00+00:00", "requests": {}})
    assert tracker.last_sweep == FIXED_NOW - timedelta(minutes=30)
