"""The Team screen (key 7): its tables drawn at their cells' widths from the frame they are filled in (drawn at
their headers' widths, the first paint showed "breached: claim 1 / ready 1 / approv 2" for 140 / 114 / 28); at
80x24 the analysts keep their Approved column; the service levels in force, who set them and when, and the
command a lead changes them with. Snapshots at 80x24 and 200x50.

The first paint in a real terminal, against `rfis report --json`: tests/test_team_screen_terminal.py."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from rich.cells import cell_len
from textual.coordinate import Coordinate
from textual.pilot import Pilot

from stablepay_console.api.models import Rfi
from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.screens.team import ANALYST_HEADER, TeamScreen
from stablepay_console.tui.widgets.columns import FittedTable
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, until
from tests.opened_on import OpenedOn
from tests.postgres import TeamDb
from tests.test_layout_sizes import screen_lines

SMALL, LARGE = (80, 24), (200, 50)
URL = "STABLEPAY_RECORD_URL"
APPROVED = ANALYST_HEADER.index("Approved")


async def seen_everything(services: Services) -> list[Rfi]:
    """Every request of the sandbox fetched once (the record keeps them all); the issued ones, newest first."""
    async with services.client_for(EMBEDDED_PROFILE) as client:
        rfis = [rfi async for rfi in client.iter_rfis()]
    services.record.flush()
    return [r for r in rfis if r.status == "issued" and r.round is not None and r.round.submitted_at is None]


def team_work(services: Services, issued: list[Rfi], monkeypatch: pytest.MonkeyPatch) -> None:
    """alice claims three and makes two ready, bob approves one and claims one; carol sets the levels."""
    profile = EMBEDDED_PROFILE
    for rfi in issued[:3]:
        services.notes.claim(profile, rfi.id, author="alice").result(10)
    services.notes.claim(profile, issued[3].id, author="bob").result(10)
    for rfi in issued[:2]:
        assert services.triage.step(profile, rfi.id, "ready", author="alice").result(10).done
    assert services.triage.step(profile, issued[0].id, "approve", author="bob").result(10).done
    monkeypatch.setenv("LOGNAME", "carol")  # who changes the levels on the local record: its author
    services.triage.set_policy(profile, claim_within=timedelta(hours=2)).result(10)
    monkeypatch.setenv("LOGNAME", "analyst")


async def local_team(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> OpenedOn:
    """The console opened on the Team screen over a local record of every request and some of the team's work."""
    monkeypatch.setenv("LOGNAME", "analyst")
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW)
    team_work(services, await seen_everything(services), monkeypatch)
    return OpenedOn("team", EMBEDDED_PROFILE, services, clock=lambda: FIXED_NOW, ping_on_start=False)


async def report_shown(pilot: Pilot[Any]) -> TeamScreen:
    screen = pilot.app.screen
    assert isinstance(screen, TeamScreen)
    await until(pilot, lambda: screen.report is not None, "the Team screen never showed its report")
    await pilot.pause()
    return screen


def cell_widths(table: FittedTable) -> list[int]:
    """Each shown column's widest cell or header, as drawn."""
    widths = []
    for c, column in enumerate(table.ordered_columns):
        cells = [cell_len(str(table.get_cell_at(Coordinate(r, c)))) for r in range(table.row_count)]
        widths.append(max([cell_len(str(column.label)), *cells]))
    return widths


def drawn_widths(table: FittedTable) -> list[int]:
    return [column.get_render_width(table) - 2 * table.cell_padding for column in table.ordered_columns]


# --- the figures, whole from the first frame -------------------------------------------------------------------------


