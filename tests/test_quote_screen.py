"""Quote refresh: what rate will the user get now, and how did it move since the last refresh?"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import Profile
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import ONRAMP_COMPLETED_ID, ONRAMP_OPEN_ID, ONRAMP_OPEN_NO_EXPIRY_ID
from stablepay_console.storage.prefs import Prefs
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.tui.modals.confirm import ConfirmScreen
from stablepay_console.tui.screens.quote import QuoteScreen
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, open_mode, submit_id, wait_for_workers
from tests.opened_on import OpenedOn

SIZE = (120, 40)
MISSING_ID = "0e0e0e0e-1111-4222-8333-444455556666"


def refresh_post(onramp_id: str) -> tuple[str, str]:
    return ("POST", f"/v2/onramps/{onramp_id}/quote/refresh")


def posts(sandbox: Sandbox) -> list[tuple[str, str]]:
    return [c for c in sandbox.api_calls() if c[0] == "POST"]


def text_of(screen: QuoteScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


def quote_rows(screen: QuoteScreen) -> dict[str, list[str]]:
    table: DataTable[Any] = screen.query_one("#quote-table", DataTable)
    rows = {}
    for n in range(table.row_count):
        cells = [str(c).strip() for c in table.get_row_at(n)]
        rows[cells[0]] = cells[1:]
    return rows


def side(screen: QuoteScreen, which: str) -> dict[str, str]:
    table: DataTable[Any] = screen.query_one(f"#quote-{which}", DataTable)
    return {str(table.get_row_at(n)[0]): str(table.get_row_at(n)[1]) for n in range(table.row_count)}


async def open_quote(pilot: Pilot[Any]) -> QuoteScreen:
    screen = await open_mode(pilot, "quote")
    assert isinstance(screen, QuoteScreen)
    return screen


async def refresh(pilot: Pilot[Any], value: str) -> QuoteScreen:
    screen = await submit_id(pilot, value)
    assert isinstance(screen, QuoteScreen)
    return screen


def production_app(sandbox: Sandbox) -> ConsoleApp:
    """A production profile whose client talks to the in-process sandbox, started on the quote screen."""

    services = Services(
        sandbox=sandbox, transport_for=lambda p: httpx.ASGITransport(app=sandbox.app), clock=lambda: FIXED_NOW
    )
    profile = Profile("prod", "production", "http://localhost")
    services.book.add(profile, ApiKey(SANDBOX_KEY))
    return OpenedOn("quote", profile, services, clock=lambda: FIXED_NOW, ping_on_start=False)


# --- one refresh ---------------------------------------------------------------------------


async def test_refresh_shows_quote_parties_status_and_expiry(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, ONRAMP_OPEN_ID)
        quote = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
        assert quote is not None
        rows = quote_rows(screen)
        assert list(rows) == ["Send gross", "Send net", "Rail fee", "Receive gross", "Receive net", "Rate"]
        assert rows["Send gross"] == ["1,000.00 USD"]
        assert rows["Send net"] == ["995.00 USD"]
        assert rows["Rail fee"] == ["5.00 USD"]
        assert rows["Receive gross"] == [f"{quote.receive_gross.amount:,} USDC"]
        assert rows["Receive net"] == [f"{quote.receive_net.amount:,} USDC"]
        assert rows["Rate"] == [str(quote.rate)]
        # The sandbox's refreshed quote is valid for 15 minutes from (fixed) now.
        assert text_of(screen, "#quote-expiry") == "Expires 2026-11-20 09:45 UTC, in 15m 00s"
        heading = text_of(screen, "#quote-heading")
        assert f"Onramp {ONRAMP_OPEN_ID}" in heading
        assert "status OPEN_QUOTE" in heading
        source, destination = side(screen, "source"), side(screen, "destination")
        assert source["User"] == "Ana Silva"
        assert source["Currency"] == "USD"
        assert source["Amount"] == "1,000.00 USD"  # money: at least two decimals, with separators
        assert destination["Currency"] == "USDC"
        assert destination["Chain"] == "POLYGON"
        assert destination["Wallet"] == sandbox.data.onramps[ONRAMP_OPEN_ID].details.destination.wallet_address
        assert destination["Amount"] == "not set yet"
        assert "Quote refreshed once" in text_of(screen, "#quote-message")
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)]


async def test_no_expiry_quote_says_so(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, ONRAMP_OPEN_NO_EXPIRY_ID)
        assert text_of(screen, "#quote-expiry").startswith("No expiry")


async def test_countdown_follows_the_app_clock(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, ONRAMP_OPEN_ID)
        app.clock = lambda: FIXED_NOW + timedelta(minutes=14, seconds=1)
        screen.tick()
        assert text_of(screen, "#quote-expiry") == "Expires 2026-11-20 09:45 UTC, in 0m 59s"
        app.clock = lambda: FIXED_NOW + timedelta(minutes=16)
        screen.tick()
        assert text_of(screen, "#quote-expiry").startswith("Expired at 2026-11-20 09:45 UTC, 1m 00s ago")
        assert screen._ticker is not None  # the screen repaints this every second on its own


# --- two refreshes -------------------------------------------------------------------------


async def test_second_refresh_shows_what_changed(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        first = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
        assert first is not None
        assert quote_rows(app.screen)["Rate"] == [str(first.rate)]  # no change column yet
        await pilot.press("r")
        await wait_for_workers(pilot)
        second = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
        assert first is not None and second is not None and first.rate != second.rate
        rows = quote_rows(app.screen)
        delta = second.rate - first.rate
        arrow = "▲" if delta > 0 else "▼"
        now, was, change = rows["Rate"]
        assert (now, was) == (str(second.rate), str(first.rate))
        assert change.startswith(f"{arrow} {delta:+}")
        percent = (delta / first.rate * 100).quantize(Decimal("0.01"))
        assert change.endswith(f"({percent:+}%)")
        net_delta = second.receive_net.amount - first.receive_net.amount
        assert rows["Receive net"][1] == f"{first.receive_net.amount:,} USDC"
        assert rows["Receive net"][2].startswith(f"{arrow} {net_delta:+}")
        assert rows["Receive gross"][2].startswith(arrow)
        assert rows["Send gross"][2] == ""  # only the rate and the receive amounts are compared
        assert "Quote refreshed 2 times" in str(app.screen.query_one("#quote-message", Static).content)
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)] * 2
        # Every refresh of this session, newest first, in its own table.
        await pilot.press("r")
        await wait_for_workers(pilot)
        third = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
        assert third is not None
        history: DataTable[Any] = app.screen.query_one("#quote-history", DataTable)
        assert history.display and history.row_count == 3
        rates = [str(history.get_row_at(n)[1]).strip() for n in range(3)]
        assert rates == [str(third.rate), str(second.rate), str(first.rate)]


async def test_another_onramp_starts_without_comparison(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        screen = await refresh(pilot, ONRAMP_OPEN_NO_EXPIRY_ID)
        assert all(len(cells) == 1 for cells in quote_rows(screen).values())
        assert "Quote refreshed once" in text_of(screen, "#quote-message")


# --- refusals and errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "The onramp ID is empty."),
        ("2b7d9e40-8c1a-4f6e-b2d5", "must be a UUID of 36 characters"),
        ("2b7d9e40-8c1a-4f6e-b2d5-00000000a0g1", "'g', which is not a hexadecimal digit"),
    ],
)
async def test_bad_id_is_refused_inline_and_nothing_is_posted(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, typed: str, says: str
) -> None:
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, typed)
        assert says in text_of(screen, "#id-error")
        assert posts(sandbox) == []
        assert screen.entry.value == typed


async def test_not_open_quote_explains_and_keeps_last_good_quote(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        shown = quote_rows(app.screen)
        screen = await refresh(pilot, ONRAMP_COMPLETED_ID)
        message = text_of(screen, "#quote-message")
        assert message.startswith(
            "Refused: HTTP 409: Quote refresh is only allowed in status OPEN_QUOTE; this onramp is COMPLETED"
        )
        assert "Only an onramp in status OPEN_QUOTE has a quote that can be refreshed." in message
        assert f"Still showing onramp {ONRAMP_OPEN_ID} · profile embedded (sandbox)" in message
        assert quote_rows(screen) == shown
        assert screen.entry.value == ONRAMP_COMPLETED_ID
        assert ONRAMP_COMPLETED_ID not in Prefs("embedded").recent("recent_onramps")


async def test_r_after_a_refusal_posts_to_the_onramp_refused_never_the_one_greyed(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    """a001 refreshed, c001 refused, then r: the message names c001 and the POST goes to c001, not a001."""
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        screen = await refresh(pilot, ONRAMP_COMPLETED_ID)
        message = text_of(screen, "#quote-message")
        assert f"r tries onramp {ONRAMP_COMPLETED_ID} again." in message
        assert f"r tries onramp {ONRAMP_OPEN_ID}" not in message
        screen.query_one("#quote-table").focus()  # the keys on the screen, the field still showing c001
        await pilot.press("r")
        await wait_for_workers(pilot)
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID), refresh_post(ONRAMP_COMPLETED_ID),
                                  refresh_post(ONRAMP_COMPLETED_ID)]
        assert f"r tries onramp {ONRAMP_COMPLETED_ID} again." in text_of(screen, "#quote-message")


async def test_not_found_shows_server_message_without_the_status_hint(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, MISSING_ID)
        message = text_of(screen, "#quote-message")
        assert message == f"Refused: HTTP 404: No onramp with ID {MISSING_ID}\nr tries onramp {MISSING_ID} again."
        assert not screen.query_one("#quote-result").display


async def test_failed_refresh_is_not_retried_and_keeps_the_quote(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        shown = quote_rows(app.screen)
        sandbox.faults.force = "502_html"
        sandbox.faults.force_count = 1
        await pilot.press("r")
        await wait_for_workers(pilot)
        message = text_of(app.screen, "#quote-message")
        assert message.startswith("Unreadable response: HTTP 502")
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)] * 2  # one good, one failed: no retry
        assert quote_rows(app.screen) == shown
        # The next refresh compares against the last good quote.
        await pilot.press("r")
        await wait_for_workers(pilot)
        assert len(quote_rows(app.screen)["Rate"]) == 3


async def test_unauthorized_shows_server_message(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        sandbox.faults.force = "401"
        screen = await refresh(pilot, ONRAMP_OPEN_ID)
        assert text_of(screen, "#quote-message").startswith(
            "Not authorized: HTTP 401: Missing or invalid API key"
        )


# --- production --------------------------------------------------------------------------------


async def test_production_refresh_asks_first(sandbox: Sandbox) -> None:
    app = production_app(sandbox)
    async with app.run_test(size=SIZE) as running:
        pilot: Pilot[Any] = running
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        assert isinstance(app.screen, ConfirmScreen)
        assert posts(sandbox) == []
        await pilot.press("n")
        await wait_for_workers(pilot)
        assert isinstance(app.screen, QuoteScreen)
        assert posts(sandbox) == []
        assert text_of(app.screen, "#quote-message") == "Refresh cancelled; nothing was sent."
        # A stray Enter on the question picks the focused "No".
        await refresh(pilot, ONRAMP_OPEN_ID)
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert posts(sandbox) == []
        await refresh(pilot, ONRAMP_OPEN_ID)
        await pilot.press("y")
        await wait_for_workers(pilot)
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)]
        assert quote_rows(app.screen)["Send gross"] == ["1,000.00 USD"]
        # Refreshing again with r asks again.
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await wait_for_workers(pilot)
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)]


async def test_sandbox_refresh_does_not_ask(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        assert isinstance(app.screen, QuoteScreen)
        assert posts(sandbox) == [refresh_post(ONRAMP_OPEN_ID)]


# --- state kept -------------------------------------------------------------------------------


async def test_recent_onramps_and_typed_id_are_kept(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        await refresh(pilot, ONRAMP_COMPLETED_ID)  # refused: not remembered, but still typed
        await app.switch_mode("batch")
        await wait_for_workers(pilot)
        await app.switch_mode("quote")
        await wait_for_workers(pilot)
        assert app.screen is screen
        assert screen.entry.value == ONRAMP_COMPLETED_ID
    assert Prefs("embedded").recent("recent_onramps") == [ONRAMP_OPEN_ID]


async def test_copy_takes_the_selected_value(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_quote(pilot)
        screen = await refresh(pilot, ONRAMP_OPEN_ID)
        table: DataTable[Any] = screen.query_one("#quote-table", DataTable)
        assert app.focused is table
        assert table.cursor_row == 5  # the row that matters: the rate
        await pilot.press("c")
        assert app.clipboard == str(sandbox.data.onramps[ONRAMP_OPEN_ID].quote.rate)  # type: ignore[union-attr]
        destination: DataTable[Any] = screen.query_one("#quote-destination", DataTable)
        destination.focus()
        destination.move_cursor(row=destination.row_count - 1)
        await pilot.press("c")
        assert app.clipboard == sandbox.data.onramps[ONRAMP_OPEN_ID].details.destination.wallet_address


# --- snapshots ----------------------------------------------------------------------------------


def test_snapshot_after_two_refreshes(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)
        await pilot.press("r")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(opens_on="quote"), terminal_size=SIZE, run_before=run_before)


def test_snapshot_not_refreshable(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_NO_EXPIRY_ID)
        await refresh(pilot, ONRAMP_COMPLETED_ID)

    assert snap_compare(make_app(opens_on="quote"), terminal_size=SIZE, run_before=run_before)


def test_snapshot_production_confirmation(sandbox: Sandbox, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_quote(pilot)
        await refresh(pilot, ONRAMP_OPEN_ID)

    assert snap_compare(production_app(sandbox), terminal_size=SIZE, run_before=run_before)


async def test_the_quote_table_has_its_column_widths_as_soon_as_it_shows_a_quote(sandbox: Sandbox) -> None:
    """No frame shows the new rows in the old widths ("Recei", "▼ -0.0"): every column fits its header and its
    cells the moment the rows are given, not after DataTable measures them when the app is next idle."""
    from textual.app import App, ComposeResult

    from stablepay_console.tui.widgets.quote.table import QuoteTable

    class Holder(App[None]):
        def compose(self) -> ComposeResult:
            yield QuoteTable(id="quote")

    first = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
    second = first.model_copy(update={"rate": first.rate - Decimal("0.0022")}) if first is not None else None
    assert first is not None and second is not None
    app = Holder()
    async with app.run_test(size=(120, 20)):
        table = app.query_one(QuoteTable)
        for quote, previous in ((first, None), (second, first)):
            table.show(quote, previous)  # no pause: what the next frame would draw
            for index, column in enumerate(table.columns.values()):
                cells = [table.get_row_at(n)[index] for n in range(table.row_count)]
                assert not column.auto_width and column.width >= max(
                    [column.label.cell_len, *(cell.cell_len for cell in cells)]
                ), f"{column.key.value}: {column.width} for {[cell.plain for cell in cells]}"
