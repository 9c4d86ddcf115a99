"""Needs action streams: its first rows are painted after the first page, marked as still reading."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from textual.pilot import Pilot
from textual.widgets import Static

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.inbox_pager import InboxPager, needs_action_order
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.tui.widgets.inbox.table import InboxTable
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, wait_for_workers


class HoldLaterPages:
    """In front of the sandbox: the issued list's pages after the first wait until `release` is set."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.release = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/v2/rfis":
            query = parse_qs(scope["query_string"].decode())
            if query.get("status") == ["issued"] and query.get("offset", ["0"]) != ["0"]:
                await self.release.wait()
        await self.app(scope, receive, send)


def status(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#inbox-status", Static).render())


def shown_ids(pilot: Pilot[Any]) -> list[str]:
    table = pilot.app.screen.query_one(InboxTable)
    return [str(row.key.value) for row in table.ordered_rows]


async def test_needs_action_paints_the_first_page_read_then_the_whole_order() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=600)
    issued = [r for r in world.data.rfis if r.status == "issued"]
    assert 200 < len(issued) <= 300, "three pages of issued requests"
    held = HoldLaterPages(world.app)
    world.app = held  # type: ignore[assignment]
    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=world), clock=lambda: FIXED_NOW, inbox_page_size=20)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("a")
        for _ in range(500):  # until the first page is painted (the others are held)
            await pilot.pause()
            if "Still reading" in status(pilot):
                break
        assert f"Still reading: 100 of {len(issued)} issued requests" in status(pilot)
        first_page, _ = needs_action_order(issued[:100], FIXED_NOW)
        assert shown_ids(pilot) == [r.id for r in first_page[:20]]

        held.release.set()
        await wait_for_workers(pilot)
        assert "Still reading" not in status(pilot)
        assert f"{len(issued)} total" in status(pilot)
        everything, _ = needs_action_order(issued, FIXED_NOW)
        assert shown_ids(pilot) == [r.id for r in everything[:20]]


async def test_the_pager_hands_on_the_rows_read_so_far() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=600)
    issued = [r for r in world.data.rfis if r.status == "issued"]
    pager = InboxPager("embedded", "sandbox", lambda: FIXED_NOW)
    pager.toggle_view()
    seen: list[tuple[int, str]] = []

    def shown() -> None:
        current = pager.action.current
        assert current is not None
        seen.append((len(current.value), pager.action.loading or ""))

    async with Services(sandbox=world).client_for(EMBEDDED_PROFILE) as client:
        await pager.load_needs_action(client, shown)
    assert [n for n, _ in seen] == [100, 200]
    assert all(still.startswith("Still reading") for _, still in seen)
    final = pager.action.current
    assert final is not None and pager.action.loading is None
    assert [r.id for r in final.value] == [r.id for r in needs_action_order(issued, FIXED_NOW)[0]]
    assert "partial" not in final.provenance.asked