async def test_the_tables_have_their_cells_widths_in_the_frame_they_are_filled_in(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await local_team(sandbox, monkeypatch)
    async with app.run_test(size=SMALL) as pilot:
        screen = await report_shown(pilot)
        made = screen.report
        assert made is not None and sum(made.breaches.values()) > 20, "a record of many requests"
        # Filled again, and looked at before the app is idle again: no measure made "when idle" can help here.
        screen.render_report()
        for selector in ("#team-steps", "#team-analysts"):
            table = screen.query_one(selector, FittedTable)
            drawn, cells = drawn_widths(table), cell_widths(table)
            assert all(d >= c for d, c in zip(drawn, cells, strict=True)), f"{selector}: drawn {drawn}, cells {cells}"
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        shown = {line.split()[1]: int(line.split()[2]) for line in text.splitlines() if line.startswith(" breached: ")}
        assert shown == made.breaches, text


# --- the analysts at 80x24 -------------------------------------------------------------------------------------------


async def test_at_80x24_the_analysts_keep_approved_and_open_gives_way(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = await local_team(sandbox, monkeypatch)
    async with app.run_test(size=SMALL) as pilot:
        screen = await report_shown(pilot)
        analysts = screen.query_one("#team-analysts", FittedTable)
        assert [ANALYST_HEADER[i] for i in analysts.shown_columns] == ["Analyst", "Claimed", "Ready", "Approved"]
        assert analysts.max_scroll_x == 0, "every column shown fits: nothing is cut at the border"
        header = next(line for line in screen_lines(app) if " Analyst " in line)
        assert header.rstrip().endswith("Approved"), header
        rows = {str(analysts.get_row_at(i)[0]): analysts.get_row_at(i) for i in range(analysts.row_count)}
        assert str(rows["bob"][APPROVED]) == "1" and str(rows["alice"][APPROVED]) == "0"
        await pilot.resize_terminal(*LARGE)
        await until(pilot, lambda: len(analysts.shown_columns) == len(ANALYST_HEADER),
                    "at 200 columns every analysts' column shows")


@pytest.mark.postgres
async def test_on_the_team_record_the_analysts_approved_shows_at_80x24(  # type: ignore[no-untyped-def]
    make_app, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(URL, team_db.url("walt"))
    assert await asyncio.to_thread(main, ["rfis", "list", "--all", "--json"]) == 0
    monkeypatch.setenv(URL, team_db.url("alice"))
    with team_db.connect() as conn:
        rfi_id = str(conn.execute("SELECT rfi_id FROM stablepay.rfis WHERE status = 'issued' LIMIT 1").fetchone()[0])
    for argv in (["rfis", "claim", rfi_id], ["rfis", "ready", rfi_id, "--note", "checked"]):
        assert await asyncio.to_thread(main, argv) == 0
    monkeypatch.setenv(URL, team_db.url("bob"))
    assert await asyncio.to_thread(main, ["rfis", "approve", rfi_id]) == 0
    monkeypatch.setenv(URL, team_db.url("carol"))
    app = make_app(opens_on="team", clock=lambda: datetime.now(timezone.utc))
    async with app.run_test(size=SMALL) as pilot:
        screen = await report_shown(pilot)
        analysts = screen.query_one("#team-analysts", FittedTable)
        assert APPROVED in analysts.shown_columns
        rows = {str(analysts.get_row_at(i)[0]): analysts.get_row_at(i) for i in range(analysts.row_count)}
        at = analysts.shown_columns.index(APPROVED)
        assert (str(rows["bob"][at]), str(rows["alice"][at])) == ("1", "0")


# --- the service levels in force -------------------------------------------------------------------------------------


@pytest.mark.postgres
async def test_the_levels_in_force_who_set_them_and_the_command_that_changes_them(  # type: ignore[no-untyped-def]
    make_app, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(URL, team_db.url("carol"))
    assert await asyncio.to_thread(main, ["record", "policy", "--claim-within", "2h", "--approve-before", "6h"]) == 0
    with team_db.connect() as conn:
        changed_at = conn.execute("SELECT changed_at FROM stablepay.triage_policy").fetchone()[0]
    monkeypatch.setenv(URL, team_db.url("alice"))  # an analyst sees the lead's levels
    app = make_app(opens_on="team", clock=lambda: datetime.now(timezone.utc))
    async with app.run_test(size=LARGE) as pilot:
        screen = await report_shown(pilot)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "claim within 2h, ready within 24h of issue, approve 6h before expiry" in text, text
        assert f"set by carol {changed_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC" in text, text
        assert "a lead changes them: stablepay-console record policy" in text, text
        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        policy = screen.query_one("#team-policy")
        assert policy.size.height <= 2, "two lines at 80 columns: the chart keeps its rows"
        small = " ".join(" ".join(screen_lines(app)).split())
        assert "Set by carol" in small and "record policy" in small, small


async def test_the_local_record_without_a_policy_says_no_level_applies(sandbox: Sandbox) -> None:
    app = OpenedOn("team", EMBEDDED_PROFILE, Services(sandbox=sandbox, clock=lambda: FIXED_NOW),
                   clock=lambda: FIXED_NOW, ping_on_start=False)
    async with app.run_test(size=LARGE) as pilot:
        screen = await report_shown(pilot)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "Service levels: none set, so none applies and nothing is breached" in text, text
        assert "record policy" in text and "team policy" not in text
        assert screen.report is not None and not any(screen.report.breaches.values())


# --- snapshots -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=lambda s: f"{s[0]}x{s[1]}")
def test_snapshot_team(snap_compare, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
                       size: tuple[int, int]) -> None:
    app = asyncio.run(local_team(sandbox, monkeypatch))

    async def run_before(pilot: Pilot[Any]) -> None:
        await report_shown(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


# --- before the watcher's first sweep -------------------------------------------------------------------------------


@pytest.mark.postgres
async def test_before_the_first_sweep_it_says_what_it_waits_for_and_lists_every_analyst(  # type: ignore[no-untyped-def]
    make_app, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(URL, team_db.url("carol"))
    app = make_app(opens_on="team", clock=lambda: datetime.now(timezone.utc))
    async with app.run_test(size=SMALL) as pilot:
        screen = await report_shown(pilot)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "No sweep yet: run `rfis watch` as the watcher" in text, text
        analysts = screen.query_one("#team-analysts", FittedTable)
        names = [str(analysts.get_row_at(i)[0]) for i in range(analysts.row_count)]
        # Every analyst of the team, none of them active yet (the server's logins are shared by the tests of one
        # process: another test's analysts may be listed too, after these, in name order).
        assert names[:3] == ["alice", "bob", "carol"] and names == sorted(names), names
    monkeypatch.setenv(URL, team_db.url("walt"))
    assert await asyncio.to_thread(main, ["rfis", "watch", "--once"]) == 0
    monkeypatch.setenv(URL, team_db.url("carol"))
    app = make_app(opens_on="team", clock=lambda: datetime.now(timezone.utc))
    async with app.run_test(size=SMALL) as pilot:
        await report_shown(pilot)
        text = " ".join(" ".join(screen_lines(app)).split())
        assert "No sweep yet" not in text, text
        assert "issued" in text
