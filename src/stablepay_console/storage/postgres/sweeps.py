"""The team watcher's mark: when `rfis watch` (team mode) last swept a server, and the deadlines it saw.

One row per server in `stablepay.sweeps`. The radar kept there is what a console needs for its banner
count without asking the API: the issued requests whose deadline is near or passed, as
`{"issued": [[id, deadline], ...]}` (deadlines in ISO 8601); a console counts them by its own clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablepay_console.storage.record_types import Sweep

if TYPE_CHECKING:
    import psycopg


def mark(conn: psycopg.Connection, server: str, interval_seconds: int, radar: str) -> None:
    conn.execute(
        "INSERT INTO stablepay.sweeps (server, interval_s, radar) VALUES (%s, %s, %s) ON CONFLICT (server) DO UPDATE "
        "SET swept_at = clock_timestamp(), interval_s = EXCLUDED.interval_s, by_role = current_user, "
        "radar = EXCLUDED.radar",
        (server, interval_seconds, radar),
    )


def last(conn: psycopg.Connection, server: str, radar: bool = True) -> Sweep | None:
    """The server's last sweep; without `radar`, its radar is left in the database (an empty text): at 100,000
    requests it is most of a megabyte that only the banner's count reads."""
    row = conn.execute(
        "SELECT server, swept_at, interval_s, by_role, CASE WHEN %s THEN radar ELSE '' END, "
        "EXTRACT(EPOCH FROM clock_timestamp() - swept_at) FROM stablepay.sweeps WHERE server = %s",
        (radar, server),
    ).fetchone()
    return Sweep(str(row[0]), row[1], int(row[2]), str(row[3]), str(row[4]), float(row[5])) if row else None
