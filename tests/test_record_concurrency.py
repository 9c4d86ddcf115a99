"""Several writers at once (threads, processes) lose nothing; a writer killed mid-write loses nothing committed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from stablepay_console.services.audit import verify
from stablepay_console.storage.local import open_record
from stablepay_console.storage.record_types import AuditDraft
from tests.conftest import FIXED_NOW

RFI = "11111111-1111-4111-8111-111111111111"
JOIN_SECONDS = 60.0
"""How long the writer threads may take; a writer still running then fails the test (it never hangs)."""

WRITER = """
import sys
from datetime import datetime, timezone
from pathlib import Path
from stablepay_console.storage.local import open_record
from stablepay_console.storage.record_types import AuditDraft

path, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
record = open_record(path)
n = 0
while count == 0 or n < count:
    n += 1
    entry = record.append_audit(
        AuditDraft(datetime.now(timezone.utc), name, "embedded", "sandbox", "ping", "", f"{name} {n}")
    )
    record.add_note("embedded", "11111111-1111-4111-8111-111111111111", name, f"{name} {n}", datetime.now(timezone.utc))
    print(entry.seq, entry.outcome, flush=True)
record.close()
"""


def spawn(path: Path, name: str, count: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(count)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent,
    )


def outcomes(path: Path) -> list[str]:
    record = open_record(path)
    try:
        assert verify(record).ok, verify(record).describe()
        entries = record.audit()
        assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
        return [e.outcome for e in entries]
    finally:
        record.close()


def test_two_threads_with_their_own_connections_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    open_record(path).close()
    errors: list[BaseException] = []

    def write(name: str) -> None:
        record = open_record(path, check=False)
        try:
            for n in range(150):
                record.append_audit(AuditDraft(FIXED_NOW, name, "embedded", "sandbox", "ping", "", f"{name} {n}"))
                record.add_note("embedded", RFI, name, f"{name} {n}", FIXED_NOW)
        except BaseException as exc:
            errors.append(exc)
        finally:
            record.close()

    threads = [threading.Thread(target=write, args=(name,)) for name in ("alice", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_SECONDS)
    assert not any(t.is_alive() for t in threads), f"a writer still runs after {JOIN_SECONDS:.0f} s"
    assert errors == []
    assert sorted(outcomes(path)) == sorted(f"{who} {n}" for who in ("alice", "bob") for n in range(150))
    record = open_record(path)
    assert len(record.notes("embedded", RFI)) == 300
    record.close()


def test_threads_sharing_one_store_are_serialised(tmp_path: Path) -> None:
    record = open_record(tmp_path / "record.sqlite3")

    def write(name: str) -> None:
        for n in range(60):
            record.append_audit(AuditDraft(FIXED_NOW, name, "embedded", "sandbox", "ping", "", f"{name} {n}"))

    threads = [threading.Thread(target=write, args=(f"t{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_SECONDS)
    assert not any(t.is_alive() for t in threads), f"a writer still runs after {JOIN_SECONDS:.0f} s"
    assert verify(record).ok and verify(record).checked == 240
    record.close()


def test_two_processes_at_once_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    writers = [spawn(path, name, 120) for name in ("alice", "bob")]
    for proc in writers:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    assert sorted(outcomes(path)) == sorted(f"{who} {n}" for who in ("alice", "bob") for n in range(1, 121))


def test_a_writer_killed_mid_write_loses_nothing_it_committed(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite3"
    writer = spawn(path, "doomed", 0)
    other = spawn(path, "steady", 80)
    committed: list[str] = []
    assert writer.stdout is not None
    deadline = time.monotonic() + 60
    while len(committed) < 60 and time.monotonic() < deadline:
        line = writer.stdout.readline()
        if not line:
            break
        committed.append(line.split(" ", 1)[1].strip())
    assert len(committed) >= 60, writer.stderr.read() if writer.stderr else ""
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    _, err = other.communicate(timeout=120)
    assert other.returncode == 0, err
    kept = outcomes(path)  # the chain verifies: no half-written entry
    assert set(committed) <= set(kept), "an entry the killed writer had committed is missing"
    assert sum(o.startswith("steady") for o in kept) == 80
    record = open_record(path)
    assert record.append_audit(AuditDraft(FIXED_NOW, "after", "embedded", "sandbox", "ping")).seq == len(kept) + 1
    assert verify(record).ok
    record.close()
