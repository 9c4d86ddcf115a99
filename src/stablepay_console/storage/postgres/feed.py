"""The team watcher's feed in the team record (`TeamFeed`): its sweeps and the requests it last saw issued.

Mixed into `PgRecord`, as `PgTriage` is: each method one transaction over the functions of `history` and
`sweeps`. Only the watcher's role marks a sweep; every role reads what it saw.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.storage.postgres import history as seen
from stablepay_console.storage.postgres import sweeps
from stablepay_console.storage.record_types import DueIssued, Issued, OpenRound, Sweep, stamp

if TYPE_CHECKING:
    import psycopg


class PgFeed:
    """Mixed into `PgRecord`: what the team watcher recorded, read and marked."""

    scope_of: Callable[[str], str]
    watcher: bool

    def _tx(self, doing: str) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def whoami(self) -> tuple[str, bool]:
        raise NotImplementedError

    def mark_sweep(self, profile: str, interval_seconds: int, radar: str) -> bool:
        """`rfis watch` swept the profile's server; `radar` is what a console's banner needs. Only the team
        watcher's role marks a sweep (False: this role is not it, nothing was written)."""
        self.whoami()
        if not self.watcher:
            return False
        with self._tx("mark the team watcher's sweep") as conn:
            sweeps.mark(conn, self.scope_of(profile), interval_seconds, radar)
        return True

    def last_sweep(self, profile: str, radar: bool = True) -> Sweep | None:
        with self._tx("read the team watcher's sweep") as conn:
            return sweeps.last(conn, self.scope_of(profile), radar)

    def issued_first(self, profile: str, after: datetime, limit: int) -> tuple[list[Issued], int]:
        """The first `limit` requests of the needs-action view (the watcher's issued ones due after `after`, nearest
        first), and how many issued requests there are: what the view paints before reading the rest."""
        with self._tx("read the issued requests") as conn:
            return seen.issued_first(conn, self.scope_of(profile), stamp(after), limit)

    def issued(self, profile: str) -> list[Issued]:
        """The wire JSON (request, current round) of each request of the profile's server the watcher saw issued."""
        with self._tx("read the issued requests") as conn:
            return seen.issued(conn, self.scope_of(profile))

    def issued_due(self, profile: str, before: datetime, rounds: bool = False) -> list[DueIssued]:
        """Each request of the profile's server the team watcher last saw as issued and due by `before`, nearest
        first (`rfis due`): its ID, JSON, round number, its round's JSON with `rounds`, its deadline."""
        with self._tx("read the issued requests") as conn:
            return seen.issued_due(conn, self.scope_of(profile), stamp(before), rounds)

    def open_rounds(self, profile: str) -> list[OpenRound]:
        with self._tx("read the issued requests") as conn:
            return seen.open_rounds(conn, self.scope_of(profile))
