"""The record's SQLite file: migrations, a newer file refused untouched, a corrupt one set aside, the basics."""

from __future__ import annotations

import sqlite3
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from stablepay_console.services.audit import verify
from stablepay_console.storage.local import open_record, record_file
from stablepay_console.storage.local.schema import LATEST, V1, migrate
from stablepay_console.storage.record import RecordTooNew
from stablepay_console.storage.record_chain import GENESIS, entry_hash
from stablepay_console.storage.record_types import AuditDraft, AuditEntry, AuditHead, stamp
from stablepay_console.storage.record_worker import RecordWorker
from tests.conftest import FIXED_NOW

RFI = "11111111-1111-4111-8111-111111111111"


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def draft(n: int, action: str = "ping") -> AuditDraft:
    return AuditDraft(FIXED_NOW + timedelta(seconds=n), "alice", "embedded", "sandbox", action, RFI, f"ok {n}")


def test_a_new_file_is_created_private_in_the_data_folder_at_the_latest_schema() -> None:
    record = open_record()
    record.close()
    path = record_file()
    assert path.name == "record.sqlite3" and path.parent.name == "data"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert version(path) == LATEST
    assert {"rfis", "rounds", "statuses", "notes", "claims", "audit", "audit_head"} <= tables(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_empty_file_is_migrated_from_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    record = open_record(path)
    record.append_audit(draft(1))
    record.close()
    assert version(path) == LATEST


def make_first_schema(path: Path) -> list[AuditEntry]:
    """A file as the first console wrote it (schema 1): a request, a note and three chained entries."""
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in V1.strip().split(";"):
        if statement.strip():
            conn.execute(statement)
    t = stamp(FIXED_NOW)
    conn.execute(
        "INSERT INTO rfis VALUES ('embedded', ?, 'sandbox', 'issued', 'fp', '{\"id\": \"x\"}', 1, NULL, ?, ?)",
        (RFI, t, t),
    )
    conn.execute("INSERT INTO statuses VALUES (1, 'embedded', ?, 'issued', ?, ?)", (RFI, t, t))
    conn.execute("INSERT INTO notes VALUES (1, 'embedded', ?, 'alice', ?, 'kept from v1')", (RFI, t))
    entries, prev = [], GENESIS
    for n in range(1, 4):
        unsigned = AuditEntry(n, stamp(FIXED_NOW), "alice", "embedded", "sandbox", "ping", "", "ok", "{}", prev, "")
        entry = AuditEntry(**{**unsigned.__dict__, "hash": entry_hash(prev, unsigned.content())})
        conn.execute("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tuple(entry.__dict__.values())[:11])
        entries.append(entry)
        prev = entry.hash
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    return entries


def test_the_first_schema_is_migrated_with_its_data_kept(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    old = make_first_schema(path)
    assert "claims" not in tables(path)
    record = open_record(path)
    assert version(path) == LATEST and "claims" in tables(path)
    assert [n.text for n in record.notes("embedded", RFI)] == ["kept from v1"]
    assert record.history("embedded", RFI).statuses[0].status == "issued"
    assert record.audit() == old
    assert verify(record).ok
    appended = record.append_audit(draft(9))
    assert appended.seq == 4 and appended.prev_hash == old[-1].hash
    assert verify(record).ok and record.claim("embedded", RFI, "bob", FIXED_NOW).done
    record.close()


def test_a_file_migrated_from_the_first_schema_takes_its_audit_head_from_its_log(tmp_path: Path) -> None:
    """Version 1 kept no head: the migration writes one from the log, so a tail cut later still shows."""
    path = tmp_path / "v1.sqlite3"
    old = make_first_schema(path)
    record = open_record(path)
    assert record.audit_head() == AuditHead(3, old[-1].hash)
    record.close()


def test_a_migration_that_fails_leaves_the_file_at_its_version_and_raises_its_own_error(tmp_path: Path) -> None:
    """Every step of a migration is in one transaction: one that fails is rolled back whole, and its error is the
    one raised (not an error of the rollback), on a connection left usable."""
    path = tmp_path / "v1.sqlite3"
    make_first_schema(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE audit_head (x)")  # version 2 makes this table: its migration fails there
    with pytest.raises(sqlite3.OperationalError, match="audit_head already exists"):
        migrate(conn)
    assert not conn.in_transaction
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()
    assert "claims" not in tables(path)


def test_a_newer_file_is_refused_with_a_clear_message_and_never_altered(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE future (x)")
        conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    before = path.read_bytes()
    with pytest.raises(RecordTooNew) as refused:
        open_record(path)
    message = str(refused.value)
    assert "newer stablepay-console" in message and f"schema version {LATEST + 1}" in message
    assert "left as it is" in message
    assert path.read_bytes() == before
    assert not path.with_name(path.name + "-wal").exists()
    assert list(tmp_path.iterdir()) == [path]


def test_a_worker_on_a_newer_file_says_why_on_every_call(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 5}")
    worker = RecordWorker(lambda check: open_record(path, check=check))
    for _ in range(2):
        with pytest.raises(RecordTooNew):
            worker.call(lambda record: record.audit())
    assert worker.problem is not None and "newer" in worker.problem
    worker.close()


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(b"this is not a database at all\n" * 200), id="garbage"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:4096] + b"\x00" * 10), id="cut-short"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:100] + b"\xff" * 3000 + p.read_bytes()[3100:]),
                     id="overwritten-pages"),
    ],
)
def test_a_corrupt_file_is_set_aside_kept_and_a_new_one_started(tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "record.sqlite3"
    record = open_record(path)
    for n in range(40):
        record.add_note("embedded", RFI, "alice", f"note {n} " + "x" * 200, FIXED_NOW)
    record.close()
    path.with_name(path.name + "-wal").unlink(missing_ok=True)
    damage(path)
    damaged = path.read_bytes()
    record = open_record(path)
    kept = [p for p in tmp_path.iterdir() if ".unreadable-" in p.name and not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1, list(tmp_path.iterdir())
    assert kept[0].read_bytes() == damaged, "the bad file is kept as it was, for inspection"
    assert record.notice is not None
    assert str(path) in record.notice and kept[0].name in record.notice and "new record was started" in record.notice
    assert record.notes("embedded", RFI) == []
    record.add_note("embedded", RFI, "alice", "after", FIXED_NOW)
    record.close()
    assert version(path) == LATEST


def test_the_worker_passes_on_the_set_aside_notice(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    worker = RecordWorker(lambda check: open_record(path, check=check))
    assert worker.call(lambda record: record.notes("embedded", RFI)) == []
    assert worker.notice is not None and "could not be read" in worker.notice
    worker.close()


def test_claims_are_held_by_one_person_until_released() -> None:
    record = open_record()
    first = record.claim("embedded", RFI, "alice", FIXED_NOW)
    assert first.done and first.claim is not None and first.claim.claimant == "alice"
    other = record.claim("embedded", RFI, "bob", FIXED_NOW)
    assert not other.done and other.claim == first.claim
    assert not record.release("embedded", RFI, "bob").done
    assert record.claims("embedded") == {RFI: first.claim}
    assert record.claims("embedded-production") == {}
    released = record.release("embedded", RFI, "bob", force=True)
    assert released.done and released.previous == first.claim and record.claim_of("embedded", RFI) is None
    assert not record.release("embedded", RFI, "alice").done
    record.close()


def test_the_audit_log_refuses_plain_edits_and_deletes() -> None:
    record = open_record()
    record.append_audit(draft(1))
    record.close()
    with sqlite3.connect(record_file()) as conn:
        for sql in ("UPDATE audit SET outcome = 'x'", "DELETE FROM audit"):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute(sql)


def test_a_worker_keeps_the_file_it_was_made_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A late write (after a test, or after the environment changed) never lands in another folder."""
    worker = RecordWorker()
    made_for = record_file()
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(tmp_path / "elsewhere"))
    worker.call(lambda record: record.add_note("embedded", RFI, "alice", "here", FIXED_NOW))
    worker.close()
    assert made_for.exists() and not (tmp_path / "elsewhere").exists()


def test_a_file_set_aside_takes_its_wal_and_shm_along_and_never_replaces_one_set_aside_before(tmp_path: Path) -> None:
    from stablepay_console.storage.local import set_aside

    path = tmp_path / "record.sqlite3"
    for n in range(3):
        path.write_bytes(f"damaged {n}".encode())
        (tmp_path / "record.sqlite3-wal").write_bytes(f"wal {n}".encode())
        if n != 1:
            (tmp_path / "record.sqlite3-shm").write_bytes(f"shm {n}".encode())
        kept = set_aside(path, FIXED_NOW)
        assert kept.name == "record.sqlite3.unreadable-20261120T093000Z" + ("" if n == 0 else f"-{n + 1}")
        assert kept.read_bytes() == f"damaged {n}".encode() and not path.exists()
        assert kept.with_name(kept.name + "-wal").read_bytes() == f"wal {n}".encode()
        assert kept.with_name(kept.name + "-shm").exists() == (n != 1)
        assert not (tmp_path / "record.sqlite3-wal").exists() and not (tmp_path / "record.sqlite3-shm").exists()


def test_a_file_that_cannot_be_set_aside_says_so_and_how_to_go_on(tmp_path: Path) -> None:
    from stablepay_console.storage.local import set_aside
    from stablepay_console.storage.record import RecordError

    missing = tmp_path / "gone" / "record.sqlite3"
    with pytest.raises(RecordError) as refused:
        set_aside(missing, FIXED_NOW)
    assert str(refused.value) == (
        f"The record {missing} cannot be read and could not be set aside (No such file or directory). "
        "Move it away by hand; the console keeps no record until then.")


def test_a_file_damaged_past_its_schema_is_found_by_the_check_at_open_and_only_with_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "record.sqlite3"
    record = open_record(path)
    for n in range(40):
        record.add_note("embedded", RFI, "alice", f"note {n} " + "x" * 200, FIXED_NOW)
    record.close()
    path.with_name(path.name + "-wal").unlink(missing_ok=True)
    data = path.read_bytes()
    damaged = data[:-4096] + b"\xff" * 4096  # the last page (notes), not the schema
    unchecked = tmp_path / "unchecked.sqlite3"
    unchecked.write_bytes(damaged)
    path.write_bytes(damaged)
    found = open_record(path)
    assert found.notice is not None and found.notice.endswith("beside it, and a new record was started.")
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [found.notice]
    found.close()
    opened = open_record(unchecked, check=False)
    assert opened.notice is None, "without the check a damage past the schema is not looked for"
    opened.close()


def test_a_record_that_cannot_be_made_says_where_and_why(isolated_config: Path) -> None:
    from stablepay_console.storage.record import RecordNotWritten

    isolated_config.mkdir(parents=True, exist_ok=True)
    (isolated_config / "data").write_text("a file where the data folder should be", encoding="utf-8")
    with pytest.raises(RecordNotWritten) as refused:
        open_record()
    where = isolated_config / "data" / "record.sqlite3"
    assert str(refused.value).startswith(f"Could not write the record to {where}: ")
