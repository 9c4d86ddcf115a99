"""The webhook deliveries the team watcher took: one row per (server, eventId), the database's unique key.

A delivery is taken in the transaction that records what it led to (`take`): the row is inserted with
`ON CONFLICT DO NOTHING`, and only when it was new are the facts written. Two watchers that get the same
delivery both ask; the second finds the row (or waits on the first one's uncommitted insert, then finds it)
and records nothing. The history is bounded: older than `KEEP_DAYS`, or past the newest `KEEP_ROWS` of a
server, is pruned as deliveries come.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from stablepay_console.storage.postgres import history as seen

if TYPE_CHECKING:
    import psycopg

    from stablepay_console.storage.record_types import SeenPage

KEEP_DAYS = 30
KEEP_ROWS = 100_000
PRUNE_ROWS_EVERY = 100
"""The row cap is checked once per this many deliveries taken (the age limit, with each one: it is an index range)."""
OBSERVE_SECONDS = 30.0


def known(conn: psycopg.Connection, server: str, event_id: str) -> bool:
    row = conn.execute("SELECT 1 FROM stablepay.webhook_events WHERE server = %s AND event_id = %s",
                       (server, event_id)).fetchone()
    return row is not None


def take(conn: psycopg.Connection, scope_of: Callable[[str], str], profile: str, event_id: str, event_type: str,
         led_to: str, pages: Sequence[SeenPage], cap_rows: bool, radar: str | None = None) -> bool:
    """Insert the delivery and, when it is new, record `pages` and the watcher's radar (`radar`: what the banner
    counts, as `sweeps.mark` keeps it; the time of the last sweep stays, since no sweep happened); False: it was
    taken before (nothing written)."""
    server = scope_of(profile)
    row = conn.execute(
        "INSERT INTO stablepay.webhook_events (server, event_id, event_type, led_to) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (server, event_id) DO NOTHING RETURNING 1",
        (server, event_id, event_type, led_to[:2000]),
    ).fetchone()
    if row is None:
        return False
    if pages:
        seen.observe(conn, scope_of, pages)
    if radar is not None:
        conn.execute("UPDATE stablepay.sweeps SET radar = %s WHERE server = %s", (radar, server))
    conn.execute("DELETE FROM stablepay.webhook_events WHERE server = %s AND received_at < clock_timestamp() - "
                 "make_interval(days => %s)", (server, KEEP_DAYS))
    if cap_rows:
        conn.execute(
            "DELETE FROM stablepay.webhook_events WHERE server = %s AND received_at < (SELECT received_at FROM "
            "stablepay.webhook_events WHERE server = %s ORDER BY received_at DESC OFFSET %s LIMIT 1)",
            (server, server, KEEP_ROWS - 1),
        )
    return True


class PgDeliveries:
    """Mixed into `PgRecord`: the deliveries the team watcher took (`DeliveryLedger`)."""

    scope_of: Callable[[str], str]
    watcher: bool
    _taken = 0

    def _tx(self, doing: str, seconds: float | None = None) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def whoami(self) -> tuple[str, bool]:
        raise NotImplementedError

    def delivery_known(self, profile: str, event_id: str) -> bool:
        with self._tx("read the webhook deliveries taken") as conn:
            return known(conn, self.scope_of(profile), event_id)

    def take_delivery(self, profile: str, event_id: str, event_type: str, led_to: str,
                      pages: Sequence[SeenPage], radar: str | None = None) -> bool:
        """Keep the delivery and what it led to, in one transaction; False: taken before, nothing written.
        Only the team watcher's role takes deliveries (a RecordError for any other: it records API facts)."""
        from stablepay_console.storage.record import RecordError

        self.whoami()
        if not self.watcher:
            raise RecordError("Webhook deliveries are taken by the team watcher's role (a member of "
                              "stablepay_watcher): this role records nothing the API said.")
        self._taken += 1
        with self._tx("record the webhook delivery and what it led to", OBSERVE_SECONDS) as conn:
            return take(conn, self.scope_of, profile, event_id, event_type, led_to, pages,
                        cap_rows=self._taken % PRUNE_ROWS_EVERY == 1, radar=radar)

