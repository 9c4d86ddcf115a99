"""Connecting to the team record, and saying in one line what went wrong when the database refuses.

psycopg is imported here and only here (and in the modules that use a connection), on first use: a
one-person install without the `team` extra never loads it, and one that sets a team URL is told to
install `stablepay-console[team]`. Every failure becomes a RecordError whose message names the
database and what failed; never a traceback, never a password (a URL holding one is refused).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_url import TeamUrl

if TYPE_CHECKING:
    import psycopg

ROLE_VARIABLE = "STABLEPAY_RECORD_ROLE"
"""Set by `stablepay-console web` for each browser's console: the role its connections `SET ROLE` to."""
CONNECT_SECONDS = 5
APPLICATION = "stablepay-console"
INSTALL = "install stablepay-console[team] (pip install 'stablepay-console[team]') to use a team record"


class RecordUnavailable(RecordError):
    """The database cannot be reached, or the connection was lost: nothing was written."""


class RecordRefused(RecordError):
    """The database refused what was asked (a privilege, a rule): nothing was written."""


def need_psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise RecordError(f"A team record URL is set, but PostgreSQL support is not installed: {INSTALL}.") from None
    return psycopg


def connect(url: TeamUrl, *, autocommit: bool = False, timeout: int = CONNECT_SECONDS) -> psycopg.Connection:
    """A connection to the team record (libpq finds the password: PGPASSWORD, ~/.pgpass, a service file)."""
    pg = need_psycopg()
    try:
        conn: psycopg.Connection = pg.connect(
            url.url, autocommit=autocommit, connect_timeout=timeout, application_name=APPLICATION
        )
    except pg.Error as exc:
        raise RecordUnavailable(f"The team record at {url.where} cannot be reached: {reason(exc)}") from None
    try:
        conn.execute("SET TIME ZONE 'UTC'")  # times come back in UTC, as the local record's do
        role = os.environ.get(ROLE_VARIABLE, "").strip()
        if role:
            set_session_role(conn, role)
        if not autocommit:
            conn.commit()
    except pg.Error as exc:
        conn.close()
        raise RecordUnavailable(f"The team record at {url.where} cannot be used: {reason(exc)}") from None
    return conn


def set_session_role(conn: psycopg.Connection, role: str) -> None:
    """`SET ROLE` for the rest of the session (committed with the connection's setup): the web server logs in
    as one NOINHERIT authenticator and each browser's console acts as its signed-in user, as PostgREST does."""
    from psycopg import sql

    conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))


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
    if isinstance(exc, pg.errors.InsufficientPrivilege):
        return RecordRefused(f"The team record at {url.where} refused to {doing}: {why}.")
    if isinstance(exc, pg.OperationalError | pg.InterfaceError):
        return RecordUnavailable(
            f"The team record at {url.where} could not {doing}: the connection failed ({why}). Nothing was saved."
        )
    return RecordError(f"The team record at {url.where} could not {doing}: {why}.")
