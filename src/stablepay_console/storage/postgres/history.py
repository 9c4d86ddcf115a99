"""Round history in the team record: the same rules as the local file (`record_sightings`), keyed by server.

Unchanged since last time: only "last seen" moves (one batched statement per table for a whole page).
A new status opens a new line of the timeline; a round that differs in anything is the next entry.
Entries are read in the order they were first seen, so rounds imported from a laptop fall into place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from stablepay_console.storage.record_json import object_or_unreadable
from stablepay_console.storage.record_types import (
    DueIssued,
    Issued,
    OpenRound,
    RfiHistory,
    RfiRecord,
    RfiSighting,
    RoundSeen,
    RoundSighting,
    SeenPage,
    StatusSeen,
    parse_stamp,
)

if TYPE_CHECKING:
    import psycopg

def _new_status(conn: psycopg.Connection, server: str, rfi_id: str, status: str, seen: str) -> int:
    row = conn.execute(
        "INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen) VALUES (%s, %s, %s, %s, %s) "
        "RETURNING id",
        (server, rfi_id, status, seen, seen),
    ).fetchone()
    return int(row[0]) if row else 0


def _new_round(conn: psycopg.Connection, server: str, rfi_id: str, r: RoundSighting, seen: str) -> int:
    row = conn.execute(
        "INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, expires_at, "
        "submitted_at, link, wire, first_seen, last_seen) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
        "RETURNING id",
        (server, rfi_id, r.round_no, r.round_id, r.fingerprint, r.issued_at, r.expires_at, r.submitted_at, r.link,
         r.wire_json, seen, seen),
    ).fetchone()
    return int(row[0]) if row else 0


def _round_row(
    conn: psycopg.Connection, server: str, rfi_id: str, r: RoundSighting | None, seen: str, current: tuple[Any, Any]
) -> int | None:
    """The entry this sighting belongs to: the current one if nothing changed, else a new one."""
    if r is None:
        return None
    row_id, fingerprint = current
    if row_id is None:
        latest = conn.execute(
            "SELECT id, fingerprint FROM stablepay.rounds WHERE server = %s AND rfi_id = %s AND imported_by IS NULL "
            "ORDER BY last_seen DESC, id DESC LIMIT 1",
            (server, rfi_id),
        ).fetchone()
        row_id, fingerprint = latest if latest else (None, None)
    if row_id is not None and fingerprint == r.fingerprint:
        conn.execute("UPDATE stablepay.rounds SET last_seen = GREATEST(last_seen, %s) WHERE id = %s", (seen, row_id))
        return int(row_id)
    return _new_round(conn, server, rfi_id, r, seen)


def _changed(conn: psycopg.Connection, server: str, environment: str, s: RfiSighting, seen: str,
             found: tuple[Any, ...]) -> None:
    """A request the record knows, seen changed (or seen again after an import)."""
    _fingerprint, status, status_row, round_row, round_fingerprint, imported = found
    if imported is not None:  # an import's rows stay the import's: the watcher's sighting is its own
        status, round_row, round_fingerprint = None, None, None
    if status == s.status and status_row is not None:
        conn.execute("UPDATE stablepay.statuses SET last_seen = GREATEST(last_seen, %s) WHERE id = %s",
                     (seen, status_row))
    else:
        status_row = _new_status(conn, server, s.rfi_id, s.status, seen)
    round_row = _round_row(conn, server, s.rfi_id, s.round, seen, (round_row, round_fingerprint))
    conn.execute(
        "UPDATE stablepay.rfis SET environment = %s, status = %s, fingerprint = %s, wire = %s, status_row = %s, "
        "round_row = %s, last_seen = GREATEST(last_seen, %s) WHERE server = %s AND rfi_id = %s",
        (environment, s.status, s.fingerprint, s.wire_json, status_row, round_row, seen, server, s.rfi_id),
    )


def observe(conn: psycopg.Connection, scope_of: Callable[[str], str], pages: Sequence[SeenPage]) -> int:
    """Record what fetches saw (inside the caller's transaction); how many requests were new or changed."""
    from stablepay_console.storage.record_types import stamp

    changed = 0
    servers = sorted({scope_of(page.profile) for page in pages})
    # Two watchers of one server record a change once: the second waits, then sees it. The database holds a row
    # per server that only the watcher's function locks (no member can take it to stop the watcher).
    conn.execute("SELECT stablepay.hold_sightings(%s)", (servers,))
    for page in pages:
        server, seen = scope_of(page.profile), stamp(page.at)
        latest: dict[str, RfiSighting] = {s.rfi_id: s for s in page.sightings}
        rows = conn.execute(
            "SELECT r.rfi_id, r.fingerprint, r.status, r.status_row, r.round_row, ro.fingerprint, r.imported_by "
            "FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row "
            "WHERE r.server = %s AND r.rfi_id = ANY(%s)",
            (server, list(latest)),
        ).fetchall()
        known = {row[0]: tuple(row[1:]) for row in rows}
        same = [s for s in latest.values()
                if s.rfi_id in known and known[s.rfi_id][0] == s.fingerprint and known[s.rfi_id][5] is None]
        if same:
            _seen_again(conn, server, [(s.rfi_id, known[s.rfi_id]) for s in same], seen)
        new = [s for s in latest.values() if s.rfi_id not in known]
        if new:
            _first_seen(conn, server, page.environment, new, seen)
            changed += len(new)
        for s in latest.values():
            found = known.get(s.rfi_id)
            if found is not None and (found[0] != s.fingerprint or found[5] is not None):
                _changed(conn, server, page.environment, s, seen, found)
                changed += 1
    return changed


def _seen_again(conn: psycopg.Connection, server: str, same: list[tuple[str, tuple[Any, ...]]], seen: str) -> None:
    """Requests seen unchanged: only "last seen" moves, one batched statement per table."""
    from psycopg import sql

    with conn.cursor() as cur:
        cur.executemany(
            "UPDATE stablepay.rfis SET last_seen = GREATEST(last_seen, %s) WHERE server = %s AND rfi_id = %s",
            [(seen, server, rfi_id) for rfi_id, _ in same],
        )
        for table, column in (("statuses", 2), ("rounds", 3)):
            ids = [found[column] for _, found in same if found[column] is not None]
            if ids:
                cur.execute(
                    sql.SQL("UPDATE {} SET last_seen = GREATEST(last_seen, %s) WHERE id = ANY(%s)").format(
                        sql.Identifier("stablepay", table)),
                    (seen, ids),
                )


def _first_seen(conn: psycopg.Connection, server: str, environment: str, new: list[RfiSighting], seen: str) -> None:
    """Requests the record has never seen, a page at a time: a batched statement per table (a watcher's first
    sweep of a large account meets tens of thousands; one at a time it took longer than the sweep itself)."""
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO stablepay.statuses (server, rfi_id, status, first_seen, last_seen) "
            "VALUES (%s, %s, %s, %s, %s) RETURNING id",
            [(server, s.rfi_id, s.status, seen, seen) for s in new], returning=True,
        )
        status_rows = [int(_one(cur)) for _ in _results(cur)]
        with_round = [s for s in new if s.round is not None]
        round_rows: dict[str, int] = {}
        if with_round:  # a round kept earlier with no request row (none is expected): the same entry if unchanged
            for rfi_id, row_id, fingerprint in conn.execute(
                "SELECT DISTINCT ON (rfi_id) rfi_id, id, fingerprint FROM stablepay.rounds WHERE server = %s "
                "AND rfi_id = ANY(%s) AND imported_by IS NULL ORDER BY rfi_id, last_seen DESC, id DESC",
                (server, [s.rfi_id for s in with_round]),
            ).fetchall():
                kept = next(s for s in with_round if s.rfi_id == rfi_id)
                if kept.round is not None and fingerprint == kept.round.fingerprint:
                    conn.execute("UPDATE stablepay.rounds SET last_seen = GREATEST(last_seen, %s) WHERE id = %s",
                                 (seen, row_id))
                    round_rows[str(rfi_id)] = int(row_id)
            fresh = [s for s in with_round if s.rfi_id not in round_rows]
            if fresh:
                cur.executemany(
                    "INSERT INTO stablepay.rounds (server, rfi_id, round_no, round_id, fingerprint, issued_at, "
                    "expires_at, submitted_at, link, wire, first_seen, last_seen) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    [(server, s.rfi_id, r.round_no, r.round_id, r.fingerprint, r.issued_at, r.expires_at,
                      r.submitted_at, r.link, r.wire_json, seen, seen) for s in fresh if (r := s.round) is not None],
                    returning=True,
                )
                for s, _ in zip(fresh, _results(cur), strict=True):
                    round_rows[s.rfi_id] = int(_one(cur))
        cur.executemany(
            "INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, status_row, "
            "round_row, first_seen, last_seen) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(server, s.rfi_id, environment, s.status, s.fingerprint, s.wire_json, status_row,
              round_rows.get(s.rfi_id), seen, seen) for s, status_row in zip(new, status_rows, strict=True)],
        )


