"""A flood of the team record's change announcements costs a console's listener little (issue 51, finding 9).

Any member may NOTIFY the channel, as fast as their connection goes. The console re-reads at most once per 2 s
however many come; here the listening itself is measured: its thread's processor time over a flood sent by
another member's connection, a few seconds long, at the rate a loop of `pg_notify` reaches.
"""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest

from stablepay_console.storage.postgres.listen import Change, TeamListener
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from tests.conftest import FIXED_NOW
from tests.postgres import TeamDb, wait_for

pytestmark = pytest.mark.postgres

FLOOD_SECONDS = 4.0
CORE_SHARE = 0.05
"""What the design allows a flood to cost a console: under 5% of one core."""
BATCH = 500
FLOOD_SQL = """SELECT pg_notify('stablepay_record', %s || n || '"}') FROM generate_series(%s::int, %s::int) n"""


def thread_seconds(thread: threading.Thread) -> float:
    """Processor time `thread` has used so far (its own clock: not the flood's, not pytest's)."""
    assert thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def test_a_flood_of_announcements_costs_the_listener_under_five_percent_of_a_core(
        team_db: TeamDb, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="stablepay_console.storage.postgres.listen")
    heard: list[tuple[float, Change]] = []
    listener = TeamListener(parse(team_db.url("alice")), lambda c: heard.append((time.monotonic(), c))).start()
    sent = 0
    stop = threading.Event()

    def flood() -> None:
        nonlocal sent
        payload = json.dumps({"kind": "claims", "server": "prod", "who": "carol", "op": "insert", "rfi": "r"})
        with team_db.connect("bob") as conn:
            while not stop.is_set():  # each statement's announcements differ (the database folds equal ones)
                conn.execute(FLOOD_SQL, (payload[:-2], sent, sent + BATCH - 1))
                sent += BATCH

    try:
        assert wait_for(lambda: listener.reachable is True, 10)
        assert listener._thread is not None
        worker = threading.Thread(target=flood, daemon=True)
        used, start = thread_seconds(listener._thread), time.monotonic()
        worker.start()
        time.sleep(FLOOD_SECONDS)
        stop.set()
        worker.join(10)
        time.sleep(1.0)  # what was on its way when the flood stopped is read too
        used, took = thread_seconds(listener._thread) - used, time.monotonic() - start
        assert sent >= 20_000, f"only {sent} announcements sent: not a flood"
        assert used < CORE_SHARE * took, f"{used:.3f} s of processor in {took:.1f} s for {sent} announcements"
        assert any(c.kind == "resync" for at, c in heard if at >= start), "the flood is told as a re-read"
        said = [r.getMessage() for r in caplog.records if "flood" in r.getMessage()]
        assert said == ["The team record's announcements flood in (over 200 in 2 s); listening again each 2 s, and "
                        "reading everything again then"], "said once, not once a window"
        # A real change after the flood still arrives, as itself, once the window has passed.
        assert wait_for(lambda: time.monotonic() - heard[-1][0] > 2.5, 10)
        PgRecord(parse(team_db.url("carol")), lambda name: "s").add_note("prod", "r1", "", "real", FIXED_NOW)
        assert wait_for(lambda: any(c.kind == "notes" and c.who == "carol" for _, c in heard), 5), heard[-3:]
    finally:
        stop.set()
        listener.stop()
