"""One fetched RFI into the record, inside the caller's write transaction.

Unchanged since last time: only the request's "last seen" moves. A new status opens a new line of the
status timeline; a round that differs in anything (a new round, or the same round with other items, a
moved deadline, an answer, its link gone) becomes the next round entry.

The current status line and round entry (the ones the request's row points to) were last seen when the
request was: their own `last_seen` is brought up to the request's only when they stop being current, and a
reader takes the later of the two (`STATUS_LAST_SEEN`, `ROUND_LAST_SEEN`). A sweep that finds every request
unchanged so rewrites one row a request, not three (a round's row holds its JSON: a quarter of the writes).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

from stablepay_console.storage.record_types import RfiSighting, RoundSighting

STATUS_LAST_SEEN = ("CASE WHEN st.id = r.status_row AND r.last_seen > st.last_seen THEN r.last_seen "
                    "ELSE st.last_seen END")
"""A status line's last seen, read from `statuses st` joined to its request `rfis r`."""
ROUND_LAST_SEEN = ("CASE WHEN ro.id = r.round_row AND r.last_seen > ro.last_seen THEN r.last_seen "
                   "ELSE ro.last_seen END")
"""A round entry's last seen, read from `rounds ro` joined to its request `rfis r`."""

LOOKUP = 500
"""IDs asked for or touched in one statement (SQLite allows 999 parameters in old builds)."""
T = TypeVar("T")


def _new_status(conn: sqlite3.Connection, profile: str, rfi_id: str, status: str, seen: str) -> int:
    cursor = conn.execute(
        "INSERT INTO statuses (profile, rfi_id, status, first_seen, last_seen) VALUES (?, ?, ?, ?, ?)",
        (profile, rfi_id, status, seen, seen),
    )
    return int(cursor.lastrowid or 0)


def _new_round(conn: sqlite3.Connection, profile: str, rfi_id: str, r: RoundSighting, seen: str) -> int:
    cursor = conn.execute(
        "INSERT INTO rounds (profile, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at, submitted_at, "
        "link, wire, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (profile, rfi_id, r.round_no, r.round_id, r.fingerprint, r.issued_at, r.expires_at, r.submitted_at, r.link,
         r.wire_json, seen, seen),
    )
    return int(cursor.lastrowid or 0)


def _touch(conn: sqlite3.Connection, table: str, row: int | None, seen: str) -> None:
    if row is not None:
        conn.execute(f"UPDATE {table} SET last_seen = max(last_seen, ?) WHERE id = ?", (seen, row))


def _round_row(conn: sqlite3.Connection, profile: str, rfi_id: str, r: RoundSighting | None, seen: str) -> int | None:
    """The round entry this sighting belongs to: the latest one if nothing changed, else a new one."""
    if r is None:
        return None
    latest = conn.execute(
        "SELECT id, fingerprint FROM rounds WHERE profile = ? AND rfi_id = ? ORDER BY id DESC LIMIT 1",
        (profile, rfi_id),
    ).fetchone()
    if latest is not None and latest[1] == r.fingerprint:
        _touch(conn, "rounds", latest[0], seen)
        return int(latest[0])
    return _new_round(conn, profile, rfi_id, r, seen)


def _no_longer_current(conn: sqlite3.Connection, table: str, row: int | None, new_row: int | None,
                       last_seen: str) -> None:
    """A status line or round entry the request no longer points to keeps the request's last seen until now."""
    if row is not None and row != new_row:
        _touch(conn, table, row, last_seen)


