"""`Record` on the team's PostgreSQL: the same interface as the local file, shared by the whole team.

What differs from the local file, all of it decided by the database:
- records are keyed by the API server (`scope_of(profile)`: environment + base URL), not by this
  machine's profile names, so `prod` here and `live` there share one history;
- the author of a note, the holder of a claim and the actor of an audit entry is the role logged in
  (`current_user`), whatever name is passed in; times are the database's clock;
- a claim may lapse (`until`); only a member of `stablepay_lead` may release someone else's claim
  (row security), and an analyst's refused release says so;
- what the API said (requests, rounds, statuses, sweeps) is written by `stablepay_watcher` only: an
  analyst's console reads the team's history and simply does not record what it fetched.

One connection, opened on first use and again after it was lost: a database that is down makes each
call fail with a RecordUnavailable naming the database, and the next call tries again. Every call is
one transaction, and so is everything inside `transaction()` (an action and its audit entry); nothing
is written unless all of it is. A server that stops answering fails the call within `ANSWER_SECONDS`;
a connection lost while committing is RecordOutcomeUnknown (it may or may not have been saved).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.postgres import audit as chain
from stablepay_console.storage.postgres import history as seen
from stablepay_console.storage.postgres import sweeps as sweeps
from stablepay_console.storage.postgres.assignment import PgAssignment
from stablepay_console.storage.postgres.claims import PgClaims
from stablepay_console.storage.postgres.connection import (
    ANSWER_SECONDS,
    RecordOutcomeUnknown,
    RecordUnavailable,
    connect,
    deadline,
    need_psycopg,
    problem,
)
from stablepay_console.storage.postgres.deliveries import PgDeliveries
from stablepay_console.storage.postgres.feed import PgFeed
from stablepay_console.storage.postgres.schema import LEAD, WATCHER, check_version
from stablepay_console.storage.postgres.triage import PgTriage
from stablepay_console.storage.postgres.url import TeamUrl
from stablepay_console.storage.record import Offer, RecordError
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Imported,
    Note,
    RfiHistory,
    SeenPage,
)

if TYPE_CHECKING:
    import psycopg

NOTE_COLUMNS = "id, author, at, text, imported_from, written_as, written_at"
OBSERVE_SECONDS = 120.0
"""The watcher's writes are background work of thousands of rows: they may take longer than an analyst's call."""
CHECK_AFTER = 1.0
"""Seconds a connection may sit unused before it is checked again."""


def _note(profile: str, rfi_id: str, row: tuple[Any, ...]) -> Note:
    note_id, author, at, text, source, written_as, written_at = row
    # a note imported by version 1 kept only the time it was written: when it was imported is not known
    when = None if written_at is not None and written_at == at else at
    imported = Imported(str(source), str(author), when, str(written_as or "?"), written_at) if source else None
    return Note(int(note_id), profile, rfi_id, str(author), at, str(text), imported)


class PgRecord(PgClaims, PgAssignment, PgTriage, PgFeed, PgDeliveries):
    """The team record. Not shared between threads: each thread (the record's worker) has its own."""

    offers = frozenset(Offer)
    """Everything: the database checks the steps (four eyes), claims may lapse, the watcher's sweeps, live changes
    (LISTEN), and it writes the audit entries of acts itself (migration 4: the same entry typed is refused)."""

    def __init__(
        self, url: TeamUrl, scope_of: Callable[[str], str], on_role: Callable[[str], None] | None = None
    ) -> None:
        need_psycopg()
        self.url = url
        self.scope_of = scope_of
        self.on_role = on_role
        self.notice: str | None = None
        self.role = url.role
        """Who this record writes as: the URL's role until connected, then the database's current_user."""
        self.lead = False
        self.watcher = False
        """Whether the role may record what the API said (a member of stablepay_watcher)."""
        self.server_version = ""
        self.version = 0
        self.check_after = CHECK_AFTER
        self._used = 0.0
        self._conn: psycopg.Connection | None = None
        self._open: psycopg.Connection | None = None
        """The connection of the transaction under way (calls inside `transaction()` join it)."""

    # --- the connection -------------------------------------------------------------------

    def _connection(self) -> psycopg.Connection:
        if self._open is not None:  # inside a transaction: use it, never check it (a check rolls back)
            return self._open
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken and self._alive(conn):
            return conn
        if conn is not None:
            conn.close()
        self._conn = None
        conn = connect(self.url)
        try:
            self.version = check_version(conn, self.url.where)
            with deadline(conn):
                row = conn.execute("SELECT current_user, pg_has_role(current_user, %s, 'MEMBER'), "
                                   "pg_has_role(current_user, %s, 'MEMBER'), current_setting('server_version')",
                                   (LEAD, WATCHER)).fetchone()
                conn.commit()
        except RecordError:
            conn.close()
            raise
        except Exception as exc:
            conn.close()
            raise problem(exc, self.url, "open the team record") from None
        if row:
            self.role, self.lead, self.watcher = str(row[0]), bool(row[1]), bool(row[2])
            self.server_version = str(row[3]).split(" ")[0]
        if self.on_role is not None:
            self.on_role(self.role)
        self._conn = conn
        return conn

    def _alive(self, conn: psycopg.Connection) -> bool:
        """After a pause, a connection is checked before use: one the server dropped meanwhile (a restart, a
        failover, an idle timeout) is replaced at once instead of failing the next save."""
        if time.monotonic() - self._used < self.check_after:
            return True
        try:
            with deadline(conn, min(ANSWER_SECONDS, 5.0)):
                conn.execute("SELECT 1")
                conn.rollback()
        except Exception:
            return False
        return True

    @contextmanager
    def _tx(self, doing: str, seconds: float | None = None) -> Iterator[psycopg.Connection]:
        """One transaction (inside `transaction()`, a savepoint of it); a psycopg failure becomes a RecordError
        saying what could not be done. A connection lost while committing is RecordOutcomeUnknown."""
        pg = need_psycopg()
        if self._open is not None:
            try:
                with self._open.transaction():
                    yield self._open
            except pg.Error as exc:
                raise problem(exc, self.url, doing) from None
            return
        try:
            conn = self._connection()
        except RecordUnavailable as exc:
            raise RecordUnavailable(f"Could not {doing}. {exc}") from None
        committing = False
        self._open = conn
        try:
            with deadline(conn, ANSWER_SECONDS if seconds is None else seconds), conn.transaction():
                yield conn
                committing = True
        except pg.Error as exc:
            if conn.broken or conn.closed:
                self._conn = None
            if committing and isinstance(exc, pg.OperationalError | pg.InterfaceError) \
                    and not isinstance(exc, pg.errors.LockNotAvailable | pg.errors.SerializationFailure):
                raise RecordOutcomeUnknown(
                    f"The team record at {self.url.where} lost the connection while saving ({doing}): it is not "
                    "known whether it was saved. Check before doing it again (`rfis show ID`, `audit log`)."
                ) from None
            raise problem(exc, self.url, doing) from None
        finally:
            self._open = None
            self._used = time.monotonic()

    @contextmanager
    def transaction(self, seconds: float | None = None) -> Iterator[None]:
        """Everything done inside is one transaction: an action and its audit entry are kept together, or neither."""
        with self._tx("save the action and its audit entry", seconds):
            yield

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def whoami(self) -> tuple[str, bool]:
        """(role, whether it is a lead), asking the database."""
        self._connection()
        return self.role, self.lead

    # --- round history --------------------------------------------------------------------

    def observe(self, pages: Sequence[SeenPage]) -> int:
        """Record what a fetch saw: the team watcher's job. Any other role's console keeps nothing (and says
        nothing: listing and opening work as without a record)."""
        self.whoami()
        if not self.watcher:
            return 0
        with self._tx("record the requests received", OBSERVE_SECONDS) as conn:
            return seen.observe(conn, self.scope_of, pages)

    def ids_starting(self, profile: str, prefix: str, limit: int = 10) -> list[str]:
        if not prefix or any(ch not in "0123456789abcdef-" for ch in prefix):
            return []  # nothing a LIKE pattern could read as a wildcard
        with self._tx("look up the request's ID") as conn:
            rows = conn.execute("SELECT rfi_id FROM stablepay.rfis WHERE server = %s AND rfi_id LIKE %s "
                                "ORDER BY rfi_id LIMIT %s", (self.scope_of(profile), prefix + "%", limit)).fetchall()
        return [str(row[0]) for row in rows]

    def history(self, profile: str, rfi_id: str) -> RfiHistory:
        with self._tx("read the request's history") as conn:
            return seen.history(conn, self.scope_of(profile), profile, rfi_id)

    # --- notes ----------------------------------------------------------------------------

    def add_note(self, profile: str, rfi_id: str, author: str, text: str, at: datetime) -> Note:
        """The note, kept under the role's name at the database's time (`author` and `at` are not used)."""
        with self._tx("save the note") as conn:
            row = conn.execute(
                "INSERT INTO stablepay.notes (server, rfi_id, profile, text) VALUES (%s, %s, %s, %s) "
                f"RETURNING {NOTE_COLUMNS}",
                (self.scope_of(profile), rfi_id, profile, text),
            ).fetchone()
        assert row is not None
        return _note(profile, rfi_id, row)

    def notes(self, profile: str, rfi_id: str) -> list[Note]:
        with self._tx("read the notes") as conn:
            rows = conn.execute(
                f"SELECT {NOTE_COLUMNS} FROM stablepay.notes WHERE server = %s AND rfi_id = %s ORDER BY at, id",
                (self.scope_of(profile), rfi_id),
            ).fetchall()
        return [_note(profile, rfi_id, row) for row in rows]

    # --- audit log ------------------------------------------------------------------------

    def append_audit(self, draft: AuditDraft) -> AuditEntry:
        """The draft's content; its number, time, actor (the role) and hash are the database's."""
        server = self.scope_of(draft.profile) if draft.profile else ""
        with self._tx(f"append '{draft.action}' to the audit log") as conn:
            return chain.append(conn, draft, server)

    def audit(
        self,
        *,
        since: datetime | None = None,
        profile: str | None = None,
        target: str | None = None,
        limit: int | None = None,
    ) -> list[AuditEntry]:
        """Entries in order; `profile` means every entry about that profile's server, whoever wrote it."""
        server = self.scope_of(profile) if profile else None
        with self._tx("read the audit log") as conn:
            return chain.read(conn, since=since, server=server, target=target, limit=limit)

    def audit_head(self) -> AuditHead | None:
        with self._tx("read the audit log's head") as conn:
            return chain.head(conn)

    def audit_hash(self, seq: int) -> str | None:
        with self._tx("read the audit log") as conn:
            row = conn.execute("SELECT hash FROM stablepay.audit WHERE seq = %s", (seq,)).fetchone()
        return str(row[0]) if row else None

    @property
    def witness_key(self) -> str:
        return f"team {self.url.where}"

    def run(self, doing: str, work: Callable[[psycopg.Connection], Any], seconds: float | None = None) -> Any:
        """Anything else in one transaction (the import, `record status`)."""
        with self._tx(doing, seconds) as conn:
            return work(conn)
