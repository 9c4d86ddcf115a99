"""The needs-action view from the team record, as a console reads it: its first rows, and the whole view.

Run by `team_due.py` in a child process of each tree (its `PYTHONPATH`), against the database it filled:

    python benchmarks/team_views.py URL PROFILE SERVER RUNS

prints one JSON line: the median seconds of `first_rows` (the nearest deadlines, one index scan: what paints
first) and of `whole_view` (every issued request the watcher saw, in needs-action order).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path


def median_of(work: Callable[[], object], runs: int) -> float:
    taken = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        taken.append(time.perf_counter() - started)
    return statistics.median(taken)


def main(url: str, profile: str, server: str, runs: int) -> None:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.services.needs_action import NeedsActionRows
    from stablepay_console.services.team.needs_action import team_rows, wanted

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import pg_module

    PgRecord, parse = pg_module("store").PgRecord, pg_module("url").parse

    record = PgRecord(parse(url), lambda name: server if name else "")
    filters, now = RfiFilters(), datetime.now(timezone.utc)

    def first_rows() -> None:
        found = record.issued_first(profile, now, 100)
        rows = NeedsActionRows()
        for rfi in wanted(found[0], filters):
            rows.add(rfi)
        rows.ordered(now)

    def whole_view() -> None:
        team_rows(record.issued(profile), filters, now)

    first_rows()  # the connection, the models: not what is timed
    print(json.dumps({"first_rows": median_of(first_rows, runs), "whole_view": median_of(whole_view, runs)}))
    record.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