def _results(cur: psycopg.Cursor[Any]) -> Iterator[None]:
    """Each result set of an `executemany(..., returning=True)`, the cursor on it."""
    while True:
        yield None
        if not cur.nextset():
            return


def _one(cur: psycopg.Cursor[Any]) -> Any:
    row = cur.fetchone()
    if row is None:
        raise RuntimeError("an INSERT ... RETURNING returned no row")
    return row[0]


def history(conn: psycopg.Connection, server: str, profile: str, rfi_id: str) -> RfiHistory:
    key = (server, rfi_id)
    found = conn.execute(
        "SELECT environment, status, wire, round_row, first_seen, last_seen, imported_by FROM stablepay.rfis "
        "WHERE server = %s AND rfi_id = %s",
        key,
    ).fetchone()
    if found is None:
        return RfiHistory(profile, rfi_id, None)
    env, status, wire, round_row, first, last, imported_by = found
    record = RfiRecord(profile, rfi_id, env, status, object_or_unreadable(wire), round_row is not None,
                       parse_stamp(first), parse_stamp(last), imported_by)
    rows = conn.execute(
        "SELECT round_no, round_id, issued_at, expires_at, submitted_at, link, wire, first_seen, last_seen, "
        "imported_by FROM stablepay.rounds WHERE server = %s AND rfi_id = %s ORDER BY first_seen, id",
        key,
    ).fetchall()
    rounds = [
        RoundSeen(n, r[0], r[1], parse_stamp(r[2]), _maybe(r[3]), _maybe(r[4]), r[5], object_or_unreadable(r[6]),
                  parse_stamp(r[7]), parse_stamp(r[8]), r[9])
        for n, r in enumerate(rows, start=1)
    ]
    statuses = [
        StatusSeen(s, parse_stamp(f), parse_stamp(la), by)
        for s, f, la, by in conn.execute(
            "SELECT status, first_seen, last_seen, imported_by FROM stablepay.statuses "
            "WHERE server = %s AND rfi_id = %s ORDER BY first_seen, id",
            key,
        ).fetchall()
    ]
    return RfiHistory(profile, rfi_id, record, rounds, statuses)


