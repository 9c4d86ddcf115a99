"""The team record (PostgreSQL) beside the local record (SQLite), measured in the same run.

- the inbox page's claims lookup (`Record.claims`, what the inbox reads on each show), with 500 claims;
- `audit verify` over 100,000 entries (read the whole chain and walk it);
- `record import` of a 10,000-request local record (history, 500 notes, 500 claims, 2,000 audit
  entries), beside writing the same requests into a fresh local file;
- the needs-action view from a fresh team watcher on a 100,000-request account (35,000-odd issued): its
  first rows (the first page first), and the whole view, beside the same view read from the API (the
  sandbox in-process, no network latency: the API's floor);
- `rfis due` from the team watcher's sweep, beside the same report read from the API.

It starts its own PostgreSQL from Debian's `postgresql` package (as the test suite does, on a free
loopback port, as the `postgres` user when run as root) and removes it at the end. Run it on its own:
`python benchmarks/team_record.py` (`--quick`: smaller sizes).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, pg_module, render, write_readme  # noqa: E402

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
SERVER = "production https://api.stablepay.example"


def best_of(work: Callable[[], object], times: int) -> float:
    """The median of `times` runs, in seconds."""
    runs = []
    for _ in range(times):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def shown(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def chain(count: int, actor: str) -> list:  # type: ignore[type-arg]
    """A chain as the database writes it (the console's canonical form), to load in one COPY."""
    from stablepay_console.storage.record_chain import GENESIS, entry_hash
    from stablepay_console.storage.record_types import AuditEntry

    entries, prev = [], GENESIS
    for seq in range(1, count + 1):
        at = (NOW + timedelta(seconds=seq)).isoformat(timespec="milliseconds")
        unsigned = AuditEntry(seq, at, actor, "prod", "production", "ping", f"rfi-{seq % 997}", "ok",
                              '{"server": "' + SERVER + '"}', prev, "")
        entry = AuditEntry(seq, at, actor, "prod", "production", "ping", f"rfi-{seq % 997}", "ok",
                           '{"server": "' + SERVER + '"}', prev, entry_hash(prev, unsigned.content()))
        entries.append(entry)
        prev = entry.hash
    return entries


def claims_lookup(local, team, claims: int) -> Row:  # type: ignore[no-untyped-def]
    for n in range(claims):
        local.claim("prod", f"rfi-{n}", "alice", NOW)
        team.claim("prod", f"rfi-{n}", "", NOW)
    sqlite = best_of(lambda: local.claims("prod"), 50)
    pg = best_of(lambda: team.claims("prod"), 50)
    return Row(f"inbox claims lookup ({claims} claims)", shown(pg), shown(sqlite), f"{pg / sqlite:.1f}x",
               "< 50 ms (a page switch's budget)", pg < 0.05)


def verify_100k(local, team, db, count: int) -> Row:  # type: ignore[no-untyped-def]
    from stablepay_console.services.audit import verify

    entries = chain(count, "alice")
    conn = local._conn
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO audit (seq, at, actor, profile, environment, action, target, outcome, detail, "
                     "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     [(e.seq, e.at, e.actor, e.profile, e.environment, e.action, e.target, e.outcome, e.detail,
                       e.prev_hash, e.hash) for e in entries])
    conn.execute("INSERT OR REPLACE INTO audit_head (only, count, hash) VALUES (1, ?, ?)", (count, entries[-1].hash))
    conn.execute("COMMIT")
    with db.connect() as pg:  # loaded in bulk by the superuser (the trigger would chain them one by one)
        pg.execute("SET session_replication_role = replica")
        with pg.cursor() as cur, cur.copy(
            "COPY stablepay.audit (seq, at, actor, profile, environment, action, target, outcome, detail, prev_hash, "
            "hash, server) FROM STDIN"
        ) as copy:
            for e in entries:
                copy.write_row((e.seq, e.at, e.actor, e.profile, e.environment, e.action, e.target, e.outcome,
                                e.detail, e.prev_hash, e.hash, SERVER))
        pg.execute("UPDATE stablepay.audit_head SET count = %s, hash = %s", (count, entries[-1].hash))
    assert verify(local).ok and verify(team).ok
    sqlite = best_of(lambda: verify(local), 3)
    pg = best_of(lambda: verify(team), 3)
    return Row(f"audit verify, {count:,} entries", shown(pg), shown(sqlite), f"{pg / sqlite:.1f}x", "< 5 s",
               pg < 5)


def import_local(team, db, requests: int, tmp: Path) -> Row:  # type: ignore[no-untyped-def]
    from stablepay_console.sandbox.data import SandboxData
    from stablepay_console.services.history import sighting
    from stablepay_console.services.team.importing import import_local as run_import
    from stablepay_console.storage.local import open_record
    from stablepay_console.storage.record_types import AuditDraft, SeenPage

    rfis = SandboxData(seed=7, rfi_count=requests, now=NOW).rfis
    pages = [SeenPage("prod", "production", NOW, tuple(sighting(r) for r in rfis[i:i + 100]))
             for i in range(0, len(rfis), 100)]
    source = open_record(tmp / "laptop.sqlite3")
    source.observe(pages)
    for n, rfi in enumerate(rfis[:500]):
        source.add_note("prod", rfi.id, "ana", f"note {n}", NOW)
        source.claim("prod", rfi.id, "ana", NOW)
    for n in range(2000):
        source.append_audit(AuditDraft(NOW, "ana", "prod", "production", "ping", "", "ok", {"n": n}))
    source.close()

    def fresh_local() -> None:
        path = tmp / f"fresh-{time.perf_counter_ns()}.sqlite3"
        record = open_record(path)
        record.observe(pages)
        record.close()

    sqlite = best_of(fresh_local, 1)
    start = time.perf_counter()
    done = run_import(team, tmp / "laptop.sqlite3")
    pg = time.perf_counter() - start
    assert done.report.requests == len(rfis), done.report
    again = time.perf_counter()
    assert run_import(team, tmp / "laptop.sqlite3").report.copied == 0
    rerun = time.perf_counter() - again
    return Row(f"record import, {requests:,} requests", shown(pg), shown(sqlite), f"{pg / sqlite:.1f}x", "< 60 s",
               pg < 60, note=f"baseline: the same requests written to a fresh local file; a second import "
               f"(nothing new) took {shown(rerun)}")


