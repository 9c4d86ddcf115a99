"""The built-in sandbox between starts: the same requests at the same times, so the record keeps no new round
entry that changes nothing ("issued 23:12 (was 23:12)"); the detail says whose rounds they are (issue 41, 7)."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.widgets.rfi.history import RfiHistoryView
from tests.conftest import wait_for_workers
from tests.postgres import TeamDb
from tests.terminal import console_command
from tests.test_record_tui import issued, open_detail


def shell(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_command(), *argv], env=env, capture_output=True, text=True, timeout=60,
                          check=False)


def test_a_second_start_of_the_built_in_sandbox_records_no_new_round_entry(term_env: dict[str, str]) -> None:
    first = shell(term_env, "rfis", "list", "--status", "issued", "--limit", "5", "--json")
    assert first.returncode == 0, first.stderr
    started = int(time.time())
    while int(time.time()) == started:  # the next start is at least a second later: its times would differ
        time.sleep(0.05)
    again = shell(term_env, "rfis", "list", "--status", "issued", "--limit", "5", "--json")
    assert again.returncode == 0, again.stderr
    ids = [r["id"] for r in json.loads(first.stdout)["data"]]
    assert ids == [r["id"] for r in json.loads(again.stdout)["data"]]
    assert json.loads(first.stdout)["data"][0]["round"] == json.loads(again.stdout)["data"][0]["round"]
    for rfi in ids:
        history = json.loads(shell(term_env, "rfis", "history", rfi, "--json").stdout)
        assert len(history["rounds"]) == 1, history["rounds"]


@pytest.mark.postgres
async def test_the_detail_says_the_rounds_are_the_teams_or_this_consoles(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, rfi = issued(sandbox)
    for url, whose in ((None, "Rounds seen by this console"), (team_db.url("alice"), "Rounds seen by the team")):
        if url is not None:
            monkeypatch.setenv("STABLEPAY_RECORD_URL", url)
        app: Any = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_workers(pilot)
            screen = await open_detail(pilot, rfi)
            await wait_for_workers(pilot)
            title = str(screen.query_one(RfiHistoryView).query_one("#history-title").render())
            assert title.startswith(whose), title
