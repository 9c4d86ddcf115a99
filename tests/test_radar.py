"""The deadline radar without any UI: what is due, what changed, what is remembered, the sandbox control routes."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablepay_console.api import Rfi, StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.control import add_request, open_round
from stablepay_console.services.kept import keep
from stablepay_console.services.watch.due import DueTally, due_now, due_report
from stablepay_console.services.watch.events import CONSOLE_MARKS, Tracker
from stablepay_console.services.watch.radar import RadarPoller, RadarUpdate
from stablepay_console.services.watch.walk import every_rfi
from stablepay_console.storage import watch_state
from tests.conftest import FIXED_NOW

H = timedelta(hours=1)


def rfi(rid: str = "r1", status: str = "issued", deadline: timedelta | None = 5 * H, round_no: int = 1,
        round_id: str = "round-1", user: str | None = "u1") -> Rfi:
    expires = (FIXED_NOW + deadline).isoformat() if deadline is not None else None
    return Rfi.model_validate({
        "id": rid, "kind": "transaction", "status": status, "subjectType": "individual", "userId": user,
        "createdAt": (FIXED_NOW - 100 * H).isoformat(), "currentRound": round_no,
        "round": {"id": round_id, "round": round_no, "issuedAt": (FIXED_NOW - 10 * H).isoformat(),
                  "expiresAt": expires, "items": []},
    })


def kinds(events: list) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(e.kind, e.rfi.id) for e in events]


# --- due ---------------------------------------------------------------------------------


def test_due_report_splits_due_and_overdue_nearest_first() -> None:
    rfis = [
        rfi("later", deadline=20 * H), rfi("soon", deadline=2 * H), rfi("far", deadline=30 * H),
        rfi("late", deadline=-3 * H), rfi("later-late", deadline=-1 * H), rfi("none", deadline=None),
        rfi("answered", status="submitted", deadline=H),
    ]
    report = due_report(rfis, FIXED_NOW, 24 * H)
    assert [r.id for r in report.due] == ["soon", "later"]
    assert [r.id for r in report.overdue] == ["late", "later-late"]
    assert [r.id for r in report.nearest_first] == ["late", "later-late", "soon", "later"]
    assert report.checked == 7
    assert [r.id for r in due_report(rfis, FIXED_NOW, 48 * H).due] == ["soon", "later", "far"]


@settings(max_examples=200, deadline=None)
@given(requests=st.lists(st.tuples(st.sampled_from(["issued", "submitted", "expired"]),
                                   st.none() | st.integers(-72, 72)), max_size=30),
       window=st.integers(0, 48))
def test_a_page_at_once_is_tallied_as_its_requests_one_by_one(
        requests: list[tuple[str, int | None]], window: int) -> None:
    """`rfis due` tallies a page in one loop (`add_page`): the same due and overdue, nearest first, as `add`."""
    rfis = [rfi(f"r{n}", status=status, deadline=None if hours is None else hours * H)
            for n, (status, hours) in enumerate(requests)]
    one_by_one, paged = DueTally(FIXED_NOW, window * H, keep), DueTally(FIXED_NOW, window * H, keep)
    for request in rfis:
        one_by_one.add(request)
    paged.add_page(rfis[:10])
    paged.add_page(rfis[10:])
    assert paged.nearest() == one_by_one.nearest()
    assert paged.checked == one_by_one.checked == len(rfis)


def test_a_deadline_at_this_very_moment_is_overdue_and_one_at_the_windows_end_is_due() -> None:
    report = due_report([rfi("now", deadline=timedelta(0)), rfi("edge", deadline=24 * H),
                         rfi("past-edge", deadline=24 * H + timedelta(seconds=1))], FIXED_NOW, 24 * H)
    assert [r.id for r in report.overdue] == ["now"]
    assert [r.id for r in report.due] == ["edge"]
    assert (report.within, report.at) == (24 * H, FIXED_NOW)


def test_requests_with_the_same_deadline_stay_in_the_order_they_came() -> None:
    report = due_report([rfi("b", deadline=2 * H), rfi("a", deadline=2 * H), rfi("c", deadline=-H),
                         rfi("0", deadline=-H)], FIXED_NOW, 24 * H)
    assert [r.id for r in report.due] == ["b", "a"]
    assert [r.id for r in report.overdue] == ["c", "0"]


def test_a_request_already_kept_is_tallied_by_its_deadline_and_counted() -> None:
    """The team watcher's rows come kept, with their deadline: due, overdue or left out as a request would be."""
    tally: DueTally[str] = DueTally(FIXED_NOW, 24 * H, keep)
    tally.add_kept(FIXED_NOW + 2 * H, "soon")
    tally.add_kept(FIXED_NOW - H, "late")
    tally.add_kept(FIXED_NOW + 30 * H, "far")
    tally.add_kept(FIXED_NOW + H, "sooner")
    assert tally.nearest() == (["late"], ["sooner", "soon"])
    assert tally.checked == 4


