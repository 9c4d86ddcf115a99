"""What the record's own types decide, with no store: times kept in one form (aware only, UTC, milliseconds) and read
back aware; a kept request's JSON text with its round put back; a round's columns read from its text, cleaned and
bounded; a sighting's details made once, on first use; what a history, an import, an entry and a sweep say.

Both stores build and read these (tests/test_record_contract.py proves them through each store); here each rule is
proved where it lives.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone

import pytest

from stablepay_console.storage.record_json import UNREADABLE
from stablepay_console.storage.record_types import (
    AuditEntry,
    Imported,
    RfiHistory,
    RfiRecord,
    RfiSighting,
    RoundSeen,
    RoundSighting,
    Sweep,
    kept_text,
    parse_stamp,
    stamp,
)

PARIS = timezone(timedelta(hours=1))
MOMENT = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)


# --- times ---------------------------------------------------------------------------------------------------------


def test_a_time_is_kept_in_utc_to_the_millisecond_and_a_naive_time_is_refused() -> None:
    assert stamp(datetime(2026, 11, 20, 10, 30, 0, 123456, tzinfo=PARIS)) == "2026-11-20T09:30:00.123+00:00"
    with pytest.raises(ValueError) as refused:
        stamp(datetime(2026, 11, 20, 9, 30))
    assert str(refused.value) == "The record keeps timezone-aware times only."


def test_a_time_is_kept_in_utc_whatever_the_machines_own_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert stamp(datetime(2026, 11, 20, 10, 30, tzinfo=PARIS)) == "2026-11-20T09:30:00.000+00:00"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_kept_time_reads_back_aware_in_its_own_zone_and_a_naive_one_as_utc() -> None:
    assert parse_stamp("2026-11-20T09:30:00") == MOMENT
    assert parse_stamp("2026-11-20T09:30:00").tzinfo is timezone.utc
    kept = parse_stamp("2026-11-20T10:30:00+01:00")
    assert kept == MOMENT and kept.utcoffset() == timedelta(hours=1)  # its zone is not replaced by UTC
    assert parse_stamp(stamp(MOMENT)) == MOMENT


# --- a kept request's text ------------------------------------------------------------------------------------------


def test_a_kept_request_gets_its_round_back_as_its_last_field() -> None:
    assert json.loads(kept_text('{"id":"rfi_1","status":"issued"}', '{"no":2}')) == {
        "id": "rfi_1", "status": "issued", "round": {"no": 2}}
    assert kept_text('{"id":"rfi_1"} \n', None) == '{"id":"rfi_1","round":null}'
    assert kept_text('{ "id":"rfi_1" }', None) == '{ "id":"rfi_1","round":null}'
    assert kept_text("{}", '{"no":1}') == '{"round":{"no":1}}'
    assert kept_text("{ }", None) == '{"round":null}'


# --- a round as fetched ---------------------------------------------------------------------------------------------


def test_a_rounds_columns_are_read_from_its_text_cleaned_and_bounded() -> None:
    wire = json.dumps({"id": "rnd_\x1b[31m" + "x" * 100, "issuedAt": "2026-11-20T10:30:00+01:00",
                       "expiresAt": "2026-11-21T09:30:00Z", "link": "https://example.com/" + "l" * 3000})
    seen = RoundSighting(1, wire, "f1")
    assert seen.round_id.startswith("rnd_\\x1b[31m") and len(seen.round_id) == 80
    assert seen.issued_at == "2026-11-20T09:30:00.000+00:00"
    assert seen.expires_at == "2026-11-21T09:30:00.000+00:00"
    assert seen.submitted_at is None
    assert seen.link is not None and seen.link.startswith("https://example.com/ll") and len(seen.link) == 2000


def test_a_round_without_its_issue_time_is_not_kept_and_an_empty_link_is_none() -> None:
    seen = RoundSighting(1, json.dumps({"submittedAt": "2026-11-20T09:30:00Z", "link": ""}), "f1")
    assert seen.round_id == "" and seen.link is None
    assert seen.submitted_at == "2026-11-20T09:30:00.000+00:00"
    with pytest.raises(ValueError, match="A round is kept with its issuedAt"):
        _ = seen.issued_at
    unreadable = RoundSighting(1, "[" * 100_000, "f1")
    assert unreadable.round_id == "" and unreadable.link is None and unreadable.expires_at is None


def test_a_sightings_details_are_made_once_on_first_use_and_its_repr_holds_no_text() -> None:
    made: list[int] = []
    round_seen = RoundSighting(1, '{"id":"rnd_1"}', "f1")

    def details() -> tuple[str, RoundSighting | None]:
        made.append(1)
        return '{"id":"rfi_1"}', round_seen

    sighting = RfiSighting("rfi_1", "issued", "fp", details=details)
    assert not made  # a request kept with the same fingerprint never needs them
    assert sighting.round is round_seen and sighting.wire_json == '{"id":"rfi_1"}'
    assert sighting.wire_json == '{"id":"rfi_1"}' and made == [1]
    assert repr(sighting) == "RfiSighting('rfi_1', 'issued', 'fp')"
    assert RfiSighting("rfi_3", "issued", "fp3").wire_json == ""
    given = RfiSighting("rfi_2", "closed", "fp2", '{"id":"rfi_2"}')
    assert given.wire_json == '{"id":"rfi_2"}' and given.round is None


# --- what the record holds ------------------------------------------------------------------------------------------


def round_seen(link: str | None, wire: dict[str, object]) -> RoundSeen:
    return RoundSeen(1, 1, "rnd_1", MOMENT, None, None, link, wire, MOMENT, MOMENT)


def test_a_rounds_link_state_and_its_items_as_objects_only() -> None:
    assert round_seen("https://example.com/r", {}).link_state == "open"
    assert round_seen(None, {}).link_state == "gone"
    assert round_seen(None, {"items": [{"id": "i1"}, "text", 3, {"id": "i2"}]}).items == [{"id": "i1"}, {"id": "i2"}]
    assert round_seen(None, {"items": {"id": "i1"}}).items == []
    assert round_seen(None, {}).items == []


def test_a_history_gives_the_request_as_last_seen_with_its_latest_round_only_while_one_was_open() -> None:
    assert RfiHistory("p", "rfi_1", None).last_request() is None and not RfiHistory("p", "rfi_1", None).seen

    def history(has_round: bool, rounds: list[RoundSeen]) -> RfiHistory:
        record = RfiRecord("p", "rfi_1", "sandbox", "issued", {"id": "rfi_1"}, has_round, MOMENT, MOMENT)
        return RfiHistory("p", "rfi_1", record, rounds)

    first, latest = round_seen(None, {"no": 1}), round_seen(None, {"no": 2})
    assert history(True, [first, latest]).seen
    assert history(True, [first, latest]).last_request() == {"id": "rfi_1", "round": {"no": 2}}
    assert history(False, [first, latest]).last_request() == {"id": "rfi_1", "round": None}
    assert history(True, []).last_request() == {"id": "rfi_1", "round": None}
    kept = history(True, [latest])
    kept.last_request()
    assert kept.record is not None and "round" not in kept.record.wire  # the kept request is not changed


def test_an_import_says_who_when_and_from_where_and_what_it_was_written_as() -> None:
    on = datetime(2026, 11, 26, 8, 0, tzinfo=timezone.utc)
    imported = Imported("host:/r.sqlite3", "alice", on, "bob", written_at=MOMENT)
    assert imported.describe() == (
        "imported by alice on 2026-11-26 from a local record, where it was written as bob")
    assert imported.to_json() == {"importedBy": "alice", "importedAt": on.isoformat(),
                                  "importedFrom": "host:/r.sqlite3", "writtenAs": "bob",
                                  "writtenAt": MOMENT.isoformat()}
    as_text = Imported("host:/r.sqlite3", "alice", "2026-11-26T08:00:00+00:00", "bob", "2026-11-20")
    assert as_text.describe().startswith("imported by alice on 2026-11-26 from")
    assert as_text.to_json()["importedAt"] == "2026-11-26T08:00:00+00:00"
    assert as_text.to_json()["writtenAt"] == "2026-11-20"
    unknown = Imported("host:/r.sqlite3", "alice", None, "bob")
    assert unknown.describe() == "imported by alice from a local record, where it was written as bob"
    assert Imported("h", "alice", "", "bob").describe() == unknown.describe()


def entry(detail: str, **changes: object) -> AuditEntry:
    fields: dict[str, object] = {"seq": 3, "at": "2026-11-20T09:30:00.000+00:00", "actor": "alice", "profile": "p",
                                 "environment": "sandbox", "action": "note.add", "target": "rfi_1", "outcome": "ok",
                                 "detail": detail, "prev_hash": "a" * 64, "hash": "b" * 64, **changes}
    return AuditEntry(**fields)  # type: ignore[arg-type]


def test_an_entry_reads_its_time_and_details_and_shows_unreadable_details_as_such() -> None:
    good = entry('{"chars": 5}')
    assert good.time == MOMENT and good.details == {"chars": 5} and good.readable
    assert good.to_json() == {"seq": 3, "at": "2026-11-20T09:30:00.000+00:00", "actor": "alice", "profile": "p",
                              "environment": "sandbox", "action": "note.add", "target": "rfi_1", "outcome": "ok",
                              "detail": {"chars": 5}, "prevHash": "a" * 64, "hash": "b" * 64}
    for detail in ("[" * 100_000, "[1, 2]", "not json"):
        bad = entry(detail)
        assert not bad.readable and bad.details == {}
        assert bad.to_json()["detail"] == UNREADABLE
        assert bad.content()["detail"] == detail  # the hash covers the text as stored


def test_an_entry_says_whether_it_was_typed_and_how_it_was_imported() -> None:
    assert entry("{}", typed=True).to_json()["typed"] is True
    assert entry("{}", typed=False).to_json()["typed"] is False
    assert "typed" not in entry("{}").to_json() and "imported" not in entry("{}").to_json()
    imported = Imported("host:/r.sqlite3", "alice", None, "bob")
    shown = entry("{}", imported=imported).to_json()["imported"]
    assert shown == {**imported.to_json(), "description": imported.describe()}


def test_a_sweep_is_fresh_within_two_intervals() -> None:
    def sweep(age: float) -> Sweep:
        return Sweep("server", MOMENT, 60, "watcher", "radar", age)

    assert sweep(0).fresh and sweep(120).fresh
    assert not sweep(120.5).fresh
