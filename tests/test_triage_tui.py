"""Triage in the console: the inbox's Step and SLA columns, and the Team screen, in pilot tests."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from textual.pilot import Pilot

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.test_layout_sizes import build_app, screen_lines


async def until(pilot: Pilot[Any], check: Any, rounds: int = 100) -> bool:
    """Poll (never a fixed sleep): let the workers run until `check()` holds."""
    for _ in range(rounds):
        if check():
            return True
        await wait_for_workers(pilot, rounds=1)
        await asyncio.sleep(0.01)
    return bool(check())


async def test_the_inbox_shows_each_requests_step_and_time_left_at_80x24() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        issued = [rfi for rfi in table.order if rfi.status == "issued" and rfi.round is not None]
        mine = issued[0]
        other = next(r for r in issued[1:] if r.round and FIXED_NOW - r.round.issued_at > timedelta(hours=5))
        services = app.services
        await asyncio.wrap_future(services.triage.set_policy(EMBEDDED_PROFILE))  # the levels `record policy` offers
        await asyncio.wrap_future(services.notes.claim(EMBEDDED_PROFILE, mine.id))
        await asyncio.wrap_future(services.triage.step(EMBEDDED_PROFILE, mine.id, "ready"))
        app.screen.claims.read()  # type: ignore[attr-defined]
        app.screen.triage.want(table.order, again=True)  # type: ignore[attr-defined]
        assert await until(pilot, lambda: str(table.get_cell(mine.id, "step")) == "ready")
        sla = table.get_cell(other.id, "sla")
        assert str(table.get_cell(other.id, "step")) == "unclaimed"
        assert str(sla).startswith("-") and "red" in str(sla.style), "claimed 4 h after issue at the latest"
        header = next(line for line in screen_lines(app) if line.lstrip().startswith("Created"))
        assert "Step" in header and "SLA" in header and "Deadline" in header


async def test_without_a_policy_no_service_level_is_shown_or_counted() -> None:
    """The local record, nobody ran `record policy`: no SLA column, no breach in the banner, no time left to a
    level in the detail; a request issued a day ago is not "breached". Set the levels, and the column comes,
    with its tooltip and its legend in F1."""
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        old = next(r for r in table.order
                   if r.status == "issued" and r.round and FIXED_NOW - r.round.issued_at > timedelta(hours=5))
        assert await until(pilot, lambda: app.screen.triage.marks.read_for is not None)  # type: ignore[attr-defined]
        await wait_for_workers(pilot)
        assert "sla" not in table.shown_columns and table.tooltip is None
        header = next(line for line in screen_lines(app) if line.lstrip().startswith("Created"))
        assert "Step" in header and "SLA" not in header, header
        assert "breached" not in screen_lines(app)[0], "the banner counts no breach without a policy"
        table.go_to(table.order.index(old))
        await pilot.press("enter")
        await wait_for_workers(pilot)
        process = str(app.screen.query_one("#rfi-process").render())
        assert process.startswith("Triage: unclaimed") and "within" not in process and "breached" not in process
        await pilot.press("escape")

        await asyncio.wrap_future(app.services.triage.set_policy(EMBEDDED_PROFILE))
        app.screen.triage.want(table.order, again=True)  # type: ignore[attr-defined]
        assert await until(pilot, lambda: "sla" in table.shown_columns)
        assert str(table.get_cell(old.id, "sla")).startswith("-"), "issued over 4 h ago, unclaimed: breached"
        assert table.tooltip is not None and "SLA" in str(table.tooltip)
        await pilot.press("question_mark")
        await wait_for_workers(pilot)
        from textual.widgets import Markdown

        about = app.screen.query_one("#keys-about", Markdown).source  # F1: the screen's help, with the legend
        legend = " ".join(about.split())
        assert "`-2h05m` in red: breached that long ago" in legend and "`paused`: waiting on the user" in legend
        assert "Without a policy there is no SLA column" in legend


async def open_team(pilot: Pilot[Any]) -> Any:
    await pilot.press("7")
    screen = pilot.app.screen
    assert await until(pilot, lambda: getattr(screen, "report", None) is not None)
    await wait_for_workers(pilot)
    return screen


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_the_team_screen_shows_the_report(size: tuple[int, int]) -> None:
    app = build_app()
    async with app.run_test(size=size) as pilot:
        await wait_for_workers(pilot)
        first = app.screen.query_one(InboxTable).order[0].id
        await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, first))
        screen = await open_team(pilot)
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert "SANDBOX" in lines[0] and "7 Team" in lines[1]
        assert "? Help" in lines[-1] and "q Quit" in lines[-1]
        assert "Last 30 days" in text and "issue → claim" in text and "Analyst" in text
        assert "Requests per week" in text and "submitted in time" in text
        for widget in screen.query("*"):
            if widget.focusable:
                region = widget.region
                assert region.bottom <= size[1] - 1 and region.right <= size[0], widget
        await pilot.press("s")
        assert await until(pilot, lambda: screen.days == 90 and "Last 90 days" in "\n".join(screen_lines(app)))