async def test_what_is_due_now_is_read_from_every_issued_request_of_the_api(sandbox: Sandbox) -> None:
    async with client_for(sandbox) as client:
        issued = await every_rfi(client, RfiFilters(status="issued"))
        report = await due_now(client, FIXED_NOW, 24 * H)
    expected = due_report(issued, FIXED_NOW, 24 * H)
    assert report.due and report.overdue
    assert [r.id for r in report.nearest_first] == [r.id for r in expected.nearest_first]
    assert report.checked == len(issued)
    assert (report.within, report.at) == (24 * H, FIXED_NOW)


# --- watch events ------------------------------------------------------------------------


def test_first_poll_is_a_baseline_that_reports_deadlines_only() -> None:
    tracker = Tracker()
    events = tracker.observe([rfi("a", deadline=5 * H), rfi("b", deadline=50 * H), rfi("c", deadline=500 * H),
                              rfi("d", deadline=-H), rfi("e", status="resolved", deadline=H)], FIXED_NOW)
    assert kinds(events) == [("deadline_24h", "a"), ("deadline_72h", "b"), ("deadline_passed", "d")]
    assert tracker.observe([rfi("a", deadline=5 * H), rfi("b", deadline=50 * H)], FIXED_NOW) == []


def test_marks_are_reported_once_each_as_time_passes() -> None:
    tracker = Tracker()
    item = rfi("a", deadline=80 * H)
    said = []
    for hours_later in (0, 10, 20, 50, 60, 70, 79, 79.5, 81, 90):
        said += [e.kind for e in tracker.observe([item], FIXED_NOW + timedelta(hours=hours_later))]
    assert said == ["deadline_72h", "deadline_24h", "deadline_1h", "deadline_passed"]


def test_new_request_new_round_and_status_change() -> None:
    tracker = Tracker()
    tracker.observe([rfi("a", deadline=100 * H), rfi("b", status="submitted", deadline=None)], FIXED_NOW)
    events = tracker.observe([
        rfi("new", deadline=200 * H),
        rfi("a", status="submitted", deadline=100 * H),
        rfi("b", status="issued", deadline=100 * H, round_no=2, round_id="round-2"),
    ], FIXED_NOW)
    assert kinds(events) == [("new_request", "new"), ("status_changed", "a"), ("new_round", "b")]
    assert events[1].previous_status == "issued"
    assert "status issued -> submitted" in events[1].line()
    assert "round 2 opened (compliance asked again)" in events[2].line()


def test_a_new_round_resets_the_marks_and_an_extended_deadline_is_watched_again() -> None:
    tracker = Tracker()
    assert kinds(tracker.observe([rfi("a", deadline=2 * H)], FIXED_NOW)) == [("deadline_24h", "a")]
    again = tracker.observe([rfi("a", deadline=2 * H, round_no=2, round_id="round-2")], FIXED_NOW)
    assert kinds(again) == [("new_round", "a"), ("deadline_24h", "a")]
    # A deadline that moves a little (a simulator rebuilt a minute later) says nothing new.
    assert tracker.observe([rfi("a", deadline=3 * H, round_no=2, round_id="round-2")], FIXED_NOW) == []
    # Extended past the 24 h mark: nothing to say now, but crossing it again is reported again.
    assert tracker.observe([rfi("a", deadline=30 * H, round_no=2, round_id="round-2")], FIXED_NOW) == []
    later = tracker.observe([rfi("a", deadline=30 * H, round_no=2, round_id="round-2")], FIXED_NOW + 7 * H)
    assert kinds(later) == [("deadline_24h", "a")]


def test_memory_survives_a_round_trip_through_the_state_file() -> None:
    tracker = Tracker()
    tracker.observe([rfi("a", deadline=5 * H), rfi("b", deadline=None)], FIXED_NOW)
    watch_state.save("team", "https://api.example", tracker.to_json())
    restored = Tracker()
    restored.load_json(watch_state.load("team", "https://api.example"))
    assert restored.primed
    assert restored.observe([rfi("a", deadline=5 * H), rfi("b", deadline=None)], FIXED_NOW) == []
    assert watch_state.load("team", "https://elsewhere.example") is None
    assert watch_state.load("other", "https://api.example") is None