def watcher_views(watcher, requests: int) -> list[Row]:  # type: ignore[no-untyped-def]
    """The needs-action view and `rfis due` from the team record beside the same from the API (in-process)."""
    import asyncio

    import httpx

    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.cli.due import DUE_COLUMNS
    from stablepay_console.cli.rfis import stored_row_of
    from stablepay_console.sandbox import Sandbox
    from stablepay_console.sandbox.ids import SANDBOX_KEY
    from stablepay_console.services.history import sighting
    from stablepay_console.services.needs_action import NeedsActionRows, read_needs_action
    from stablepay_console.services.team.needs_action import team_rows, wanted
    from stablepay_console.services.watch.due import DueTally, due_now
    from stablepay_console.storage.record_types import SeenPage, parse_stamp

    sandbox = Sandbox(rfis=requests, now=NOW)
    rfis = list(sandbox.data.rfis)
    for i in range(0, len(rfis), 1000):
        watcher.observe([SeenPage("prod", "production", NOW, tuple(sighting(r) for r in rfis[i:i + 1000]))])
    issued = sum(1 for r in rfis if r.status == "issued")
    filters = RfiFilters()

    def first_rows() -> None:
        found = watcher.issued_first("prod", NOW, 100)
        assert found is not None
        rows = NeedsActionRows()
        for rfi in wanted(found[0], filters):
            rows.add(rfi)
        rows.ordered(NOW)

    def whole_view() -> None:
        team_rows(watcher.issued("prod"), filters, NOW)

    def due_from_team() -> None:  # as `rfis due` does: the due rows alone, each made into its row, no model
        row = stored_row_of(DUE_COLUMNS, NOW)
        tally: DueTally[list[str]] = DueTally(NOW, timedelta(hours=24), lambda rfi: [])
        for issued in watcher.issued_due("prod", NOW + timedelta(hours=24)):
            deadline = parse_stamp(issued[4])
            tally.add_kept(deadline, row(issued, deadline))
        tally.nearest()

    async def from_api(work: Callable[[StablePayClient], object]) -> float:
        async with StablePayClient("http://localhost", SANDBOX_KEY,
                                   transport=httpx.ASGITransport(app=sandbox.app)) as client:
            start = time.perf_counter()
            await work(client)  # type: ignore[misc]
            return time.perf_counter() - start

    api_view = asyncio.run(from_api(lambda c: read_needs_action(c, filters, NOW)))
    api_due = asyncio.run(from_api(lambda c: due_now(c, NOW, timedelta(hours=24))))
    first, whole, due = best_of(first_rows, 5), best_of(whole_view, 3), best_of(due_from_team, 5)
    return [
        Row(f"needs action: first rows from the team record ({issued:,} issued)", shown(first), shown(api_view),
            f"{first / api_view:.2f}x", "< 200 ms", first < 0.2,
            note="baseline: the whole view read from the API in-process (no network latency)"),
        Row("needs action: the whole view from the team record", shown(whole), shown(api_view),
            f"{whole / api_view:.2f}x", "", True, note="what painted first before the first page came first"),
        Row("rfis due (24h) from the team watcher's sweep", shown(due), shown(api_due), f"{due / api_due:.2f}x",
            "< 1 s", due < 1, note="baseline: rfis due read from the API in-process (every issued request)"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args()
    sizes = (50, 2_000, 500, 2_000) if args.quick else (500, 100_000, 10_000, 100_000)

    from psycopg import sql
    from tests.postgres import OWNER, TEMPLATE, TeamDb, prepare, start_server

    from stablepay_console.storage.local import open_record
    PgRecord, parse = pg_module("store").PgRecord, pg_module("url").parse

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the server is stopped and removed on the way out
    server, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="stablepay-bench-"))
    try:
        prepare(server)
        dbs = []
        for name in ("bench_claims", "bench_verify", "bench_import", "bench_watcher"):
            with server.connect() as conn:
                conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {} OWNER {}").format(
                    sql.Identifier(name), sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
            dbs.append(TeamDb(server, name))

        def team(db: TeamDb, role: str = "alice") -> PgRecord:
            return PgRecord(parse(db.url(role)), lambda name: SERVER if name else "")

        rows = [
            claims_lookup(open_record(tmp / "claims.sqlite3"), team(dbs[0]), sizes[0]),
            verify_100k(open_record(tmp / "verify.sqlite3"), team(dbs[1]), dbs[1], sizes[1]),
            import_local(team(dbs[2]), dbs[2], sizes[2], tmp),
            *watcher_views(team(dbs[3], "walt"), sizes[3]),
        ]
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("team record (PostgreSQL, loopback) as measured; baseline: the local record (SQLite) in the same run")
    table = render(rows)
    print(table)
    if args.write_readme and not args.quick:
        write_readme("team-record", table, "python benchmarks/team_record.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
