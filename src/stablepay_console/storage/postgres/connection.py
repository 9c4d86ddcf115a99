"""Connecting to the team record, and saying in one line what went wrong when the database refuses.

psycopg is imported here and only here (and in the modules that use a connection), on first use: a
one-person install without the `team` extra never loads it, and one that sets a team URL is told to
install `stablepay-console[team]`. Every failure becomes a RecordError whose message names the
database and what failed; never a traceback, never a password (a URL holding one is refused).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import variables
from stablepay_console.storage.postgres.schema import GROUP_ROLES
from stablepay_console.storage.postgres.url import TeamUrl, is_loopback
from stablepay_console.storage.record import RecordError, RecordRefused

if TYPE_CHECKING:
    import psycopg

ROLE_VARIABLE = variables.RECORD_ROLE
"""Set by `stablepay-console web` for each browser's console: the role its connections `SET ROLE` to."""
CONNECT_SECONDS = 10
"""How long connecting may take, the server's answers to the start-up included (libpq's connect_timeout)."""
ANSWER_SECONDS = 20.0
"""How long one transaction may wait on the server before its socket is cut (see `deadline`)."""
STATEMENT_MS = 15_000
"""The server ends a statement that runs longer (statement_timeout), before our own deadline cuts the socket."""
LOCK_MS = 3_000
"""The longest any statement waits for a lock another session holds (lock_timeout): then the record is busy, and
what was asked is not saved. No member can stop the others' work by holding a lock (a note, a claim, a step)."""
CHANGED = ("another session changed what this rests on after this transaction began reading (the team watcher "
           "may have closed the request): read it again")
"""A transaction of REPEATABLE READ or SERIALIZABLE (a session's own default) that meets a newer fact is refused
("could not serialize access"): a step is never taken on what its transaction no longer sees as it is."""
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
              "tcp_user_timeout": 20_000}
"""A peer that vanished (no TCP answer at all) is noticed within about 25 s, even while nothing is asked."""
APPLICATION = "stablepay-console"
INSTALL = "install stablepay-console[team] (pip install 'stablepay-console[team]') to use a team record"


class RecordUnavailable(RecordError):
    """The database cannot be reached, or the connection was lost: nothing was written."""


class RecordOutcomeUnknown(RecordUnavailable):
    """The connection was lost while the database committed: what was asked may or may not have been saved."""


class RecordBusy(RecordError):
    """Another session held what the act needs for longer than `LOCK_MS`: nothing was saved."""



def need_psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise RecordError(f"A team record URL is set, but PostgreSQL support is not installed: {INSTALL}.") from None
    return psycopg


def connect(url: TeamUrl, *, autocommit: bool = False, timeout: int = CONNECT_SECONDS) -> psycopg.Connection:
    """A connection to the team record (libpq finds the password: PGPASSWORD, ~/.pgpass, a service file).

    The URL's TLS rule is checked again on what libpq used: a connection that went off loopback without TLS
    is closed before anything is sent on it."""
    pg = need_psycopg()
    role = os.environ.get(ROLE_VARIABLE, "").strip()
    refuse_group_role(url, role or url.role)
    try:
        conn: psycopg.Connection = pg.connect(
            url.url, autocommit=autocommit, connect_timeout=timeout, application_name=APPLICATION,
            options=f"-c statement_timeout={STATEMENT_MS} -c lock_timeout={LOCK_MS}", **KEEPALIVES,
        )
    except pg.Error as exc:
        why = reason(exc)
        if "permission denied for database" in why:  # reached, and told no: not a member of the team's roles
            why = why[why.index("permission denied"):]
            raise RecordRefused(
                f"The team record at {url.where} refused the connection of {url.role}: {why}. Only members of "
                "stablepay_analyst, stablepay_lead and stablepay_watcher may connect; an admin grants one "
                f"(GRANT stablepay_analyst TO {url.role};)."
            ) from None
        raise RecordUnavailable(f"The team record at {url.where} cannot be reached: {why}") from None
    host = conn.info.host
    if not is_loopback(host) and not conn.pgconn.ssl_in_use:
        conn.close()
        raise RecordUnavailable(f"The team record at {url.where} was reached at {clean(host, 200)} without TLS; "
                                "the connection was closed before anything was sent.")
    try:
        with deadline(conn, ANSWER_SECONDS):
            conn.execute("SET TIME ZONE 'UTC'")  # times come back in UTC, as the local record's do
            if role:
                set_session_role(conn, role)
            if not autocommit:
                conn.commit()
    except pg.Error as exc:
        conn.close()
        raise RecordUnavailable(f"The team record at {url.where} cannot be used: {reason(exc)}") from None
    return conn


