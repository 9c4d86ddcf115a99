"""One poller per team: `rfis watch` marks its sweeps in the team record; a console in team mode takes its
radar count from there while that watcher is fresh, and polls the API itself when it is not."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import httpx
import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.services.team.radar import counted, deadlines
from stablepay_console.services.team.scope import server_key
from stablepay_console.services.watch.radar import RadarPoller
from tests.conftest import FIXED_NOW, until, wait_for_workers
from tests.postgres import TeamDb

URL = "STABLEPAY_RECORD_URL"


def sweep_row(db: TeamDb) -> tuple[str, int, str, str] | None:
    with db.connect() as conn:
        return conn.execute("SELECT server, interval_s, by_role, radar FROM stablepay.sweeps").fetchone()


def said(app: Any) -> list[str]:
    """The messages of the Team record notices the console has shown so far."""
    return [n.message for n in app.said if n.title == "Team record"]


@pytest.mark.postgres
def test_the_watch_marks_each_sweep_in_the_team_record(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(URL, team_db.url("walt"))
    assert main(["rfis", "watch", "--once", "--interval", "2m"]) == 0
    from stablepay_console.storage.record_worker import flush_all

    assert flush_all(10) == 0
    found = sweep_row(team_db)
    assert found is not None
    server, interval, by_role, radar = found
    assert (server, interval, by_role) == (server_key(EMBEDDED_PROFILE), 120, "walt")
    assert json.loads(radar)["issued"], "the deadlines near or passed that the watcher saw"


def test_the_watch_without_a_team_record_marks_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rfis", "watch", "--once"]) == 0  # and no database is needed


@pytest.mark.postgres
async def test_a_console_takes_the_radar_from_a_fresh_team_watcher(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.services.team.radar import snapshot
    from stablepay_console.storage.postgres.store import PgRecord
    from stablepay_console.storage.postgres.url import parse

    own = RadarPoller()  # what the console would count on its own, from the same sandbox
    transport = httpx.ASGITransport(app=sandbox.app)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client:
        expected = await own.poll(client, FIXED_NOW)
    watcher = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    watcher.mark_sweep("embedded", 300, snapshot(own.tracker, FIXED_NOW))
    assert counted(deadlines(snapshot(own.tracker, FIXED_NOW)), FIXED_NOW).label == expected.label

    monkeypatch.setenv(URL, team_db.url("bob"))
    app = make_app(radar=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        assert app.radar_label == expected.label and expected.label
        assert app.radar_source == "radar from the team watcher (walt)"
        assert not app.radar.poller.tracker.primed, "the console did not sweep the API itself"
        # The notice is a message the app handles after the worker ends: wait for it to arrive.
        await until(pilot, lambda: any(re.search(r"Deadline radar from the team watcher \(walt\), \d+ s ago", m)
                                       for m in said(app)), f"no team-watcher notice: {said(app)}")

        with team_db.connect() as conn:  # the watcher stopped: its last sweep is older than two intervals
            conn.execute("SET session_replication_role = replica")  # a superuser, past the trigger that stamps it
            conn.execute("UPDATE stablepay.sweeps SET swept_at = now() - interval '11 minutes'")
        app.radar.poll(restart=True)
        await wait_for_workers(pilot)
        assert app.radar.poller.tracker.primed, "the console polls on its own again"
        assert app.radar_label == expected.label
        assert app.radar_source.startswith("the console polls the API on its own")


def test_a_stale_or_missing_sweep_is_not_used() -> None:
    from stablepay_console.storage.record_types import Sweep

    fresh = Sweep("s", FIXED_NOW, 300, "alice", "{}", 599.0)
    stale = Sweep("s", FIXED_NOW, 300, "alice", "{}", 601.0)
    assert fresh.fresh and not stale.fresh
    assert counted([FIXED_NOW - timedelta(hours=1), FIXED_NOW + timedelta(hours=2), FIXED_NOW + timedelta(days=2)],
                   FIXED_NOW).label == "1 due < 24h · 1 overdue"
    assert deadlines("not json") == []


@pytest.mark.postgres
def test_a_sweep_whose_requests_were_not_recorded_is_not_marked_and_says_so(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A watcher that could not keep what it received must not vouch for it: the team's consoles would read a
    fresh sweep from a record that misses those requests (at 100,000 requests the writes outlasted the command
    and the sweep was never marked, without a word)."""
    with team_db.connect() as conn:  # the database refuses the watcher's rows of new requests
        conn.execute("REVOKE INSERT ON stablepay.rfis FROM stablepay_watcher")
    monkeypatch.setenv(URL, team_db.url("walt"))
    assert main(["rfis", "watch", "--once"]) == 1
    err = capsys.readouterr().err
    assert "not all recorded" in err and "the sweep is not marked" in err
    assert sweep_row(team_db) is None



@pytest.mark.postgres
def test_rfis_due_says_it_read_the_api_and_why_not_the_team_watcher(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(URL, team_db.url("bob"))
    main(["rfis", "due", "--within", "24h"])
    assert re.search(r"from the API, \d+ issued requests checked: the team watcher has not swept yet",
                     capsys.readouterr().err)

    monkeypatch.setenv(URL, team_db.url("walt"))
    assert main(["rfis", "watch", "--once"]) == 0
    capsys.readouterr()
    monkeypatch.setenv(URL, team_db.url("bob"))
    main(["rfis", "due", "--within", "24h"])
    assert re.search(r"\(from the team watcher \(walt\), swept \d+ s ago;", capsys.readouterr().err)
    main(["rfis", "due", "--within", "24h", "--live"])
    assert re.search(r"from the API, \d+ issued requests checked: asked live", capsys.readouterr().err)
