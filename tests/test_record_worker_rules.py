"""The record's worker thread (`storage/record_worker.py`) in the test process: what a call that could not be
kept says and counts, what the listener is told about opening the record, the check asked for on the first open
only, and a close that runs every queued call first."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from stablepay_console.storage.local import open_record
from stablepay_console.storage.record import Record, RecordError, RecordNotWritten, RecordTooNew
from stablepay_console.storage.record_types import AuditDraft
from stablepay_console.storage.record_worker import RecordWorker, file_opener, flush_all, made_so_far
from stablepay_console.storage.witness import Witness
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
    assert len(failed) == 1 and failed[0].exc_info and failed[0].exc_info[0] is RuntimeError, "the log keeps why"
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


# --- waiting, counting and ending -------------------------------------------------------------------------------


class Held:
    """A call that starts, says so, and runs on only once `release` is called (or a feeder calls it)."""

    def __init__(self) -> None:
        self.started, self.gate = threading.Event(), threading.Event()

    def __call__(self, record: Record) -> str:
        self.started.set()
        assert self.gate.wait(30), "the held call was never released"
        return "ran"

    def release(self) -> None:
        self.gate.set()


def closing_opener(path: Path, closed: threading.Event) -> Callable[[bool], Record]:
    """Opens the record at `path`; `closed` is set when the worker closes it."""

    def opener(check: bool) -> Record:
        record = open_record(path, check=check)
        close = record.close

        def close_and_say() -> None:
            close()
            closed.set()

        record.close = close_and_say  # type: ignore[method-assign]
        return record

    return opener


def test_pending_counts_the_call_running_and_the_calls_queued_behind_it(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    assert worker.pending == 1
    behind = worker.submit(lambda record: None)
    assert worker.pending == 2
    held.release()
    behind.result(30)
    worker.close()
    assert worker.pending == 0


def test_a_flush_that_runs_out_of_time_says_so_and_counts_only_the_callers_calls(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    with pytest.raises(TimeoutError):
        worker.flush(0.05)
    assert worker.pending == 1, "the flush's own probe is not a write left unsaved"
    held.release()
    worker.close()


def test_a_call_or_a_close_waits_no_longer_than_its_timeout(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    with pytest.raises(TimeoutError):
        worker.call(lambda record: None, timeout=0.05)
    worker.close(timeout=0.05)  # returns with the held call still running
    assert worker.pending >= 1
    held.release()
    worker.close()
    assert worker.pending == 0


def test_a_call_cancelled_before_it_ran_is_skipped_and_the_next_one_runs(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    cancelled = worker.fire(lambda record: "never", "a note")
    assert cancelled.cancel()
    after = worker.submit(lambda record: "after")
    held.release()
    assert after.result(30) == "after"
    assert worker.unsaved == 0, "a cancelled call is not a write that failed"
    assert [r.getMessage() for r in caplog.records if r.levelname in {"WARNING", "ERROR"}] == []
    worker.close()


def test_a_flush_waits_for_the_call_still_running(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    worker.call(lambda record: None)

    def slow(record: Record) -> None:
        held(record)
        for n in range(50):
            record.add_note("p", "r", "alice", f"{n}", FIXED_NOW)

    held = Held()
    running = worker.submit(slow)
    worker.add_feeder(held.release)  # the flush hands over what is held back: here, it lets the call go on
    assert held.started.wait(30)
    worker.flush()
    assert running.done() and running.exception() is None
    worker.close()


def test_the_record_is_closed_after_the_idle_time_and_opened_again_by_the_next_call(tmp_path: Path) -> None:
    closed = threading.Event()
    opened: list[bool] = []
    open_it = closing_opener(tmp_path / "record.sqlite3", closed)

    def opener(check: bool) -> Record:
        opened.append(check)
        return open_it(check)

    worker = RecordWorker(opener, idle_seconds=0.05)
    worker.call(lambda record: None)
    assert closed.wait(30), "the idle thread never closed the record"
    closed.clear()
    worker.call(lambda record: None)
    assert opened == [True, False]
    worker.close()
    assert closed.wait(30)


def test_the_records_thread_never_keeps_the_process_alive(tmp_path: Path) -> None:
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    threads = [t for t in threading.enumerate() if t.name == "stablepay-record"]
    assert threads and all(t.daemon for t in threads)
    held.release()
    worker.close()


def test_a_worker_with_nothing_to_say_has_no_notice_no_problem_and_no_look(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    worker = RecordWorker(file_opener(path))  # nobody listens: the notice is kept, nothing is passed on
    assert (worker.notice, worker.problem, worker.witnessed) == (None, None, None)
    assert worker.call(lambda record: record.audit()) == []
    assert worker.notice is not None and worker.problem is None and worker.witnessed is None
    assert not [r for r in caplog.records if r.getMessage().startswith("Could not pass on")]
    worker.close()


# --- flushing every worker at the end ---------------------------------------------------------------------------


def test_flush_all_runs_the_calls_of_every_worker_made_since_and_leaves_older_ones(tmp_path: Path) -> None:
    older = RecordWorker(file_opener(tmp_path / "older.sqlite3"))
    since = made_so_far()
    helds = [Held(), Held(), Held()]
    workers = [RecordWorker(file_opener(tmp_path / f"{n}.sqlite3")) for n in range(2)]
    older.add_feeder(helds[0].release)
    for worker, held in zip(workers, helds[1:], strict=True):
        worker.add_feeder(held.release)  # only a flush lets the held call go on
    futures = [worker.submit(held) for worker, held in zip([older, *workers], helds, strict=True)]
    assert flush_all(30, since) == 0
    assert [f.done() for f in futures] == [False, True, True]
    assert not helds[0].gate.is_set(), "a worker made before `since` is not flushed"
    helds[0].release()
    for worker in (older, *workers):
        worker.close()


def test_flush_all_counts_what_did_not_run_in_its_time(tmp_path: Path) -> None:
    since = made_so_far()
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"))
    held = Held()
    worker.submit(held)
    assert held.started.wait(30)
    worker.submit(lambda record: None)
    assert flush_all(0.05, since) == 2, "the call held and the one behind it, not the flush's probe"
    held.release()
    worker.close()


# --- the witness, looked at on the first open -------------------------------------------------------------------


def test_a_witness_that_holds_says_nothing(tmp_path: Path) -> None:
    witness = Witness(tmp_path / "witness.json", holds=lambda record: True)
    told: list[tuple[str, bool]] = []
    worker = RecordWorker(file_opener(tmp_path / "record.sqlite3"), witness=witness)
    worker.on_notice = lambda message, refused: told.append((message, refused))
    worker.call(lambda record: None)
    assert worker.witnessed is not None and worker.witnessed.ok and told == []
    worker.close()


def test_a_record_set_aside_starts_its_witness_anew(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    witness = Witness(tmp_path / "witness.json", holds=lambda record: True)
    worker = RecordWorker(file_opener(path), witness=witness)
    for _ in range(3):
        worker.call(lambda record: record.append_audit(AuditDraft(FIXED_NOW, "alice", "embedded", "sandbox", "ping")))
    worker.close()
    worker = RecordWorker(file_opener(path), witness=witness)
    worker.call(lambda record: None)  # the witness now holds the chain's head
    worker.close()
    assert witness.seen(f"local {path}") is not None
    path.write_bytes(b"garbage" * 1000)
    told: list[tuple[str, bool]] = []
    worker = RecordWorker(file_opener(path), witness=witness)
    worker.on_notice = lambda message, refused: told.append((message, refused))
    worker.call(lambda record: None)
    assert worker.witnessed is not None and worker.witnessed.ok, worker.witnessed
    assert told == [(worker.notice, False)]
    worker.close()


def test_a_witness_that_cannot_be_read_is_said_with_the_way_to_check(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"garbage" * 1000)  # set aside: the witness's entry for it is forgotten, which reads the file
    (tmp_path / "witness.json").write_text("[[[ not json", encoding="utf-8")
    told: list[tuple[str, bool]] = []
    worker = RecordWorker(file_opener(path), witness=Witness(tmp_path / "witness.json"))
    worker.on_notice = lambda message, refused: told.append((message, refused))
    worker.call(lambda record: None)
    assert worker.witnessed is not None and not worker.witnessed.ok
    problem = worker.witnessed.problem
    assert "witness.json" in problem and "cannot be read" in problem
    assert told == [(worker.notice, False), (f"{problem} Run `stablepay-console audit verify`.", False)]
    assert problem in [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    worker.close()


def test_a_record_that_goes_away_during_the_look_is_logged_and_the_call_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def opener(check: bool) -> Record:
        record = open_record(tmp_path / "record.sqlite3", check=check)

        def gone() -> None:
            raise RecordError("the record went away")

        record.audit_head = gone  # type: ignore[method-assign,assignment]
        return record

    worker = RecordWorker(opener, witness=Witness(tmp_path / "witness.json"))
    assert worker.call(lambda record: "went on") == "went on"
    assert worker.witnessed is None
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        "Could not compare the audit log with this machine's witness: the record went away"]
    worker.close()