def refuse_group_role(url: TeamUrl, role: str) -> None:
    """Before connecting: acting as a team group role would make every act nobody's (the database refuses each
    act too; this says so at once, without a connection)."""
    if role in GROUP_ROLES:
        raise RecordRefused(
            f"{clean(role, 80)} is a group role of the team record at {url.where}, not a person: every act there is "
            f"made under a person's own login. Unset {ROLE_VARIABLE} (or use your own login in the URL)."
        )


def set_session_role(conn: psycopg.Connection, role: str) -> None:
    """`SET ROLE` for the rest of the session (committed with the connection's setup): the web server logs in
    as one NOINHERIT authenticator and each browser's console acts as its signed-in user, as PostgREST does."""
    from psycopg import sql

    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))


def _cut(fd: int, live: threading.Event) -> None:
    if not live.is_set():
        return
    with contextlib.suppress(OSError):
        copy = socket.socket(fileno=os.dup(fd))
        try:
            copy.shutdown(socket.SHUT_RDWR)
        finally:
            copy.close()


@contextmanager
def deadline(conn: psycopg.Connection, seconds: float = ANSWER_SECONDS) -> Iterator[None]:
    """Whatever runs inside waits on the server for at most `seconds`: then the connection's socket is shut
    down, and the call waiting on it fails at once as a lost connection. A server that accepts and never answers
    (stopped, a wedged proxy) ends a command with a message instead of hanging it; keepalives alone do not,
    since the peer's kernel still acknowledges every packet."""
    live = threading.Event()
    live.set()
    timer = threading.Timer(seconds, _cut, (conn.pgconn.socket, live))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        live.clear()
        timer.cancel()


def reason(exc: BaseException) -> str:
    """The database's own words, first line, cleaned (server text is data)."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    text = primary or str(exc) or type(exc).__name__
    first = next((line.strip() for line in str(text).splitlines() if line.strip()), type(exc).__name__)
    return clean(first.removeprefix("connection failed: "), 300)


def problem(exc: BaseException, url: TeamUrl, doing: str) -> RecordError:
    """`exc` from psycopg while `doing` ("save the note") as the RecordError to show."""
    pg = need_psycopg()
    why = reason(exc)
    if isinstance(exc, pg.errors.LockNotAvailable):
        return busy(url, doing)
    if isinstance(exc, pg.errors.InsufficientPrivilege | pg.errors.CheckViolation):
        return RecordRefused(f"The team record at {url.where} refused to {doing}: {why}.", why)
    if isinstance(exc, pg.errors.SerializationFailure):
        return RecordRefused(f"The team record at {url.where} refused to {doing}: {CHANGED}. Nothing was saved.",
                             CHANGED)
    if isinstance(exc, pg.OperationalError | pg.InterfaceError):
        return RecordUnavailable(
            f"The team record at {url.where} could not {doing}: the connection failed ({why}). Nothing was saved."
        )
    return RecordError(f"The team record at {url.where} could not {doing}: {why}.")


def busy(url: TeamUrl, doing: str) -> RecordBusy:
    return RecordBusy(
        f"The team record at {url.where} is busy: another session has held what this needs for over "
        f"{LOCK_MS // 1000} s, so it could not {doing}. Nothing was saved; try again in a moment."
    )