def test_a_complete_poll_forgets_requests_that_are_gone() -> None:
    tracker = Tracker()
    tracker.observe([rfi("a"), rfi("b")], FIXED_NOW)
    tracker.observe([rfi("a")], FIXED_NOW, complete=True)
    assert set(tracker.seen) == {"a"}


@pytest.mark.parametrize(
    "junk", ["", "not json", "[]", '{"version": 1}', '{"version": 1, "baseUrl": "u", "memory": 3}']
)
def test_an_unreadable_state_file_starts_a_fresh_memory(junk: str) -> None:
    path = watch_state.state_path("team")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(junk, encoding="utf-8")
    assert watch_state.load("team", "u") is None


def test_hostile_values_are_cleaned_in_lines_and_in_the_state_file(tmp_path: Path) -> None:
    evil = rfi("\x1b]52;c;ZXZpbA==\x07id", status="\x1b[2Jissued", user="\u202euser")
    tracker = Tracker()
    tracker.observe([], FIXED_NOW)
    (event,) = tracker.observe([evil], FIXED_NOW)
    assert "\x1b" not in event.line() and "\u202e" not in event.line()
    path = watch_state.save("team", "u", tracker.to_json())
    text = path.read_text(encoding="utf-8")
    assert "\x1b" not in text and "\\u001b" not in text  # stored cleaned, not merely JSON-escaped
    json.loads(text)


# --- the console's poller ----------------------------------------------------------------


def client_for(sandbox: Sandbox) -> StablePayClient:
    return StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app))


async def test_poller_counts_and_notifies_only_what_changes(sandbox: Sandbox) -> None:
    poller = RadarPoller()
    async with client_for(sandbox) as client:
        issued = await every_rfi(client, RfiFilters(status="issued"))
        first = await poller.poll(client, FIXED_NOW)
        expected = due_report(issued, FIXED_NOW, 24 * H)
        assert (first.due, first.overdue) == (len(expected.due), len(expected.overdue))
        assert first.due and first.overdue and first.events == []  # the baseline notifies nothing
        assert first.label == f"{first.due} due < 24h · {first.overdue} overdue"
        add_request(sandbox.data, sandbox.state.rng, timedelta(minutes=30))
        answered = next(r for r in sandbox.data.rfis if r.status == "submitted")
        open_round(sandbox.data, sandbox.state.rng, answered.id, timedelta(hours=48))
        second = await poller.poll(client, FIXED_NOW)
    assert sorted(e.kind for e in second.events) == ["new_request", "new_round"]  # one notice per request
    assert second.due == first.due + 1
    assert CONSOLE_MARKS == (24 * H, H)


def test_label_is_empty_when_nothing_is_due() -> None:
    assert RadarUpdate(0, 0, [], FIXED_NOW).label == ""
    assert RadarUpdate(0, 1, [], FIXED_NOW).label == "1 overdue"


# --- the sandbox control routes ----------------------------------------------------------


async def test_control_routes_raise_requests_and_ask_again(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as http:
        target = next(r for r in sandbox.data.rfis if r.status == "submitted")
        asked = await http.post(f"/_sandbox/rfis/{target.id}/rounds", json={"expiresInMinutes": 90})
        assert asked.status_code == 201
        body = asked.json()
        assert body["status"] == "issued" and body["currentRound"] == (target.current_round or 0) + 1
        assert body["round"]["link"] and body["round"]["submittedAt"] is None
        expires = datetime.fromisoformat(body["round"]["expiresAt"].replace("Z", "+00:00"))
        assert expires - FIXED_NOW == timedelta(minutes=90)
        raised = await http.post("/_sandbox/rfis")
        assert raised.status_code == 201
        listed = (await http.get("/v2/rfis?limit=1", headers={"Authorization": f"Bearer {SANDBOX_KEY}"})).json()
        assert listed["data"][0]["id"] == raised.json()["id"]
        assert (await http.post("/_sandbox/rfis/00000000-0000-4000-8000-000000000000/rounds")).status_code == 404
        assert (await http.post("/_sandbox/rfis", json={"expiresInMinutes": "soon"})).status_code == 400
        assert (await http.post("/_sandbox/rfis", content=b"[1]")).status_code == 400


async def test_control_routes_answer_loopback_callers_only(sandbox: Sandbox) -> None:
    remote = httpx.ASGITransport(app=sandbox.app, client=("203.0.113.9", 5000))
    async with httpx.AsyncClient(transport=remote, base_url="http://localhost") as http:
        refused = await http.post("/_sandbox/rfis")
    assert refused.status_code == 403
    assert len(sandbox.data.rfis) == 240
