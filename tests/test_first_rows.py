"""A repeat start paints the inbox's first page as last shown, greyed and labelled, then the server's page."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs

from textual.pilot import Pilot
from textual.widgets import Static

from stablepay_console.api.filters import RfiFilters
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.first_frame import page_to_keep, read_for_start
from stablepay_console.storage import first_page
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.tui.screens.inbox import InboxScreen
from stablepay_console.tui.widgets.inbox.table import InboxTable
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, until, wait_for_workers

LATER = FIXED_NOW + timedelta(hours=3)


class HoldFirstPage:
    """In front of the sandbox: the inbox's pages wait until `release` is set."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.release = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/v2/rfis" and "status" not in parse_qs(
                scope["query_string"].decode()):
            await self.release.wait()
        await self.app(scope, receive, send)


def status(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#inbox-status", Static).render())


def table_ids(pilot: Pilot[Any], selector: str = "#inbox-table") -> list[str]:
    table = pilot.app.screen.query_one(selector, InboxTable)
    return [str(row.key.value) for row in table.ordered_rows]


async def first_start(sandbox: Sandbox) -> list[str]:
    """A first start: the server's first page is shown, and kept."""
    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=sandbox), clock=lambda: FIXED_NOW, inbox_page_size=20)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        shown = table_ids(pilot)
    assert first_page.page_path(EMBEDDED_PROFILE.name).exists()
    return shown


async def test_a_repeat_start_paints_the_last_first_page_greyed_then_the_servers(sandbox: Sandbox) -> None:
    kept = await first_start(sandbox)
    held = HoldFirstPage(sandbox.app)
    sandbox.app = held  # type: ignore[assignment]
    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=sandbox), clock=lambda: LATER, inbox_page_size=20)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: "From the record" in status(pilot))
        assert "From the record, as of 09:30 UTC · refreshing…" in status(pilot)
        assert table_ids(pilot) == kept
        table = pilot.app.screen.query_one("#inbox-table", InboxTable)
        assert table.has_class("-stale")
        await pilot.press("enter")  # a row from the record does not open as if it were current
        await pilot.pause()
        assert isinstance(pilot.app.screen, InboxScreen)

        held.release.set()
        await wait_for_workers(pilot)
        assert "From the record" not in status(pilot) and "Page 1 of 12" in status(pilot)
        assert not table.has_class("-stale")
        assert table_ids(pilot) == [r.id for r in sandbox.data.rfis[:20]]


async def test_the_boot_screen_paints_them_before_the_client_stack_is_built(sandbox: Sandbox) -> None:
    kept = await first_start(sandbox)
    built = threading.Event()

    def build() -> Services:
        built.wait(30)  # the services (and the client stack) are not there until the test has looked
        return Services(sandbox=sandbox)

    app = ConsoleApp(EMBEDDED_PROFILE, build, clock=lambda: LATER, inbox_page_size=20)
    async with app.run_test(size=(120, 40)) as pilot:
        # The rows are drawn once the table has its size: wait for them, not just for the table.
        await until(pilot, lambda: bool(pilot.app.screen.query("#boot-rows")) and bool(table_ids(pilot, "#boot-rows")))
        assert table_ids(pilot, "#boot-rows") == kept
        assert pilot.app.screen.query_one("#boot-rows", InboxTable).has_class("-stale")
        said = str(pilot.app.screen.query_one("#boot-status", Static).render())
        assert said == "From the record, as of 09:30 UTC · refreshing…"
        built.set()
        await until(pilot, lambda: "Page 1 of 12" in status(pilot) if pilot.app.screen.query("#inbox-status")
                    else False)
        assert table_ids(pilot) == [r.id for r in sandbox.data.rfis[:20]]


async def test_never_for_another_profile_base_url_or_filter(sandbox: Sandbox) -> None:
    await first_start(sandbox)
    assert read_for_start(EMBEDDED_PROFILE.name, EMBEDDED_PROFILE.base_url) is not None
    assert read_for_start("embedded-production", EMBEDDED_PROFILE.base_url) is None
    assert read_for_start(EMBEDDED_PROFILE.name, "https://elsewhere.example") is None
    async with Services(sandbox=sandbox).client_for(EMBEDDED_PROFILE) as client:
        issued = await client.list_rfis(RfiFilters(status="issued"))
        second = await client.list_rfis(offset=20)
    assert page_to_keep("p", "u", RfiFilters(status="issued"), issued, FIXED_NOW) is None
    assert page_to_keep("p", "u", RfiFilters(), second, FIXED_NOW) is None