def observe_one(conn: sqlite3.Connection, profile: str, environment: str, s: RfiSighting, seen: str) -> int:
    """Record one sighting; 1 if the request was new or changed, else 0."""
    found = conn.execute(
        "SELECT fingerprint, status, status_row, round_row, last_seen FROM rfis WHERE profile = ? AND rfi_id = ?",
        (profile, s.rfi_id),
    ).fetchone()
    if found is None:
        status_row = _new_status(conn, profile, s.rfi_id, s.status, seen)
        round_row = _round_row(conn, profile, s.rfi_id, s.round, seen)
        conn.execute(
            "INSERT INTO rfis (profile, rfi_id, environment, status, fingerprint, wire, status_row, round_row, "
            "first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (profile, s.rfi_id, environment, s.status, s.fingerprint, s.wire_json, status_row, round_row, seen, seen),
        )
        return 1
    fingerprint, status, old_status_row, old_round_row, last_seen = found
    if fingerprint == s.fingerprint:
        conn.execute(
            "UPDATE rfis SET last_seen = max(last_seen, ?) WHERE profile = ? AND rfi_id = ?", (seen, profile, s.rfi_id)
        )
        return 0
    status_row = old_status_row if status == s.status else _new_status(conn, profile, s.rfi_id, s.status, seen)
    round_row = _round_row(conn, profile, s.rfi_id, s.round, seen)
    _no_longer_current(conn, "statuses", old_status_row, status_row, last_seen)
    _no_longer_current(conn, "rounds", old_round_row, round_row, last_seen)
    conn.execute(
        "UPDATE rfis SET environment = ?, status = ?, fingerprint = ?, wire = ?, status_row = ?, round_row = ?, "
        "last_seen = max(last_seen, ?) WHERE profile = ? AND rfi_id = ?",
        (environment, s.status, s.fingerprint, s.wire_json, status_row, round_row, seen, profile, s.rfi_id),
    )
    return 1


def observe_page(conn: sqlite3.Connection, profile: str, environment: str, sightings: Sequence[RfiSighting],
                 seen: str) -> int:
    """Record a page of sightings; how many were new or changed.

    Most of a page is usually unchanged (a sweep, `rfis due` from cron): those are found in one query and
    touched in one statement a chunk; the new or changed ones (and an ID the page repeats) one at a time."""
    ids = [s.rfi_id for s in sightings]
    known: dict[str, str] = {}
    for chunk in _chunks(ids):
        known.update(_known(conn, profile, chunk))
    repeated = {rfi_id for rfi_id, n in Counter(ids).items() if n > 1}
    same: list[RfiSighting] = []
    changed = 0
    for s in sightings:
        if known.get(s.rfi_id) == s.fingerprint and s.rfi_id not in repeated:
            same.append(s)
        else:
            changed += observe_one(conn, profile, environment, s, seen)
    # One statement a chunk, not one a request: each statement gives up and takes back the interpreter's
    # lock, and a thread that does that 100,000 times waits behind the event loop's paging every time.
    for ids_chunk in _chunks([s.rfi_id for s in same]):
        conn.execute(
            f"UPDATE rfis SET last_seen = max(last_seen, ?) WHERE profile = ? AND rfi_id IN ({_marks(ids_chunk)})",
            (seen, profile, *ids_chunk),
        )
    return changed


def _known(conn: sqlite3.Connection, profile: str, ids: Sequence[str]) -> dict[str, str]:
    """The fingerprint of each ID the record holds.

    As one row of text: SQLite gives up the interpreter's lock for every row it steps to, and a thread
    that takes it back 100,000 times waits behind the event loop's paging each time. A kept ID is printable
    (`RfiSighting`), so the separators (ASCII unit and record separators) never occur in one."""
    (joined,) = conn.execute(
        "SELECT group_concat(rfi_id || char(31) || fingerprint, char(30)) FROM rfis "
        f"WHERE profile = ? AND rfi_id IN ({_marks(ids)})",
        (profile, *ids),
    ).fetchone()
    rows = [row.split("\x1f") for row in joined.split("\x1e")] if joined else []
    if any(len(row) != 2 for row in rows):  # not written by this console: read it row by row
        return dict(conn.execute(
            f"SELECT rfi_id, fingerprint FROM rfis WHERE profile = ? AND rfi_id IN ({_marks(ids)})", (profile, *ids)))
    return {rfi_id: fingerprint for rfi_id, fingerprint in rows}


def _chunks(values: list[T]) -> list[list[T]]:
    return [values[start : start + LOOKUP] for start in range(0, len(values), LOOKUP)]


def _marks(chunk: Sequence[object]) -> str:
    return ",".join("?" * len(chunk))