def _maybe(text: str | None) -> Any:
    return parse_stamp(text) if text else None


def issued(conn: psycopg.Connection, server: str) -> list[Issued]:
    """(request wire, current round's wire or None, deadline) of every request of `server` the team watcher last
    saw as issued (an imported request is not trusted until the watcher has seen it itself)."""
    rows = conn.execute(
        "SELECT r.wire, ro.wire, r.deadline FROM stablepay.rfis r LEFT JOIN stablepay.rounds ro ON ro.id = r.round_row "
        "WHERE r.server = %s AND r.status = 'issued' AND r.imported_by IS NULL",
        (server,),
    ).fetchall()
    return [(str(w), None if rw is None else str(rw), d) for w, rw, d in rows]


def issued_due(conn: psycopg.Connection, server: str, before: str, rounds: bool) -> list[DueIssued]:
    """(ID, request wire, round number, round wire or None, deadline) of each request of `server` the team watcher
    last saw as issued whose deadline falls by `before`, nearest first: one scan of the deadline index. The round's
    wire (the larger part, with its items) only with `rounds`: a row printed needs its number alone, which the
    request's row carries (migration 10), so then no round is read."""
    if rounds:
        query = ("SELECT r.rfi_id, r.wire, r.round_no, ro.wire, r.deadline "
                 "FROM stablepay.rfis r JOIN stablepay.rounds ro ON ro.id = r.round_row ")
    else:
        query = "SELECT r.rfi_id, r.wire, r.round_no, NULL, r.deadline FROM stablepay.rfis r "
        # A read of a few thousand rows from one index: starting parallel workers cost more than they save
        # (benchmarks/README.md, `team_due.py`).
        conn.execute("SET LOCAL max_parallel_workers_per_gather = 0")
    rows = conn.execute(
        query + "WHERE r.server = %s AND r.status = 'issued' AND r.imported_by IS NULL AND r.deadline <= %s "
        "AND r.round_no IS NOT NULL ORDER BY r.deadline, r.rfi_id",
        (server, before),
    ).fetchall()
    return cast("list[DueIssued]", rows)  # the columns' types are the tuple's (text, integer): no copy of each


def open_rounds(conn: psycopg.Connection, server: str) -> list[OpenRound]:
    """(ID, round, issuedAt, expiresAt) of the current round of every request of `server` the team watcher last
    saw as issued: from the request rows alone (migration 10 keeps the current round's number and times there)."""
    rows = conn.execute(
        "SELECT rfi_id, round_no, round_issued_at, deadline FROM stablepay.rfis "
        "WHERE server = %s AND status = 'issued' AND imported_by IS NULL AND round_no IS NOT NULL",
        (server,),
    ).fetchall()
    return cast("list[OpenRound]", rows)  # text, integer, text, text: the tuple's types, so no copy of each


def issued_first(conn: psycopg.Connection, server: str, after: str, limit: int) -> tuple[list[Issued], int]:
    """The first `limit` issued requests the watcher saw whose deadline is after `after`, nearest first, and how many
    issued requests the watcher saw in all (one index scan each; the rows sort by the deadline's stamp)."""
    rows = conn.execute(
        "SELECT r.wire, ro.wire, r.deadline FROM stablepay.rfis r JOIN stablepay.rounds ro ON ro.id = r.round_row "
        "WHERE r.server = %s AND r.status = 'issued' AND r.imported_by IS NULL AND r.deadline > %s "
        "ORDER BY r.deadline LIMIT %s",
        (server, after, limit),
    ).fetchall()
    total = conn.execute(
        "SELECT count(*) FROM stablepay.rfis WHERE server = %s AND status = 'issued' AND imported_by IS NULL",
        (server,),
    ).fetchone()
    return [(str(w), None if rw is None else str(rw), d) for w, rw, d in rows], int(total[0]) if total else 0
