"""A colleague's step reaches an open console's inbox by the database's NOTIFY (no polling)."""

from __future__ import annotations

import asyncio

import pytest

from stablepay_console.cli.main import main
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import wait_for_workers
from tests.postgres import TeamDb
from tests.test_team_live import URL, console, until

pytestmark = pytest.mark.postgres


async def test_bobs_step_from_his_shell_shows_in_alices_inbox(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = console(make_app, monkeypatch, team_db.url("alice"))
    async with alice.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await until(pilot, lambda: alice.team_listener is not None and alice.team_listener.reachable, 10)
        table = alice.screen.query_one(InboxTable)
        rfi = next(r for r in table.order if r.status == "issued")
        assert str(table.get_cell(rfi.id, "step")) == "unclaimed"
        monkeypatch.setenv(URL, team_db.url("bob"))
        assert await asyncio.to_thread(main, ["rfis", "claim", rfi.id]) == 0
        assert await asyncio.to_thread(main, ["rfis", "ready", rfi.id, "--note", "checked"]) == 0
        await until(pilot, lambda: str(table.get_cell(rfi.id, "step")) == "ready", 10)
        assert str(table.get_cell(rfi.id, "status")) == "issued ◇", "someone else's claim; at 80 columns Kind stays"
        assert "kind" in table.shown_columns
