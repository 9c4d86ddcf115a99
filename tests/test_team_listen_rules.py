"""The listener's rules in the test process: what an announcement becomes, how a window's announcements are told
on, and that whoever listens can never stop the listening. `tests/test_team_live.py` proves them on a real
PostgreSQL; these are the rules one at a time, with no clock but the window's own length."""

from __future__ import annotations

import json
import logging
import time

import pytest

from stablepay_console.storage.postgres.listen import (
    FLOOD,
    RESYNC,
    Change,
    Hints,
    TeamListener,
    parse_change,
)
from stablepay_console.storage.postgres.url import parse

NOTE = json.dumps({"kind": "notes", "server": "sandbox https://x.example", "rfi": "r1", "who": "bob", "op": "add"})


def test_an_announcement_is_read_as_its_five_fields_and_anything_else_as_nothing() -> None:
    assert parse_change(NOTE) == Change("notes", "sandbox https://x.example", "r1", "bob", "add")
    assert parse_change('{"kind": "claims"}') == Change("claims", "", "", "", ""), "a field left out is empty"
    assert parse_change("[1, 2]") is None and parse_change("not json") is None and parse_change("") is None


def test_an_announcement_is_bounded_in_size_and_nesting_and_each_field_in_length() -> None:
    def padded(size: int) -> str:
        return json.dumps({"kind": "notes", "pad": "x" * (size - 28)})

    assert len(padded(8000)) == 8000 and parse_change(padded(8000)) == Change("notes")
    assert parse_change(padded(8001)) is None, "over 8,000 characters"
    assert parse_change('{"kind": "notes", "a": {"b": 1}}') == Change("notes"), "nested twice: read"
    assert parse_change('{"kind": "notes", "a": {"b": [1]}}') is None, "nested three deep: not read"
    long = parse_change(json.dumps({"kind": "k" * 3000}))
    assert long is not None and long.kind == "k" * 1999 + "…", "a field is cut to 2,000 characters"
    shown = parse_change(json.dumps({"kind": "notes", "who": "[red]bob\x1b[2J"}))
    assert shown is not None and "\x1b" not in shown.who, "server text is plain text"


def told() -> tuple[list[Change], Hints]:
    said: list[Change] = []
    return said, Hints(said.append, seconds=3600.0)


def test_the_first_announcement_is_told_at_once_and_the_rest_of_its_window_waits() -> None:
    said, hints = told()
    assert not hints.pending and hints.first is None and not hints.several and hints.count == 0
    hints.heard(NOTE)
    assert said == [parse_change(NOTE)] and not hints.pending
    hints.heard(NOTE)
    assert said == [parse_change(NOTE)] and hints.pending and hints.first == NOTE and not hints.several
    assert hints.count == 1 and not hints.flooded


def test_a_window_of_one_change_is_told_as_that_change_and_of_several_as_one_resync() -> None:
    said, hints = told()
    hints.heard(NOTE)
    hints.heard(NOTE)
    hints.heard(NOTE)
    assert not hints.several, "the same text again is the same change"
    hints.told_at = float("-inf")  # the window is over
    hints.flush()
    assert said == [parse_change(NOTE)] * 2 and hints.count == 0
    other = json.dumps({"kind": "claims", "rfi": "r2"})
    hints.heard(NOTE)
    hints.heard(other)
    assert hints.several and hints.first == NOTE
    hints.told_at = float("-inf")
    hints.flush()
    assert said[-1] == Change("resync") and not hints.pending and hints.first is None and not hints.several


def test_a_resync_the_listener_knows_of_is_told_as_a_resync_and_a_note_it_knows_of_as_read_again() -> None:
    said, hints = told()
    hints.add(Change("resync"))
    assert said == [Change("resync")]
    said2, other = told()
    other.add(Change("notes"))
    assert said2 == [Change("resync")], "a change the listener knows of by itself: read everything again"
    said3, third = told()
    third.heard(None)
    assert said3 == [Change("resync")] and third.count == 0, "told: a new window counts from nothing"


