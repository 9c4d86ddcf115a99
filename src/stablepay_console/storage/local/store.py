"""The record in one SQLite file: WAL, a busy timeout, migrations on open, one transaction per call.

Several processes (two consoles, a console and `rfis watch`) may write at once: every write takes
SQLite's write lock up front (`BEGIN IMMEDIATE`) and waits its turn for up to `BUSY_SECONDS`.
Commits are synced (`synchronous=FULL`), so a crash or a kill loses nothing committed.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta
from pathlib import Path

from stablepay_console.storage.local.schema import LATEST, migrate
from stablepay_console.storage.local.sightings import ROUND_LAST_SEEN, STATUS_LAST_SEEN, observe_page
from stablepay_console.storage.local.triage import SqliteTriage
from stablepay_console.storage.record import Offer, RecordCorrupt, RecordError, RecordNotWritten, RecordTooNew
from stablepay_console.storage.record_chain import GENESIS, entry_hash
from stablepay_console.storage.record_json import object_or_unreadable
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Claim,
    ClaimOutcome,
    Note,
    RfiHistory,
    RfiRecord,
    RoundSeen,
    SeenPage,
    StatusSeen,
    parse_stamp,
    stamp,
)
from stablepay_console.storage.writing import reason

BUSY_SECONDS = 15.0

_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_CORRUPT = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB: only these set the file aside
_DISK = {
    3: "permission denied",  # SQLITE_PERM
    8: "the file or its folder is read-only",  # SQLITE_READONLY
    10: "the disk could not be written (an I/O error)",  # SQLITE_IOERR
    13: "the disk is full",  # SQLITE_FULL
    14: "the file cannot be opened there",  # SQLITE_CANTOPEN
}
AUDIT_COLUMNS = "seq, at, actor, profile, environment, action, target, outcome, detail, prev_hash, hash"


def _code(exc: sqlite3.Error) -> int:
    return int(getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF


def _disk_refused(path: Path, exc: sqlite3.Error) -> RecordNotWritten | None:
    """A write the disk refused (full, read-only, forbidden): the record is fine, only not writable now.

    SQLite reports a full disk under its write-ahead log as an I/O error: the folder's file system says
    which it is."""
    why = _DISK.get(_code(exc))
    if why is None:
        return None
    try:
        disk = os.statvfs(path.parent)
    except OSError:
        disk = None
    if disk is not None and disk.f_flag & os.ST_RDONLY:
        why = reason(OSError(errno.EROFS, ""))
    elif disk is not None and disk.f_bavail == 0:
        why = reason(OSError(errno.ENOSPC, ""))
    return RecordNotWritten(f"Could not write to the record {path}: {why}.")


def _wal(conn: sqlite3.Connection) -> None:
    """Write-ahead logging, waiting out another console that switches the same new file at the same moment.

    SQLite refuses one of two connections that each hold the file's shared lock and both need it alone
    (`database is locked` at once, without the busy timeout, since waiting could never end): that one asks
    again until the other is done, for up to `BUSY_SECONDS`, and then finds the file in WAL already."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if _code(exc) not in _BUSY or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


