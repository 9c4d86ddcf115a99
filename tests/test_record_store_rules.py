"""The local record's own rules (`storage/local/store.py`), each on a small SQLite file: what a note, a claim and
an audit entry read back as, the audit log's filters and where its chain goes on, a request's history, and what
a file that cannot be used says."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from stablepay_console.storage.local.schema import LATEST, MIGRATIONS
from stablepay_console.storage.local.store import SqliteRecord
from stablepay_console.storage.record import RecordCorrupt, RecordError, RecordNotWritten, RecordTooNew
from stablepay_console.storage.record_chain import GENESIS
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditHead,
    Claim,
    ClaimOutcome,
    Note,
    RfiHistory,
    RfiRecord,
    RfiSighting,
    RoundSeen,
    RoundSighting,
    SeenPage,
    StatusSeen,
    stamp,
)
from stablepay_console.storage.writing import reason
from tests.conftest import FIXED_NOW
from tests.small_disk import SmallDisk

P = "p"
R = "rfi-1"


def at(hours: float) -> datetime:
    return FIXED_NOW + timedelta(hours=hours)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "record.sqlite3"


@pytest.fixture
def record(path: Path) -> Iterator[SqliteRecord]:
    made = SqliteRecord(path)
    yield made
    made.close()


def draft(n: int, actor: str = "alice", profile: str = P, target: str = R, **detail: object) -> AuditDraft:
    return AuditDraft(at(n), actor, profile, "sandbox", "ping", target, f"ok {n}", detail)


def test_a_note_reads_back_as_it_was_written(record: SqliteRecord) -> None:
    first = record.add_note(P, R, "alice", "one", at(1))
    second = record.add_note(P, R, "bob", "two", at(2))
    assert first == Note(1, P, R, "alice", at(1), "one") and second == Note(2, P, R, "bob", at(2), "two")
    assert record.notes(P, R) == [first, second]
    assert record.notes("other", R) == [] and record.notes(P, "rfi-2") == []


def test_a_claim_held_by_someone_else_is_neither_taken_nor_released(record: SqliteRecord) -> None:
    held = Claim(P, R, "alice", at(1))
    assert record.claim(P, R, "alice", at(1)) == ClaimOutcome(True, held)
    assert record.claim(P, R, "bob", at(2)) == ClaimOutcome(False, held, held)
    assert record.claim(P, R, "alice", at(3)) == ClaimOutcome(True, held, held)
    assert record.release(P, R, "bob") == ClaimOutcome(False, held, held)
    assert record.release(P, "rfi-2", "bob") == ClaimOutcome(False, None, None)
    with pytest.raises(RecordError) as lapse:
        record.claim(P, R, "bob", at(2), lapse=timedelta(hours=1))
    assert str(lapse.value) == "Only the team record keeps claims that lapse; the local one holds them until released."


def test_an_audit_entrys_detail_is_kept_as_sorted_ascii_json_with_times_as_text(record: SqliteRecord) -> None:
    entry = record.append_audit(draft(1, b="é", a=at(0)))
    assert entry.detail == '{"a": "2026-11-20 09:30:00+00:00", "b": "\\u00e9"}'
    assert record.audit() == [entry]


def test_the_audit_log_is_filtered_by_time_profile_and_target_and_cut_to_its_latest(record: SqliteRecord) -> None:
    entries = [record.append_audit(d) for d in (draft(1), draft(2, profile="q"), draft(3, target="rfi-2"),
                                                 draft(4))]
    assert record.audit() == entries
    assert record.audit(since=at(2)) == entries[1:]
    assert record.audit(profile=P) == [entries[0], entries[2], entries[3]]
    assert record.audit(target=R) == [entries[0], entries[1], entries[3]]
    assert record.audit(since=at(2), profile=P, target=R) == [entries[3]]
    assert record.audit(limit=2) == entries[2:]
    assert record.audit(profile=P, limit=1) == [entries[3]]


def test_an_entry_after_a_cut_tail_goes_on_from_the_head_so_the_cut_still_shows(
        record: SqliteRecord, path: Path) -> None:
    entries = [record.append_audit(draft(n)) for n in (1, 2, 3)]
    with sqlite3.connect(path) as raw:  # someone with the file cuts its last entry
        raw.execute("DROP TRIGGER audit_no_delete")
        raw.execute("DELETE FROM audit WHERE seq = 3")
    after = record.append_audit(draft(4))
    assert (after.seq, after.prev_hash) == (4, entries[2].hash)
    assert record.audit_head() == AuditHead(4, after.hash)


def test_a_log_without_its_head_goes_on_from_its_last_entry(record: SqliteRecord, path: Path) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM audit_head")
    assert record.audit_head() is None
    first = record.append_audit(draft(1))
    assert (first.seq, first.prev_hash) == (1, GENESIS)
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM audit_head")
    second = record.append_audit(draft(2))
    assert (second.seq, second.prev_hash) == (2, first.hash)


def test_pages_seen_together_count_every_change(record: SqliteRecord) -> None:
    pages = [SeenPage(P, "sandbox", at(1), (RfiSighting(f"rfi-{n}", "issued", f"f{n}", "{}", None),)) for n in (1, 2)]
    assert record.observe(pages) == 2


def test_a_requests_history_is_its_record_rounds_and_statuses_as_seen(record: SqliteRecord) -> None:
    assert record.history(P, R) == RfiHistory(P, R, None)
    wire = f'{{"id": "round-a", "round": 1, "issuedAt": "{stamp(at(0))}", "expiresAt": "{stamp(at(9))}"}}'
    answered = wire[:-1] + f', "submittedAt": "{stamp(at(2))}", "link": "https://x.example/r"}}'
    for hours, status, round_wire in ((1, "issued", wire), (2, "submitted", answered)):
        sighting = RfiSighting(R, status, f"{status}{round_wire}", '{"id": "rfi-1"}',
                               RoundSighting(1, round_wire, round_wire))
        record.observe([SeenPage(P, "sandbox", at(hours), (sighting,))])
    assert record.history(P, R) == RfiHistory(
        P, R, RfiRecord(P, R, "sandbox", "submitted", {"id": "rfi-1"}, True, at(1), at(2)),
        [RoundSeen(1, 1, "round-a", at(0), at(9), None, None,
                   {"id": "round-a", "round": 1, "issuedAt": stamp(at(0)), "expiresAt": stamp(at(9))}, at(1), at(1)),
         RoundSeen(2, 1, "round-a", at(0), at(9), at(2), "https://x.example/r",
                   {"id": "round-a", "round": 1, "issuedAt": stamp(at(0)), "expiresAt": stamp(at(9)),
                    "submittedAt": stamp(at(2)), "link": "https://x.example/r"}, at(2), at(2))],
        [StatusSeen("issued", at(1), at(1)), StatusSeen("submitted", at(2), at(2))],
    )


def test_ids_are_offered_ten_at_a_time_and_only_for_a_prefix_of_hex_and_dashes(record: SqliteRecord) -> None:
    ids = [f"a{n:02d}" for n in range(12)] + ["X1"]
    record.observe([SeenPage(P, "sandbox", at(1), tuple(RfiSighting(i, "issued", i, "{}", None) for i in ids))])
    assert record.ids_starting(P, "a") == ids[:10]
    assert record.ids_starting(P, "a", limit=20) == ids[:12]
    assert record.ids_starting(P, "X") == [] and record.ids_starting(P, "") == []


def test_a_newer_file_names_itself_and_what_to_do(path: Path) -> None:
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {LATEST + 1}")
    with pytest.raises(RecordTooNew) as refused:
        SqliteRecord(path)
    assert str(refused.value) == (
        f"The record {path} was written by a newer stablepay-console (schema version {LATEST + 1}; this one knows up "
        f"to {LATEST}). It was left as it is. Use the newer console, or move the file away to start a new record with "
        "this one.")


def test_a_record_that_is_a_folder_cannot_be_opened_there(tmp_path: Path) -> None:
    with pytest.raises(RecordNotWritten) as refused:
        SqliteRecord(tmp_path)
    assert str(refused.value) == f"Could not write to the record {tmp_path}: the file cannot be opened there."


def with_notes_that_break_their_schema(path: Path) -> None:
    """A record holding two notes with no author, written by a program that got past the NOT NULL rule."""
    SqliteRecord(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    (kept,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'notes'").fetchone()
    for sql in (kept.replace("author  TEXT NOT NULL", "author  TEXT"), kept):
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'notes'", (sql,))
        conn.close()
        conn = sqlite3.connect(path, isolation_level=None)
        if sql != kept:
            conn.execute("INSERT INTO notes (profile, rfi_id, author, at, text) VALUES ('p', 'r', NULL, 't', 'x'), "
                         "('p', 'r', NULL, 't', 'y')")
    conn.close()


def test_a_file_that_fails_the_check_at_open_is_refused_with_the_checks_own_words(path: Path) -> None:
    with_notes_that_break_their_schema(path)
    with pytest.raises(RecordCorrupt) as refused:
        SqliteRecord(path)
    assert str(refused.value) == "NULL value in notes.author; NULL value in notes.author"
    SqliteRecord(path, check=False).close()


def test_a_file_that_is_not_a_database_is_refused_as_corrupt_in_sqlites_words(path: Path) -> None:
    path.write_bytes(b"this is not a database at all\n" * 200)
    with pytest.raises(RecordCorrupt) as refused:
        SqliteRecord(path)
    assert str(refused.value) == "file is not a database"


def test_a_record_on_a_full_disk_refuses_a_write_saying_the_disk_is_full(small_disk: SmallDisk) -> None:
    where = small_disk.path / "record.sqlite3"
    record = SqliteRecord(where)
    try:
        record.add_note(P, R, "alice", "kept", at(0))
        small_disk.fill()
        with pytest.raises(RecordNotWritten) as refused:
            for n in range(200):  # the first pages may still fit in the write-ahead log's room
                record.add_note(P, R, "alice", f"note {n} " + "x" * 2000, at(1))
        assert str(refused.value) == f"Could not write to the record {where}: {reason(OSError(errno.ENOSPC, ''))}."
    finally:
        record.close()


def test_a_record_on_a_read_only_disk_is_refused_at_open_saying_so(small_disk: SmallDisk) -> None:
    where = small_disk.path / "record.sqlite3"
    SqliteRecord(where).close()
    where.with_name(where.name + "-wal").unlink(missing_ok=True)
    where.with_name(where.name + "-shm").unlink(missing_ok=True)
    small_disk.read_only()
    with pytest.raises(RecordNotWritten) as refused:
        SqliteRecord(where)
    assert str(refused.value) == f"Could not write to the record {where}: {reason(OSError(errno.EROFS, ''))}."


def test_a_file_its_migration_fails_on_says_it_cannot_be_used_and_why(path: Path) -> None:
    with sqlite3.connect(path) as raw:  # version 1 as a console left it, and a table version 2 would make
        raw.executescript(MIGRATIONS[0][0])
        raw.execute("CREATE TABLE audit_head (x)")
        raw.execute("PRAGMA user_version = 1")
    with pytest.raises(RecordError) as refused:
        SqliteRecord(path)
    assert str(refused.value) == f"The record {path} cannot be used: table audit_head already exists."
