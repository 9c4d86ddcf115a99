"""Round history: what the clients receive is recorded; a round that changes between fetches is a second round."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta

import pytest

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import Rfi, RfiItem
from stablepay_console.api.sanitize import json_safe
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.history_view import history_text
from stablepay_console.storage.record_types import RfiHistory
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW
from tests.test_audit_chain import cli


class Clock:
    def __init__(self) -> None:
        self.now = FIXED_NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def services(sandbox: Sandbox, clock: Clock) -> Services:
    return Services(sandbox=sandbox, clock=clock)


def issued(sandbox: Sandbox) -> tuple[int, Rfi]:
    """The newest issued request with an open, unanswered round, and where it sits in the sandbox."""
    for index, rfi in enumerate(sandbox.data.rfis):
        if rfi.status == "issued" and rfi.round is not None and rfi.round.submitted_at is None and rfi.round.link:
            return index, rfi
    raise AssertionError("the sandbox has no issued request")


async def fetch(services: Services, status: str | None = "issued") -> None:
    async with services.client_for(EMBEDDED_PROFILE) as client:
        await client.list_rfis(RfiFilters(status=status), limit=100)
    services.record.flush()


def history(services: Services, rfi_id: str) -> RfiHistory:
    return services.record.call(lambda record: record.history("embedded", rfi_id))


async def test_a_round_that_changes_between_two_fetches_is_a_second_round(
    services: Services, sandbox: Sandbox, clock: Clock
) -> None:
    index, rfi = issued(sandbox)
    await fetch(services)
    first = history(services, rfi.id)
    assert first.seen and len(first.rounds) == 1
    assert first.rounds[0].round_no == rfi.round.round and first.rounds[0].items == [  # type: ignore[union-attr]
        i.to_wire() for i in rfi.round.items  # type: ignore[union-attr]
    ]

    old = rfi.round
    assert old is not None
    new_items = [*old.items[1:], RfiItem(id="99999999-0000-4000-8000-000000000001", kind="question",
                                         label="Who is the beneficial owner?", required=True)]
    asked_again = old.model_copy(update={
        "id": "99999999-9999-4999-8999-999999999999", "round": old.round + 1, "issued_at": FIXED_NOW,
        "expires_at": FIXED_NOW + timedelta(days=3), "items": new_items,
        "link": "https://sandbox.stablepay.example/rfi/respond/second",
    })
    sandbox.data.rfis[index] = rfi.model_copy(update={"round": asked_again, "current_round": old.round + 1})
    clock.now = FIXED_NOW + timedelta(hours=2)
    await fetch(services)

    second = history(services, rfi.id)
    assert [r.round_no for r in second.rounds] == [old.round, old.round + 1]
    earlier, latest = second.rounds
    assert earlier.expires_at == old.expires_at and earlier.last_seen == FIXED_NOW, "the earlier round is kept as seen"
    assert latest.first_seen == FIXED_NOW + timedelta(hours=2)
    assert [i["label"] for i in latest.items] == [i.label for i in new_items]
    text = history_text(second)
    assert f"compliance asked again: round {old.round + 1} (was round {old.round})" in text
    assert "items added: Who is the beneficial owner?" in text and f"items dropped: {old.items[0].label}" in text
    assert "deadline 2026-11-23 09:30 UTC" in text
    assert second.last_request()["round"]["id"] == asked_again.id  # type: ignore[index]


async def test_an_answered_round_is_a_new_entry_and_the_status_timeline_grows(
    services: Services, sandbox: Sandbox, clock: Clock
) -> None:
    index, rfi = issued(sandbox)
    await fetch(services)
    assert rfi.round is not None
    answered = rfi.round.model_copy(update={"submitted_at": FIXED_NOW + timedelta(minutes=30), "link": None})
    sandbox.data.rfis[index] = rfi.model_copy(update={"status": "submitted", "round": answered})
    clock.now = FIXED_NOW + timedelta(hours=1)
    await fetch(services, status=None)
    clock.now = FIXED_NOW + timedelta(hours=3)
    await fetch(services, status=None)

    h = history(services, rfi.id)
    assert [(r.round_no, r.link_state) for r in h.rounds] == [(rfi.round.round, "open"), (rfi.round.round, "gone")]
    assert [(s.status, s.first_seen, s.last_seen) for s in h.statuses] == [
        ("issued", FIXED_NOW, FIXED_NOW),
        ("submitted", FIXED_NOW + timedelta(hours=1), FIXED_NOW + timedelta(hours=3)),
    ]
    text = history_text(h)
    assert "answered at 2026-11-20 10:00 UTC; hosted link gone" in text
    assert "submitted  first seen 2026-11-20 10:30 UTC, last seen 2026-11-20 12:30 UTC" in text


async def test_an_unchanged_request_only_moves_last_seen(services: Services, sandbox: Sandbox, clock: Clock) -> None:
    _, rfi = issued(sandbox)
    await fetch(services)
    clock.now = FIXED_NOW + timedelta(days=1)
    await fetch(services)
    h = history(services, rfi.id)
    assert len(h.rounds) == 1 and len(h.statuses) == 1
    assert h.record is not None and h.record.first_seen == FIXED_NOW and h.record.last_seen == clock.now
    assert h.rounds[0].last_seen == clock.now and h.statuses[0].last_seen == clock.now


async def test_a_headless_export_records_every_request(services: Services, sandbox: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.services.export.requests import export_rfis

    async with services.client_for(EMBEDDED_PROFILE) as client:
        result = await export_rfis(client, tmp_path / "all.json", "json", RfiFilters())
    services.record.flush()
    assert result.count == len(sandbox.data.rfis)
    last = sandbox.data.rfis[-1]
    assert history(services, last.id).seen


async def test_hostile_server_text_is_kept_exact_but_shown_escaped(services: Services, sandbox: Sandbox) -> None:
    index, rfi = issued(sandbox)
    assert rfi.round is not None
    evil = RfiItem(id="99999999-0000-4000-8000-000000000002", kind="question", label="Pay \x1b]52;c;aGk=\x07 now\u202e",
                   required=True)
    sandbox.data.rfis[index] = rfi.model_copy(update={"round": rfi.round.model_copy(update={"items": [evil]})})
    await fetch(services)
    h = history(services, rfi.id)
    assert h.rounds[0].items[0]["label"] == evil.label, "the record keeps the server's exact value"
    text = history_text(h)
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b]52;c;aGk=\\x07 now\\u202e" in text


async def test_rfis_history_prints_text_and_json(services: Services, sandbox: Sandbox, capsys) -> None:  # type: ignore[no-untyped-def]
    _, rfi = issued(sandbox)
    await fetch(services)
    assert cli("rfis", "history", rfi.id) == 0
    out = capsys.readouterr().out
    assert f"Request {rfi.id} · profile embedded (sandbox)" in out and "Rounds seen (1):" in out
    assert "Status timeline:" in out
    assert cli("rfis", "history", rfi.id, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seen"] is True and data["status"] == "issued" and data["rounds"][0]["linkState"] == "open"
    assert data["rounds"][0]["items"][0]["id"] == rfi.round.items[0].id  # type: ignore[union-attr]


def test_rfis_history_of_an_unseen_request_fails_saying_so(capsys) -> None:  # type: ignore[no-untyped-def]
    assert cli("rfis", "history", "22222222-2222-4222-8222-222222222222") == 1
    assert "has not been seen under profile embedded" in capsys.readouterr().err


def test_rfis_history_refuses_a_bad_id(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exit_:
        cli("rfis", "history", "not-a-uuid")
    assert exit_.value.code == 2
    assert "request ID" in capsys.readouterr().err


def written(rfi_id: str) -> bool:
    """Whether the file holds the request (read on a connection of its own, not through the worker)."""
    from stablepay_console.storage.local import open_record

    record = open_record(check=False)
    try:
        return record.history("embedded", rfi_id).seen
    finally:
        record.close()


def wait_until(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_pages_wait_for_a_quiet_moment_and_a_read_sees_them_at_once(sandbox: Sandbox) -> None:
    from stablepay_console.services.history import HistoryRecorder
    from stablepay_console.storage.record_worker import RecordWorker

    worker = RecordWorker()
    worker.call(lambda record: None)  # the file exists
    recorder = HistoryRecorder(worker, quiet=0.3, max_hold=60)
    first, second = sandbox.data.rfis[0], sandbox.data.rfis[1]
    recorder.saw("embedded", "sandbox", [first], FIXED_NOW)
    assert not written(first.id), "held while pages keep coming"
    assert wait_until(lambda: written(first.id)), "written once fetching paused"
    recorder.saw("embedded", "sandbox", [second], FIXED_NOW)
    assert worker.call(lambda record: record.history("embedded", second.id)).seen, "a read hands over what is held"
    worker.close()


def test_a_console_that_never_pauses_still_writes_within_the_longest_hold(sandbox: Sandbox) -> None:
    import time

    from stablepay_console.services.history import HistoryRecorder
    from stablepay_console.storage.record_worker import RecordWorker

    worker = RecordWorker()
    worker.call(lambda record: None)
    recorder = HistoryRecorder(worker, quiet=0.3, max_hold=0.6)
    rfi = sandbox.data.rfis[0]
    pages = 0
    while not written(rfi.id) and pages < 200:  # a page every 50 ms (never quiet), for up to 10 s
        recorder.saw("embedded", "sandbox", [rfi], FIXED_NOW)
        pages += 1
        time.sleep(0.05)
    assert written(rfi.id), f"nothing written while {pages} pages came without a pause"
    worker.close()


def test_a_headless_command_that_exits_at_once_still_records_what_it_received(isolated_config) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config)}
    done = subprocess.run([sys.executable, "-m", "stablepay_console.cli.main", "rfis", "list", "--limit", "3",
                           "--json"], env=env, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    ids = [r["id"] for r in json.loads(done.stdout)["data"]]
    assert len(ids) == 3 and all(written(i) for i in ids)


def test_a_bulk_fetch_is_written_as_it_goes(sandbox: Sandbox) -> None:
    from stablepay_console.services.history import HistoryRecorder
    from stablepay_console.storage.record_worker import RecordWorker

    worker = RecordWorker()
    worker.call(lambda record: None)
    recorder = HistoryRecorder(worker, quiet=600, max_hold=600, max_held=50)
    rfis = list(sandbox.data.rfis[:60])
    recorder.saw("embedded", "sandbox", rfis[:20], FIXED_NOW)
    recorder.saw("embedded", "sandbox", rfis[20:40], FIXED_NOW)
    assert not written(rfis[0].id)
    recorder.saw("embedded", "sandbox", rfis[40:60], FIXED_NOW)  # 60 waiting: more than 50
    assert wait_until(lambda: written(rfis[59].id) and written(rfis[0].id))
    worker.close()


def test_a_page_the_record_cannot_keep_never_fails_the_fetch(sandbox: Sandbox) -> None:
    from stablepay_console.services.history import HistoryRecorder
    from stablepay_console.storage.record_worker import RecordWorker

    worker = RecordWorker()
    recorder = HistoryRecorder(worker, quiet=600, max_hold=600)
    good = sandbox.data.rfis[0]
    assert good.round is not None
    naive = good.round.model_copy(update={"issued_at": good.round.issued_at.replace(tzinfo=None)})
    unkeepable = good.model_copy(update={"round": naive})  # the record keeps timezone-aware times only
    recorder.saw("embedded", "sandbox", [unkeepable], FIXED_NOW)  # the caller is fetching: no exception
    recorder.saw("embedded", "sandbox", [good], FIXED_NOW)
    assert worker.call(lambda record: record.history("embedded", good.id)).seen, "later pages are still kept"
    worker.close()


def test_a_status_and_a_round_keep_their_last_sighting_once_replaced(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An unchanged request moves only its own row; its current status and round are read as seen with it,
    and keep the request's last sighting before the change once a new status and round replace them."""
    import sqlite3

    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record_types import RfiSighting, RoundSighting, SeenPage

    def seen(hours: int, status: str, deadline: str) -> SeenPage:
        wire = f'{{"id":"round-1","round":1,"issuedAt":"2026-11-20T09:30:00Z","expiresAt":"{deadline}"}}'
        return SeenPage("p", "sandbox", FIXED_NOW + timedelta(hours=hours),
                        (RfiSighting("rfi-1", status, f"{status}{deadline}", "{}", RoundSighting(1, wire, deadline)),))

    path = tmp_path / "record.sqlite3"
    record = open_record(path)
    try:
        assert record.observe([seen(0, "issued", "2026-11-21T09:30:00Z")]) == 1
        assert record.observe([seen(1, "issued", "2026-11-21T09:30:00Z")]) == 0
        with sqlite3.connect(path) as raw:  # the sighting at 1 h rewrote the request's row only
            assert raw.execute("SELECT last_seen FROM statuses UNION SELECT last_seen FROM rounds").fetchall() == [
                ("2026-11-20T09:30:00.000+00:00",)]
        h = record.history("p", "rfi-1")
        assert [(s.status, s.last_seen) for s in h.statuses] == [("issued", FIXED_NOW + timedelta(hours=1))]
        assert [r.last_seen for r in h.rounds] == [FIXED_NOW + timedelta(hours=1)]

        assert record.observe([seen(2, "submitted", "2026-11-22T09:30:00Z")]) == 1
        assert record.observe([seen(3, "submitted", "2026-11-22T09:30:00Z")]) == 0
        h = record.history("p", "rfi-1")
        hours = [timedelta(hours=n) + FIXED_NOW for n in range(4)]
        assert [(s.status, s.first_seen, s.last_seen) for s in h.statuses] == [
            ("issued", hours[0], hours[1]), ("submitted", hours[2], hours[3])]
        assert [(r.first_seen, r.last_seen) for r in h.rounds] == [(hours[0], hours[1]), (hours[2], hours[3])]
    finally:
        record.close()