class SqliteRecord(SqliteTriage):
    """`Record` on a local SQLite file. Safe to share between threads (calls are serialised)."""

    offers: frozenset[Offer] = frozenset()
    """One person's file: the services' rules are its only check, and it keeps no team watcher's sweeps."""

    def __init__(self, path: Path, *, check: bool = True) -> None:
        self.path = path
        self.notice: str | None = None
        self._lock = threading.RLock()
        self._depth = 0
        """How many `_write` blocks are open on this thread: an inner one is a savepoint of the outer."""
        try:
            self._conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _disk_refused(path, exc) or RecordError(f"The record {path} cannot be opened: {exc}.") from None
        try:
            self._prepare(check)
        except BaseException:
            self._conn.close()
            raise

    def _prepare(self, check: bool) -> None:
        conn = self._conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > LATEST:
                raise RecordTooNew(
                    f"The record {self.path} was written by a newer stablepay-console (schema version {version}; "
                    f"this one knows up to {LATEST}). It was left as it is. Use the newer console, or move the "
                    "file away to start a new record with this one."
                )
            if check:
                problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
                if problems != ["ok"]:
                    raise RecordCorrupt("; ".join(str(p) for p in problems))
            _wal(conn)
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if version < LATEST:
                migrate(conn)
        except sqlite3.Error as exc:
            code = _code(exc)
            if code in _BUSY:
                raise RecordError(f"The record {self.path} is locked by another program ({exc}).") from None
            if code in _CORRUPT:
                raise RecordCorrupt(str(exc)) from None
            refused = _disk_refused(self.path, exc)
            raise refused or RecordError(f"The record {self.path} cannot be used: {exc}.") from None

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The calls made inside are one transaction: all of them are kept, or none."""
        with self._write():
            yield

    @contextmanager
    def _nested(self) -> Iterator[sqlite3.Connection]:
        name = f"inner_{self._depth}"
        self._conn.execute(f"SAVEPOINT {name}")
        self._depth += 1
        try:
            yield self._conn
        except BaseException:
            self._conn.execute(f"ROLLBACK TO {name}")
            raise
        finally:
            self._depth -= 1
            self._conn.execute(f"RELEASE {name}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._depth:
                with self._nested() as conn:
                    yield conn
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._depth = 1
                try:
                    yield self._conn
                    self._conn.execute("COMMIT")
                finally:
                    self._depth = 0
                    if self._conn.in_transaction:  # failed, or a COMMIT the disk refused: nothing half-kept
                        with suppress(sqlite3.Error):
                            self._conn.execute("ROLLBACK")
            except sqlite3.Error as exc:
                refused = _disk_refused(self.path, exc)
                if refused is None:
                    raise
                raise refused from None

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:  # type: ignore[type-arg]
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # --- round history --------------------------------------------------------------------

    def observe(self, pages: Sequence[SeenPage]) -> int:
        changed = 0
        with self._write() as conn:
            for page in pages:
                seen = stamp(page.at)
                changed += observe_page(conn, page.profile, page.environment, page.sightings, seen)
        return changed

    def ids_starting(self, profile: str, prefix: str, limit: int = 10) -> list[str]:
        if not prefix or any(ch not in "0123456789abcdef-" for ch in prefix):
            return []  # nothing a LIKE pattern could read as a wildcard
        rows = self._read("SELECT rfi_id FROM rfis WHERE profile = ? AND rfi_id LIKE ? ORDER BY rfi_id LIMIT ?",
                          (profile, prefix + "%", limit))
        return [row[0] for row in rows]

    def history(self, profile: str, rfi_id: str) -> RfiHistory:
        key = (profile, rfi_id)
        found = self._read(
            "SELECT environment, status, wire, round_row, first_seen, last_seen FROM rfis "
            "WHERE profile = ? AND rfi_id = ?",
            key,
        )
        if not found:
            return RfiHistory(profile, rfi_id, None)
        env, status, wire, round_row, first, last = found[0]
        record = RfiRecord(
            profile, rfi_id, env, status, object_or_unreadable(wire), round_row is not None, parse_stamp(first),
            parse_stamp(last),
        )
        rounds = [
            RoundSeen(
                n, row[0], row[1], parse_stamp(row[2]), _maybe(row[3]), _maybe(row[4]), row[5],
                object_or_unreadable(row[6]), parse_stamp(row[7]), parse_stamp(row[8]),
            )
            for n, row in enumerate(
                self._read(
                    "SELECT ro.round_no, ro.round_id, ro.issued_at, ro.expires_at, ro.submitted_at, ro.link, ro.wire, "
                    f"ro.first_seen, {ROUND_LAST_SEEN} FROM rounds ro JOIN rfis r ON r.profile = ro.profile AND "
                    "r.rfi_id = ro.rfi_id WHERE ro.profile = ? AND ro.rfi_id = ? ORDER BY ro.id",
                    key,
                ),
                start=1,
            )
        ]
        statuses = [
            StatusSeen(s, parse_stamp(f), parse_stamp(la))
            for s, f, la in self._read(
                f"SELECT st.status, st.first_seen, {STATUS_LAST_SEEN} FROM statuses st JOIN rfis r ON "
                "r.profile = st.profile AND r.rfi_id = st.rfi_id WHERE st.profile = ? AND st.rfi_id = ? ORDER BY st.id",
                key,
            )
        ]
        return RfiHistory(profile, rfi_id, record, rounds, statuses)

    # --- notes and claims -----------------------------------------------------------------

    def add_note(self, profile: str, rfi_id: str, author: str, text: str, at: datetime) -> Note:
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO notes (profile, rfi_id, author, at, text) VALUES (?, ?, ?, ?, ?)",
                (profile, rfi_id, author, stamp(at), text),
            )
        return Note(int(cursor.lastrowid or 0), profile, rfi_id, author, parse_stamp(stamp(at)), text)

    def notes(self, profile: str, rfi_id: str) -> list[Note]:
        rows = self._read(
            "SELECT id, author, at, text FROM notes WHERE profile = ? AND rfi_id = ? ORDER BY id", (profile, rfi_id)
        )
        return [Note(i, profile, rfi_id, a, parse_stamp(t), x) for i, a, t, x in rows]

    def _claim_in(self, conn: sqlite3.Connection, profile: str, rfi_id: str) -> Claim | None:
        row = conn.execute(
            "SELECT claimant, at FROM claims WHERE profile = ? AND rfi_id = ?", (profile, rfi_id)
        ).fetchone()
        return Claim(profile, rfi_id, row[0], parse_stamp(row[1])) if row else None

    def claim(
        self, profile: str, rfi_id: str, claimant: str, at: datetime, lapse: timedelta | None = None
    ) -> ClaimOutcome:
        if lapse is not None:
            raise RecordError("Only the team record keeps claims that lapse; the local one holds them until released.")
        with self._write() as conn:
            held = self._claim_in(conn, profile, rfi_id)
            if held is not None:
                return ClaimOutcome(held.claimant == claimant, held, held)
            conn.execute(
                "INSERT INTO claims (profile, rfi_id, claimant, at) VALUES (?, ?, ?, ?)",
                (profile, rfi_id, claimant, stamp(at)),
            )
        return ClaimOutcome(True, Claim(profile, rfi_id, claimant, parse_stamp(stamp(at))))

    def release(self, profile: str, rfi_id: str, claimant: str, *, force: bool = False) -> ClaimOutcome:
        with self._write() as conn:
            held = self._claim_in(conn, profile, rfi_id)
            if held is None or (held.claimant != claimant and not force):
                return ClaimOutcome(False, held, held)
            conn.execute("DELETE FROM claims WHERE profile = ? AND rfi_id = ?", (profile, rfi_id))
        return ClaimOutcome(True, None, held)

    def claim_of(self, profile: str, rfi_id: str) -> Claim | None:
        with self._lock:
            return self._claim_in(self._conn, profile, rfi_id)

    def claims(self, profile: str) -> dict[str, Claim]:
        rows = self._read("SELECT rfi_id, claimant, at FROM claims WHERE profile = ?", (profile,))
        return {r: Claim(profile, r, c, parse_stamp(a)) for r, c, a in rows}

    # --- audit log ------------------------------------------------------------------------

    def append_audit(self, draft: AuditDraft) -> AuditEntry:
        detail = json.dumps(draft.detail, sort_keys=True, ensure_ascii=True, default=str)
        with self._write() as conn:
            # The head, not the last row, says where the chain ends: an entry appended after a cut
            # tail then names the missing hash, and verify still sees the cut.
            head = conn.execute("SELECT count, hash FROM audit_head WHERE only = 1").fetchone()
            if head is None:
                last = conn.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
                head = last or (0, GENESIS)
            seq, prev = int(head[0]) + 1, str(head[1])
            fields = (stamp(draft.at), draft.actor, draft.profile, draft.environment, draft.action, draft.target,
                      draft.outcome, detail)
            unsigned = AuditEntry(seq, *fields, prev_hash=prev, hash="")
            entry = AuditEntry(seq, *fields, prev_hash=prev, hash=entry_hash(prev, unsigned.content()))
            conn.execute(
                f"INSERT INTO audit ({AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (seq, *fields, entry.prev_hash, entry.hash),
            )
            conn.execute("INSERT OR REPLACE INTO audit_head (only, count, hash) VALUES (1, ?, ?)", (seq, entry.hash))
        return entry

    def audit(
        self,
        *,
        since: datetime | None = None,
        profile: str | None = None,
        target: str | None = None,
        limit: int | None = None,
    ) -> list[AuditEntry]:
        where, params = [], []  # type: ignore[var-annotated]
        for clause, value in (("at >= ?", stamp(since) if since else None), ("profile = ?", profile),
                              ("target = ?", target)):
            if value is not None:
                where.append(clause)
                params.append(value)
        sql = f"SELECT {AUDIT_COLUMNS} FROM audit"
        if where:
            sql += " WHERE " + " AND ".join(where)
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY seq DESC LIMIT {int(limit)})"
        rows = self._read(sql + " ORDER BY seq", params)
        return [AuditEntry(*row) for row in rows]

    # --- the team watcher: none on a local record ------------------------------------------------

    def audit_head(self) -> AuditHead | None:
        rows = self._read("SELECT count, hash FROM audit_head WHERE only = 1")
        return AuditHead(int(rows[0][0]), str(rows[0][1])) if rows else None

    def audit_hash(self, seq: int) -> str | None:
        rows = self._read("SELECT hash FROM audit WHERE seq = ?", (seq,))
        return str(rows[0][0]) if rows else None

    @property
    def witness_key(self) -> str:
        return f"local {self.path}"


def _maybe(text: str | None) -> datetime | None:
    return parse_stamp(text) if text else None