def test_an_unreadable_announcement_alone_is_told_as_nothing() -> None:
    said, hints = told()
    hints.heard("not json")
    assert said == [] and not hints.pending
    hints.heard(NOTE)
    assert said == [parse_change(NOTE)], "the window did not start: the next one is told at once"


def test_more_than_the_flood_in_a_window_is_a_flood_and_a_deaf_window_is_told_as_a_resync() -> None:
    said, hints = told()
    hints.heard(NOTE)  # told at once: the window starts, counting from nothing
    for _ in range(FLOOD):
        hints.heard(NOTE)
    assert not hints.flooded and hints.count == FLOOD
    hints.heard(NOTE)
    assert hints.flooded
    hints.deafen()
    assert hints.first == RESYNC and hints.several
    hints.told_at = float("-inf")
    hints.flush()
    assert said[-1] == Change("resync") and hints.count == 0 and not hints.flooded


def test_a_window_ends_when_its_length_has_passed_not_before() -> None:
    said, hints = told()
    hints.heard(NOTE)
    hints.heard(NOTE)
    assert 3590 < hints.wait(10_000) <= 3600 and hints.wait(0.5) == 0.5
    hints.flush()
    assert len(said) == 1, "not yet over"
    quiet = Hints(said.append, seconds=0.0)
    assert quiet.wait(0.5) == 0.5, "nothing pending: wait as long as asked"


def listener(**kwargs) -> TeamListener:  # type: ignore[no-untyped-def]
    return TeamListener(parse("postgresql://alice@127.0.0.1:1/team"), **kwargs)


def test_a_new_listener_knows_nothing_yet() -> None:
    heard = listener(on_change=lambda change: None)
    assert (heard.reachable, heard.problem, heard.tries) == (None, "", 0)
    heard.stop()  # never started: nothing to wait for


def test_the_state_is_told_each_time_it_changes_and_only_then() -> None:
    states: list[tuple[bool, str]] = []
    heard = listener(on_change=lambda change: None, on_state=lambda up, why: states.append((up, why)))
    heard._state(True)
    heard._state(True)
    heard._state(False, "gone")
    heard._state(False, "gone")
    heard._state(False, "still gone")
    assert states == [(True, ""), (False, "gone"), (False, "still gone")]
    assert (heard.reachable, heard.problem) == (False, "still gone")


def test_whoever_listens_cannot_stop_the_listening_and_each_failure_is_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("the screen is gone")

    heard = listener(on_change=broken, on_state=broken)
    with caplog.at_level(logging.WARNING, logger="stablepay_console.storage.postgres.listen"):
        heard._state(True)
        heard._tell(Change("notes"))
    assert [(r.getMessage(), r.exc_info is not None and r.exc_info[0] is RuntimeError) for r in caplog.records] == [
        ("Could not pass on the team record's state", True), ("Could not pass on a change of the team record", True)]
    assert heard.reachable is True


def test_a_record_that_cannot_be_reached_is_tried_again_each_time_longer_and_said_unreachable() -> None:
    import threading

    states: list[tuple[bool, str]] = []
    tried = threading.Event()

    def state(up: bool, why: str) -> None:
        states.append((up, why))
        if len(states) >= 1:
            tried.set()

    heard = listener(on_change=lambda change: None, on_state=state, first_wait=0.01, longest_wait=0.04).start()
    assert heard._thread is not None and heard._thread.daemon and heard._thread.name == "stablepay-team-listen"
    assert tried.wait(10)
    deadline = time.monotonic() + 10
    while heard.tries < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    heard.stop(5)
    assert not heard._thread.is_alive() and heard.tries >= 3, "tried again, and again"
    up, why = states[0]
    assert up is False and why.startswith("The team record at 127.0.0.1:1/team cannot be reached: "), why
