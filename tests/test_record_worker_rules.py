"""The record's worker thread (`storage/record_worker.py`) in the test process: what a call that could not be
kept says and counts, what the listener is told about opening the record, the check asked for on the first open
only, and a close that runs every queued call first."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from stablepay_console.storage.local import open_record
from stablepay_console.storage.record import Record, RecordNotWritten, RecordTooNew
from stablepay_console.storage.record_worker import RecordWorker, file_opener
from stablepay_console.storage.writing import NOT_WRITTEN
from tests.conftest import FIXED_NOW


@pytest.fixture
def board() -> Iterator[None]:
    NOT_WRITTEN.reset()
    yield
    NOT_WRITTEN.reset()


def full_disk(check: bool) -> Record:
    raise RecordNotWritten("Could not write to the record /r: the disk is full.")


def test_a_fired_call_the_disk_refused_is_logged_counted_and_said_once(
        board: None, caplog: pytest.LogCaptureFixture) -> None:
    worker = RecordWorker(full_disk)
    for _ in range(2):
        worker.fire(lambda record: record.audit(), "the requests received")
    worker.flush()  # the next call runs after the fired ones were told how they ended
    why = "Could not write to the record /r: the disk is full."
    assert (worker.unsaved, worker.last_unsaved) == (2, f"the requests received: {why}")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"Not recorded: the requests received. {why}"] * 2
    assert NOT_WRITTEN.lines == [f"{why} Not recorded: the requests received."]
    worker.close()


def test_a_fired_call_that_ran_counts_nothing(board: None, tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    worker.fire(lambda record: None, "a note")
    worker.flush()
    assert (worker.unsaved, worker.last_unsaved, NOT_WRITTEN.lines) == (0, "", [])
    worker.close()


def test_a_refused_record_is_told_once_and_every_call_then_fails_with_its_words(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    told: list[tuple[str, bool]] = []
    opened: list[bool] = []

    def opener(check: bool) -> Record:
        opened.append(check)
        return open_record(path, check=check)

    worker = RecordWorker(opener)
    worker.on_notice = lambda message, refused: told.append((message, refused))
    failures = []
    for _ in range(2):
        with pytest.raises(RecordTooNew) as refused:
            worker.call(lambda record: record.audit())
        failures.append(str(refused.value))
    assert opened == [True], "a refused record is not opened again"
    assert failures[0] == failures[1] == worker.problem and "schema version 99" in failures[0]
    assert told == [(failures[0], True)]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [failures[0]]
    worker.close()


def test_a_file_set_aside_is_told_as_a_notice_and_the_record_works(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    told: list[tuple[str, bool]] = []
    worker = RecordWorker(file_opener(path))
    worker.on_notice = lambda message, refused: told.append((message, refused))
    assert worker.call(lambda record: record.audit()) == []
    assert worker.notice is not None and told == [(worker.notice, False)]
    worker.close()


def test_a_listener_that_fails_is_logged_and_the_record_still_works(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    worker = RecordWorker(file_opener(path))

    def deaf(message: str, refused: bool) -> None:
        raise RuntimeError("nobody listens")

    worker.on_notice = deaf
    assert worker.call(lambda record: record.audit()) == []
    failed = [r for r in caplog.records if r.getMessage() == "Could not pass on the record's notice"]
    assert len(failed) == 1 and failed[0].exc_info is not None
    worker.close()


def test_the_check_is_asked_for_on_the_first_open_only(tmp_path: Path) -> None:
    opened: list[bool] = []

    def opener(check: bool) -> Record:
        opened.append(check)
        return open_record(tmp_path / "record.sqlite3", check=check)

    worker = RecordWorker(opener)
    worker.call(lambda record: record.audit())
    worker.close()  # the thread ends and closes the record; the next call opens it again
    worker.call(lambda record: record.audit())
    worker.close()
    assert opened == [True, False]


def test_the_file_opener_passes_the_check_on(tmp_path: Path) -> None:
    from tests.test_record_store_rules import with_notes_that_break_their_schema

    unchecked, checked = tmp_path / "unchecked.sqlite3", tmp_path / "checked.sqlite3"
    with_notes_that_break_their_schema(unchecked)
    with_notes_that_break_their_schema(checked)
    record = file_opener(unchecked)(False)
    assert record.notice is None
    record.close()
    record = file_opener(checked)(True)
    assert record.notice is not None and "NULL value in notes.author" in record.notice
    record.close()


def test_close_runs_every_queued_call_first(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    futures = [worker.submit(lambda record, n=n: record.add_note("p", "r", "alice", f"{n}", FIXED_NOW))
               for n in range(30)]
    worker.close()
    assert all(f.done() for f in futures)
    assert worker.pending == 0


def test_run_and_submit_after_held_hand_over_what_is_held_and_give_the_calls_result(tmp_path: Path) -> None:
    import asyncio

    fed: list[int] = []
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    worker.add_feeder(lambda: fed.append(1))
    assert asyncio.run(worker.run(lambda record: 5)) == 5
    assert worker.submit_after_held(lambda record: 6).result(60) == 6
    assert fed == [1, 1]
    worker.close()


def test_a_flush_with_no_call_made_opens_nothing(tmp_path: Path) -> None:
    opened: list[bool] = []

    def opener(check: bool) -> Record:
        opened.append(check)
        return open_record(tmp_path / "record.sqlite3", check=check)

    worker = RecordWorker(opener)
    worker.flush()
    assert opened == [] and not (tmp_path / "record.sqlite3").exists()
    worker.close()


def test_a_flush_waits_for_every_call_fired_before_it(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    worker.call(lambda record: None)
    for n in range(30):
        worker.fire(lambda record, n=n: record.add_note("p", "r", "alice", f"{n}", FIXED_NOW), "a note")
    worker.flush()
    assert worker.pending == 0
    assert len(worker.call(lambda record: record.notes("p", "r"))) == 30
    worker.close()
