"""`Record` on the team's PostgreSQL: the same interface as the local file, shared by the whole team.

What differs from the local file, all of it decided by the database:
- records are keyed by the API server (`scope_of(profile)`: environment + base URL), not by this
  machine's profile names, so `prod` here and `live` there share one history;
- the author of a note, the holder of a claim and the actor of an audit entry is the role logged in
  (`current_user`), whatever name is passed in; times are the database's clock;
- a claim may lapse (`until`); only a member of `stablepay_lead` may release someone else's claim
  (row security), and an analyst's refused release says so.

One connection, opened on first use and again after it was lost: a database that is down makes each
call fail with a RecordUnavailable naming the database, and the next call tries again. Every call is
one transaction; nothing is written unless all of it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from stablepay_console.storage import record_pg_audit as chain
from stablepay_console.storage import record_pg_history as seen
from stablepay_console.storage import record_pg_sweeps as sweeps
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_pg_conn import RecordUnavailable, connect, need_psycopg, problem
from stablepay_console.storage.record_pg_schema import LEAD, check_version
from stablepay_console.storage.record_pg_triage import PgTriage
from stablepay_console.storage.record_types import (
    AuditDraft,
    AuditEntry,
    AuditHead,
    Claim,
    ClaimOutcome,
    Note,
    RfiHistory,
    SeenPage,
)
from stablepay_console.storage.record_url import TeamUrl

if TYPE_CHECKING:
    import psycopg

CLAIM_COLUMNS = "claimant, at, until, (until IS NOT NULL AND until <= now())"
CHECK_AFTER = 1.0
"""Seconds a connection may sit unused before it is checked again."""
LEAD_ONLY = f"only a member of {LEAD} may release someone else's claim"


class PgRecord(PgTriage):
    """The team record. Not shared between threads: each thread (the record's worker) has its own."""

    claims_lapse = True
    """`claim(..., lapse=timedelta)` makes a claim that ends by itself."""

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
        self.version = 0
        self.check_after = CHECK_AFTER
        self._used = 0.0
        self._depth = 0
        """Calls inside `transaction()` (record_pg_triage): they use its connection as it is."""
        self._conn: psycopg.Connection | None = None

    # --- the connection -------------------------------------------------------------------

    def _connection(self) -> psycopg.Connection:
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken and self._alive(conn):
            return conn
        if conn is not None:
            conn.close()
        self._conn = None
        conn = connect(self.url)
        try:
            self.version = check_version(conn, self.url.where)
            row = conn.execute("SELECT current_user, pg_has_role(current_user, %s, 'MEMBER')", (LEAD,)).fetchone()
            conn.commit()
        except RecordError:
            conn.close()
            raise
        except Exception as exc:
            conn.close()
            raise problem(exc, self.url, "open the team record") from None
        self.role, self.lead = (str(row[0]), bool(row[1])) if row else (self.role, False)
        if self.on_role is not None:
            self.on_role(self.role)
        self._conn = conn
        return conn

    def _alive(self, conn: psycopg.Connection) -> bool:
        """After a pause, a connection is checked before use: one the server dropped meanwhile (a restart, a
        failover, an idle timeout) is replaced at once instead of failing the next save."""
        if self._depth or time.monotonic() - self._used < self.check_after:
            return True
        try:
            conn.execute("SELECT 1")
            conn.rollback()
        except Exception:
            return False
        return True

    @contextmanager
    def _tx(self, doing: str) -> Iterator[psycopg.Connection]:
        """One transaction; a psycopg failure becomes a RecordError saying what could not be done."""
        pg = need_psycopg()
        try:
            conn = self._connection()
        except RecordUnavailable as exc:
            raise RecordUnavailable(f"Could not {doing}. {exc}") from None
        try:
            with conn.transaction():
                yield conn
        except pg.Error as exc:
            if conn.broken or conn.closed:
                self._conn = None
            raise problem(exc, self.url, doing) from None
        finally:
            self._used = time.monotonic()

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
        with self._tx("record the requests received") as conn:
            return seen.observe(conn, self.scope_of, pages)

    def history(self, profile: str, rfi_id: str) -> RfiHistory:
        with self._tx("read the request's history") as conn:
            return seen.history(conn, self.scope_of(profile), profile, rfi_id)

    # --- notes ----------------------------------------------------------------------------

    def add_note(self, profile: str, rfi_id: str, author: str, text: str, at: datetime) -> Note:
        """The note, kept under the role's name at the database's time (`author` and `at` are not used)."""
        with self._tx("save the note") as conn:
            row = conn.execute(
                "INSERT INTO stablepay.notes (server, rfi_id, profile, text) VALUES (%s, %s, %s, %s) "
                "RETURNING id, author, at",
                (self.scope_of(profile), rfi_id, profile, text),
            ).fetchone()
        assert row is not None
        return Note(int(row[0]), profile, rfi_id, str(row[1]), row[2], text)

    def notes(self, profile: str, rfi_id: str) -> list[Note]:
        with self._tx("read the notes") as conn:
            rows = conn.execute(
                "SELECT id, author, at, text FROM stablepay.notes WHERE server = %s AND rfi_id = %s ORDER BY at, id",
                (self.scope_of(profile), rfi_id),
            ).fetchall()
        return [Note(int(i), profile, rfi_id, str(a), t, str(x)) for i, a, t, x in rows]

    # --- claims ---------------------------------------------------------------------------

    def _held(self, conn: psycopg.Connection, server: str, profile: str, rfi_id: str) -> tuple[Claim, bool] | None:
        row = conn.execute(
            f"SELECT {CLAIM_COLUMNS} FROM stablepay.claims WHERE server = %s AND rfi_id = %s", (server, rfi_id)
        ).fetchone()
        return (Claim(profile, rfi_id, str(row[0]), row[1], row[2]), bool(row[3])) if row else None

    def claim(
        self, profile: str, rfi_id: str, claimant: str, at: datetime, lapse: timedelta | None = None
    ) -> ClaimOutcome:
        """Claim for the role logged in; `lapse` makes it end by itself. Exactly one holder, however many try."""
        server = self.scope_of(profile)
        with self._tx("save the claim") as conn:
            for _ in range(5):  # another console may take or drop it between two statements
                held = self._held(conn, server, profile, rfi_id)
                if held is None:
                    row = conn.execute(
                        "INSERT INTO stablepay.claims (server, rfi_id, profile, until) "
                        "VALUES (%s, %s, %s, clock_timestamp() + %s::interval) ON CONFLICT (server, rfi_id) DO NOTHING "
                        f"RETURNING {CLAIM_COLUMNS}",
                        (server, rfi_id, profile, lapse),
                    ).fetchone()
                    if row is not None:
                        return ClaimOutcome(True, Claim(profile, rfi_id, str(row[0]), row[1], row[2]))
                    continue
                claim, lapsed = held
                if claim.claimant == self.role and not lapsed:
                    if lapse is not None:
                        claim = self._take(conn, server, profile, rfi_id, lapse) or claim
                    return ClaimOutcome(True, claim, held[0])
                if not lapsed:
                    return ClaimOutcome(False, claim, claim)
                taken = self._take(conn, server, profile, rfi_id, lapse)
                if taken is not None:
                    return ClaimOutcome(True, taken, claim)
        raise RecordError(f"The team record at {self.url.where} could not settle the claim on {rfi_id}; try again.")

    def _take(
        self, conn: psycopg.Connection, server: str, profile: str, rfi_id: str, lapse: timedelta | None
    ) -> Claim | None:
        """Take over a lapsed claim, or extend your own (row security allows nothing else)."""
        row = conn.execute(
            "UPDATE stablepay.claims SET profile = %s, until = clock_timestamp() + %s::interval "
            "WHERE server = %s AND rfi_id = %s AND (claimant = current_user OR until <= now()) "
            f"RETURNING {CLAIM_COLUMNS}",
            (profile, lapse, server, rfi_id),
        ).fetchone()
        return Claim(profile, rfi_id, str(row[0]), row[1], row[2]) if row else None

    def release(self, profile: str, rfi_id: str, claimant: str, *, force: bool = False) -> ClaimOutcome:
        """Release the role's own claim; `force` asks the database to release anyone's (a lead's right)."""
        server = self.scope_of(profile)
        with self._tx("release the claim") as conn:
            found = self._held(conn, server, profile, rfi_id)
            held = found[0] if found else None
            if held is None:
                return ClaimOutcome(False, None, None)
            mine = held.claimant == self.role
            if not mine and not force:
                return ClaimOutcome(False, held, held)
            gone = conn.execute(
                "DELETE FROM stablepay.claims WHERE server = %s AND rfi_id = %s RETURNING claimant",
                (server, rfi_id),
            ).fetchone()
        if gone is None:  # row security kept it: not ours, not lapsed, and we are no lead
            return ClaimOutcome(False, held, held, refusal=f"the database refused: {LEAD_ONLY}")
        return ClaimOutcome(True, None, held)

    def claim_of(self, profile: str, rfi_id: str) -> Claim | None:
        with self._tx("read the claim") as conn:
            found = self._held(conn, self.scope_of(profile), profile, rfi_id)
        return found[0] if found and not found[1] else None

    def claims(self, profile: str) -> dict[str, Claim]:
        """The claims in force on the profile's server (lapsed ones are not claims any more)."""
        with self._tx("read the claims") as conn:
            rows = conn.execute(
                "SELECT rfi_id, claimant, at, until FROM stablepay.claims "
                "WHERE server = %s AND (until IS NULL OR until > now())",
                (self.scope_of(profile),),
            ).fetchall()
        return {str(r): Claim(profile, str(r), str(c), a, u) for r, c, a, u in rows}

    # --- audit log ------------------------------------------------------------------------

    def append_audit(self, draft: AuditDraft) -> AuditEntry:
        server = self.scope_of(draft.profile) if draft.profile else ""
        with self._tx(f"append '{draft.action}' to the audit log") as conn:
            return chain.append(conn, draft, server, self.role)

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

    # --- the team watcher -----------------------------------------------------------------

    def mark_sweep(self, profile: str, interval_seconds: int, radar: str) -> None:
        """`rfis watch` swept the profile's server; `radar` is what a console's banner needs."""
        with self._tx("mark the team watcher's sweep") as conn:
            sweeps.mark(conn, self.scope_of(profile), interval_seconds, radar)

    def last_sweep(self, profile: str) -> sweeps.Sweep | None:
        with self._tx("read the team watcher's sweep") as conn:
            return sweeps.last(conn, self.scope_of(profile))

    def issued(self, profile: str) -> list[tuple[str, str | None]]:
        """The wire JSON (request, current round) of each request of the profile's server last seen as issued."""
        with self._tx("read the issued requests") as conn:
            return seen.issued(conn, self.scope_of(profile))

    def run(self, doing: str, work: Callable[[psycopg.Connection], Any]) -> Any:
        """Anything else in one transaction (the import, the team watcher's sweep, `record status`)."""
        with self._tx(doing) as conn:
            return work(conn)
