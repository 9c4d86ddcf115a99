"""Results carry where they came from: a profile switch never leaves the old profile's results in full colour."""

from __future__ import annotations

from typing import Any

import httpx
from textual.pilot import Pilot
from textual.widgets import DataTable

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_SMALL_ID, METRIC_DAILY_VOLUME_ID, ONRAMP_OPEN_ID
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, open_mode, submit_id, wait_for_workers

REFUSED = Profile("prod-refused", "production", "https://api.stablepay.test")
"""A production profile whose key the server refuses: the switch applies, every request then fails."""
NO_KEY = Profile("prod-no-key", "production", "https://api.stablepay.test")
"""A profile with no key at all: the switch cannot be applied."""


def build(sandbox: Sandbox) -> ConsoleApp:
    services = Services(
        sandbox=sandbox, transport_for=lambda p: httpx.ASGITransport(app=sandbox.app), clock=lambda: FIXED_NOW
    )
    services.book.add(REFUSED, ApiKey("sk_live_refused_0000000000000000000000000"))
    services.book.add(NO_KEY, None)
    return ConsoleApp(EMBEDDED_PROFILE, services, clock=lambda: FIXED_NOW, ping_on_start=False)


async def fill_every_screen(pilot: Pilot[Any]) -> None:
    """A result on each API screen, fetched under the built-in sandbox profile."""
    await open_mode(pilot, "inbox")
    assert pilot.app.screen.query_one(DataTable).row_count > 0
    await open_mode(pilot, "batch")
    await submit_id(pilot, BATCH_SMALL_ID)
    await open_mode(pilot, "quote")
    await submit_id(pilot, ONRAMP_OPEN_ID)
    await open_mode(pilot, "metrics")
    await submit_id(pilot, METRIC_DAILY_VOLUME_ID)


def results_on_screen(app: ConsoleApp) -> dict[str, bool]:
    """Which screens still show a result in full colour (displayed and not greyed as stale)."""
    shown: dict[str, bool] = {}
    for mode, selector in (("batch", "#batch-result"), ("quote", "#quote-result"), ("metrics", "#metric-views")):
        screen = app._screen_stacks[mode][-1]
        widget = screen.query_one(selector)
        has_result = screen.result.current is not None  # type: ignore[attr-defined]
        shown[mode] = has_result and widget.display and not widget.has_class("-stale")
    inbox = app._screen_stacks["inbox"][-1]
    table = inbox.query_one(DataTable)
    shown["inbox"] = table.row_count > 0 and not table.has_class("-stale")
    return shown


async def test_a_switch_whose_key_is_refused_leaves_no_old_result_in_full_colour(sandbox: Sandbox) -> None:
    app = build(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await fill_every_screen(pilot)
        assert results_on_screen(app) == {"batch": True, "quote": True, "metrics": True, "inbox": True}
        assert await app.use_profile(REFUSED)
        await wait_for_workers(pilot)
        assert app.profile == REFUSED and app.ping_state.startswith("✗ Not authorized")
        # Every screen dropped what the sandbox profile fetched; the inbox's reload under the new
        # key failed, and nothing of the old profile stands in for it.
        assert results_on_screen(app) == {"batch": False, "quote": False, "metrics": False, "inbox": False}
        inbox = app._screen_stacks["inbox"][-1]
        error = str(inbox.query_one("#inbox-error").render())
        assert "Not authorized" in error and "Still showing" not in error


async def test_a_switch_that_cannot_be_applied_keeps_the_console_as_it_was(sandbox: Sandbox) -> None:
    app = build(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await fill_every_screen(pilot)
        assert not await app.use_profile(NO_KEY)
        await wait_for_workers(pilot)
        assert app.profile == EMBEDDED_PROFILE
        # Still the profile that fetched them: the results stay, current and in full colour.
        assert results_on_screen(app) == {"batch": True, "quote": True, "metrics": True, "inbox": True}
        assert any("has no usable key" in n.message for n in app.said)


async def test_an_open_request_says_where_it_was_read_and_greys_after_a_switch(sandbox: Sandbox) -> None:
    from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

    app = build(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_mode(pilot, "inbox")
        await pilot.press("enter")
        await wait_for_workers(pilot)
        detail = app.screen
        assert isinstance(detail, RfiDetailScreen)
        line = str(detail.query_one("#rfi-provenance").render())
        assert line.startswith("From status any · kind any · user any · page 1 · profile embedded (sandbox)")
        assert not detail.has_class("-stale")
        assert await app.use_profile(REFUSED)
        await wait_for_workers(pilot)
        assert detail.has_class("-stale")
        said = str(detail.query_one("#rfi-provenance").render())
        assert "Read under profile embedded (sandbox), not prod-refused" in said