def test_a_page_is_matched_to_what_the_record_holds_whatever_the_ids_hold(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The record reads a page's known requests back as one row of text; an ID holding its separators (a
    record not written by this console) is still matched, and an unchanged request stays unchanged."""
    from dataclasses import replace

    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record_types import RfiSighting, SeenPage

    record = open_record(tmp_path / "record.sqlite3")
    try:
        page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting("odd\x1fid\x1e", "issued", "f1", "{}", None),
                                                    RfiSighting("plain", "issued", "f2", "{}", None)))
        assert record.observe([page]) == 2
        later = replace(page, at=FIXED_NOW + timedelta(hours=1))
        assert record.observe([later]) == 0, "both found unchanged: only their last sighting moves"
        for rfi_id in ("plain", "odd\x1fid\x1e"):
            kept = record.history("p", rfi_id)
            assert kept.record is not None and kept.record.last_seen == FIXED_NOW + timedelta(hours=1)
            assert [(s.first_seen, s.last_seen) for s in kept.statuses] == [(FIXED_NOW, FIXED_NOW + timedelta(hours=1))]
    finally:
        record.close()


def test_what_the_record_keeps_of_a_request_is_pydantics_json_made_safe(sandbox: Sandbox) -> None:
    """The JSON kept is what every earlier version kept: pydantic's own `model_dump_json`, by alias, the round
    apart, with what a terminal could act on escaped. The round's fingerprint is of that text, as before (a new
    one would be a new round entry); the request's is of pydantic's bytes, the request's then the round's."""
    from stablepay_console.services.history import sighting

    evil = Rfi.model_validate({
        "id": "rfi-\x1b[2J\u202e", "kind": "k\x7f", "status": "issued\u2028", "subjectType": "t€",
        "createdAt": "2026-11-20T09:30:00Z", "futureField": {"a": [1, None]},
        "round": {"id": "r\x00", "round": 2, "issuedAt": "2026-11-20T09:30:00+02:00", "link": "l\u200b",
                  "items": [{"id": "i", "kind": "question", "label": "é\x1b]52;c;eA==\x07"}]}})
    # Only ASCII but for one DEL, which JSON leaves as it is: no shortcut for ASCII may skip it.
    deleted = Rfi.model_validate({
        "id": "rfi-del", "kind": "k\x7f", "status": "issued", "subjectType": "t", "createdAt": "2026-11-20T09:30:00Z",
        "round": {"id": "r", "round": 1, "issuedAt": "2026-11-20T09:30:00Z",
                  "items": [{"id": "i", "kind": "question", "label": "a\x7fb"}]}})
    for rfi in [*sandbox.data.rfis[:50], evil, deleted]:
        request = json_safe(rfi.model_dump_json(by_alias=True, exclude={"round"}))
        kept = sighting(rfi)
        assert kept.wire_json == request
        assert json.loads(kept.wire_json) == json.loads(rfi.model_dump_json(by_alias=True, exclude={"round"}))
        sent = rfi.model_dump_json(by_alias=True, exclude={"round"}).encode()
        if rfi.round is None:
            assert kept.round is None
            assert kept.fingerprint == hashlib.sha256(sent).hexdigest()
            continue
        round_sent = rfi.round.model_dump_json(by_alias=True)
        assert kept.fingerprint == hashlib.sha256(sent + round_sent.encode()).hexdigest()
        wire = json_safe(round_sent)
        assert kept.round is not None and kept.round.wire_json == wire
        assert kept.round.fingerprint == hashlib.sha256(wire.encode()).hexdigest()
    for unsafe in (evil, deleted):
        kept = sighting(unsafe)
        for raw in ("\x1b", "\x7f", "\u202e", "\u2028", "\u200b", "\x07"):
            assert raw not in kept.wire_json + kept.round.wire_json  # type: ignore[union-attr]


def test_a_request_kept_under_an_earlier_fingerprint_gains_no_history_when_seen_unchanged(
        sandbox: Sandbox, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A record written by an earlier console holds fingerprints made another way: the first sighting after
    the upgrade rewrites the request's row, and adds no status line and no round entry."""
    from stablepay_console.services.history import sighting
    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record_types import RfiSighting, RoundSighting, SeenPage

    _, rfi = issued(sandbox)
    assert rfi.round is not None
    # What consoles before this one kept: the same safe JSON texts, the round's fingerprint that of its text,
    # the request's that of its text and the round's fingerprint.
    request = json_safe(rfi.model_dump_json(by_alias=True, exclude={"round"}))
    wire = json_safe(rfi.round.model_dump_json(by_alias=True))
    round_print = hashlib.sha256(wire.encode()).hexdigest()
    earlier = RfiSighting(rfi.id, rfi.status, hashlib.sha256((request + round_print).encode()).hexdigest(), request,
                          RoundSighting(rfi.round.round, wire, round_print))
    record = open_record(tmp_path / "record.sqlite3")
    try:
        assert record.observe([SeenPage("p", "sandbox", FIXED_NOW, (earlier,))]) == 1
        later = FIXED_NOW + timedelta(hours=1)
        assert record.observe([SeenPage("p", "sandbox", later, (sighting(rfi),))]) == 1, "the row is rewritten"
        assert record.observe([SeenPage("p", "sandbox", later + timedelta(hours=1), (sighting(rfi),))]) == 0
        kept = record.history("p", rfi.id)
        assert [(s.status, s.first_seen) for s in kept.statuses] == [(rfi.status, FIXED_NOW)]
        assert [(r.round_no, r.first_seen) for r in kept.rounds] == [(rfi.round.round, FIXED_NOW)]
        assert kept.rounds[0].last_seen == later + timedelta(hours=1)
    finally:
        record.close()
