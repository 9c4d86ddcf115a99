"""What a watch remembers of a request, saved and read back, and the request it stands in for."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from stablepay_console.api.models import Rfi
from stablepay_console.services.watch.seen import RememberedRfi, Seen, parse_when

UTC = timezone.utc
CREATED = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)
EXPIRES = datetime(2026, 3, 4, 8, 30, tzinfo=UTC)


def rfi(**over: Any) -> Rfi:
    wire: dict[str, Any] = {
        "id": "rfi-1", "kind": "KYC", "status": "OPEN", "subjectType": "USER", "userId": "user-1",
        "createdAt": "2026-03-01T08:30:00Z",
        "round": {"id": "round-1", "round": 2, "issuedAt": "2026-03-01T08:30:00Z",
                  "expiresAt": "2026-03-04T10:30:00+02:00"},
    }
    wire.update(over)
    return Rfi.model_validate(wire)


def test_a_request_is_remembered_saved_and_read_back_whole() -> None:
    seen = Seen.of(rfi())
    assert seen == Seen("OPEN", "round-1", 2, None, EXPIRES, "KYC", "user-1", CREATED)
    saved = seen.to_json()
    assert saved == {"status": "OPEN", "roundId": "round-1", "round": 2, "mark": None,
                     "expiresAt": "2026-03-04T08:30:00Z", "kind": "KYC", "userId": "user-1",
                     "createdAt": "2026-03-01T08:30:00Z"}
    seen.mark = "24h"
    assert Seen.from_json(seen.to_json()) == seen


def test_a_request_without_round_or_user_is_remembered_without_them() -> None:
    seen = Seen.of(rfi(round=None, userId=None))
    assert seen == Seen("OPEN", None, None, None, None, "KYC", None, CREATED)
    assert seen.to_json() == {"status": "OPEN", "roundId": None, "round": None, "mark": None, "kind": "KYC",
                              "createdAt": "2026-03-01T08:30:00Z"}


def test_long_values_are_cut_when_remembered_and_when_read_back() -> None:
    long = {"status": "S" * 60, "kind": "K" * 60, "userId": "U" * 100}
    seen = Seen.of(rfi(**long, round={"id": "R" * 100, "round": 1, "issuedAt": "2026-03-01T08:30:00Z"}))
    expected = ("S" * 39 + "…", "R" * 79 + "…", "K" * 39 + "…", "U" * 79 + "…")
    assert (seen.status, seen.round_id, seen.kind, seen.user_id) == expected
    read = Seen.from_json({**long, "roundId": "R" * 100})
    assert read is not None
    assert (read.status, read.round_id, read.kind, read.user_id) == expected


def test_what_is_not_of_its_type_in_a_saved_request_is_dropped() -> None:
    assert Seen.from_json(["OPEN"]) is None
    assert Seen.from_json({"status": 3}) is None
    read = Seen.from_json({"status": "OPEN", "roundId": 5, "round": True, "mark": 72, "expiresAt": "soon",
                           "kind": 1, "userId": [], "createdAt": 7})
    assert read == Seen("OPEN")
    assert Seen.from_json({"status": "OPEN", "round": "3"}) == Seen("OPEN")
    assert Seen.from_json({"status": "OPEN", "round": 3}) == Seen("OPEN", None, 3)


def test_saved_times_are_read_as_utc_whether_written_with_z_an_offset_or_none() -> None:
    assert parse_when("2026-03-04T08:30:00Z") == EXPIRES
    assert parse_when("2026-03-04T08:30:00") == EXPIRES
    assert parse_when("2026-03-04T09:30:00+01:00") == EXPIRES
    assert parse_when("2026-03-04T08:30:00Z").utcoffset() == timedelta(0)  # type: ignore[union-attr]
    assert parse_when("not a time") is None
    assert parse_when(None) is None


def test_a_remembered_request_stands_in_with_the_apis_names() -> None:
    remembered = RememberedRfi.of("rfi-1", Seen.of(rfi()))
    assert remembered.deadline == EXPIRES
    assert remembered.to_wire() == {
        "id": "rfi-1", "kind": "KYC", "status": "OPEN", "userId": "user-1", "createdAt": "2026-03-01T08:30:00Z",
        "currentRound": 2, "round": {"id": "round-1", "round": 2, "expiresAt": "2026-03-04T08:30:00Z"},
    }


def test_a_remembered_request_without_round_kind_or_time_stands_in_without_them() -> None:
    remembered = RememberedRfi.of("rfi-2", Seen("CLOSED"))
    assert remembered.deadline is None
    assert remembered.to_wire() == {"id": "rfi-2", "kind": "?", "status": "CLOSED", "userId": None,
                                    "currentRound": None, "round": None}
