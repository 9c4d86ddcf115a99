"""The console against a hostile server (tests/hostile_cases.py, in-process): what the screens show.

Every screen, modal and notification is walked with hostile text in every field and the
terminal output is checked for anything raw; duplicate IDs, 10,000 items, 100,000 recipients
and numbers past Decimal's range are shown without a crash, and keys keep answering.
"""

from __future__ import annotations

import time
import webbrowser
from collections.abc import Callable
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

from stablepay_console.api import StablePayClient
from stablepay_console.tui.runtime.links import LinkRefused, checked_link
from stablepay_console.tui.widgets.batch.recipients import RecipientsTable
from stablepay_console.tui.widgets.inbox.table import InboxTable
from stablepay_console.tui.widgets.quote.table import QuoteTable
from stablepay_console.tui.widgets.rfi.items import RfiItemsTable
from tests.conftest import open_mode, submit_id, wait_for_workers
from tests.hostile_payloads import HOSTILE, RAW_CHARS
from tests.hostile_server import mock_transport
from tests.screen_output import ESCAPED_MARKERS, assert_nothing_raw, raw_controls, terminal_text

SIZE = (120, 40)
BATCH_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000050"
ONRAMP_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
METRIC_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000d1"
GENEROUS = 10.0
"""Seconds a key press may take before the test calls the console frozen (it takes milliseconds)."""


async def on_hostile_server(app: Any, case: str) -> Any:
    """Point the app's client at the hostile case (in-process, the same answers as over HTTP)."""
    old = app.client
    app.client = StablePayClient("http://127.0.0.1", "sk_test_hostile_key", transport=mock_transport(case))
    await old.aclose()
    return app


def browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Stand in for the system browser: record what would be opened."""
    opened: list[str] = []

    def record(url: str, *args: object, **kwargs: object) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", record)
    return opened


def messages(app: Any) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app.said]


def static_text(app: Any, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def run_metric(pilot: Pilot[Any], metric_id: str) -> Any:
    screen = await open_mode(pilot, "metrics")
    field = screen.query_one("#metric-id", Input)
    field.value = metric_id
    field.focus()
    await pilot.press("enter")
    await wait_for_workers(pilot)
    return screen


async def step(pilot: Pilot[Any], app: Any, where: str, *keys: str) -> str:
    for key in keys:
        await pilot.press(key)
    await wait_for_workers(pilot)
    return assert_nothing_raw(app, where)


async def answered(pilot: Pilot[Any], key: str, done: Callable[[], bool]) -> None:
    """Press `key` and poll until `done()`: what is checked is that the key is answered at all; the generous
    bound only ends a hang (how fast keys are answered is a benchmark's figure, not asserted here)."""
    give_up = time.monotonic() + GENEROUS
    await pilot.press(key)
    while not done():
        assert time.monotonic() < give_up, f"{key!r} was never answered (waited {GENEROUS:.0f} s)"
        await pilot.pause(0.02)


# --- the checker itself --------------------------------------------------------------------


async def test_the_output_check_catches_raw_server_text() -> None:
    """Hostile text drawn without the sanitiser is caught, so the walks below can fail."""

    class Raw(App[None]):
        def compose(self) -> ComposeResult:
            yield Static(Text("label" + HOSTILE))

    async with Raw().run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        left = raw_controls(terminal_text(pilot.app))
    assert "'\\x1b'" in left and "'\\u202e'" in left and "'\\u2028'" in left


# --- every screen, modal and notification -----------------------------------------------------


async def test_every_screen_modal_and_notification_draws_hostile_text_escaped(make_app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    opened = browser(monkeypatch)
    app = await on_hostile_server(make_app(), "escapes")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        shown = await step(pilot, app, "inbox")
        assert any(marker in shown for marker in ESCAPED_MARKERS), "the hostile text was not drawn at all"
        assert "pong" in shown  # the banner's ping answer, escaped

        shown = await step(pilot, app, "request detail", "enter")
        assert "Asked for" in shown and "\\u202egnp.exe" in shown
        shown = await step(pilot, app, "link refused", "o")
        assert opened == [], "a link holding escape sequences was handed to the browser"
        assert any("Link not opened" in m for m in messages(app))
        await step(pilot, app, "copy link", "l")
        await step(pilot, app, "copy IDs", "c", "u", "t", "i")
        assert app.clipboard and not any(ch in RAW_CHARS for ch in app.clipboard)
        await step(pilot, app, "help", "question_mark")
        await step(pilot, app, "help closed", "question_mark", "escape")

        await step(pilot, app, "export dialog", "e")
        await step(pilot, app, "inbox again", "escape")

        await open_mode(pilot, "batch")
        await submit_id(pilot, BATCH_ID)
        shown = assert_nothing_raw(app, "batch")
        assert "3 recipients" in shown
        await step(pilot, app, "batch copies and explorer", "c", "t", "o")
        assert opened == []
        assert not any(ch in RAW_CHARS for ch in app.clipboard)

        await open_mode(pilot, "quote")
        await submit_id(pilot, ONRAMP_ID)
        assert_nothing_raw(app, "quote")
        await step(pilot, app, "quote refreshed again", "r")
        await step(pilot, app, "quote copy", "c")

        await run_metric(pilot, METRIC_ID)
        assert_nothing_raw(app, "metric chart")
        await step(pilot, app, "metric table", "t")
        await step(pilot, app, "metric bookmark prompt", "b")
        await step(pilot, app, "metric prompt closed", "escape")

        await open_mode(pilot, "profiles")
        assert_nothing_raw(app, "profiles")
        await step(pilot, app, "profile switcher", "f2")
        await step(pilot, app, "switcher closed", "escape")
        await step(pilot, app, "command palette", "ctrl+p")
        await step(pilot, app, "palette closed", "escape")

        app.notify("server says" + HOSTILE, title="title" + HOSTILE)
        await pilot.pause()
        assert_nothing_raw(app, "a notification of server text")
        assert not any(ch in RAW_CHARS for m in messages(app) for ch in m)


@pytest.mark.parametrize("case", ["error-escapes", "unauthorized-escapes"])
async def test_error_bodies_with_escapes_are_drawn_escaped(make_app, case: str) -> None:  # type: ignore[no-untyped-def]
    app = await on_hostile_server(make_app(), case)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        shown = assert_nothing_raw(app, f"{case}: inbox")
        assert "\\x1b" in shown
        await open_mode(pilot, "batch")
        await submit_id(pilot, BATCH_ID)
        assert "\\x1b" in assert_nothing_raw(app, f"{case}: batch")
        await open_mode(pilot, "quote")
        await submit_id(pilot, ONRAMP_ID)
        assert "\\x1b" in assert_nothing_raw(app, f"{case}: quote")
        await run_metric(pilot, METRIC_ID)
        assert "\\x1b" in assert_nothing_raw(app, f"{case}: metrics")


# --- links and the clipboard -------------------------------------------------------------------


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://evil.example/answer",
        "http://127.0.0.1.evil.example/",
        "ssh://host/",
        "https://ok.example/\x1b]52;c;cGFzdGVk\x07",
        "https://ok.example/\u202egnp.exe",
        "",
    ],
)
def test_only_https_and_loopback_links_pass(link: str) -> None:
    with pytest.raises(LinkRefused) as refused:
        checked_link(link, "hosted reply page")
    assert "hosted reply page" in str(refused.value)
    assert not any(ch in RAW_CHARS for ch in str(refused.value))


def test_https_and_loopback_http_links_are_kept() -> None:
    assert checked_link("https://hosted.example/rfi/1?t=abc") == "https://hosted.example/rfi/1?t=abc"
    assert checked_link("http://127.0.0.1:8787/answer").startswith("http://127.0.0.1:8787/")


async def test_open_and_copy_go_through_the_link_check(make_app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    opened = browser(monkeypatch)
    app = make_app(ping_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        app.open_link("javascript:alert(document.cookie)", "hosted reply page")
        app.copy_link("javascript:alert(document.cookie)", "hosted link")
        await pilot.pause()
        assert opened == [] and app.clipboard == ""
        said = messages(app)
        assert any(m.startswith("Link not opened: The hosted reply page was refused.") for m in said), said
        assert any(m.startswith("Link not copied") for m in said), said

        app.open_link("https://hosted.example/rfi/7", "hosted reply page")
        app.copy_link("https://hosted.example/rfi/7", "hosted link")
        await pilot.pause()
        assert opened == ["https://hosted.example/rfi/7"]
        assert app.clipboard == "https://hosted.example/rfi/7"

        app.copy_with_notice("id\x1b]52;c;cGFzdGVk\x07\u202e", "the \x1b[31mID")
        await pilot.pause()
        assert app.clipboard == "id\\x1b]52;c;cGFzdGVk\\x07\\u202e"
        assert "Not copied: The \\x1b[31mID was not copied: no terminal is attached to take it." in messages(app)


# --- duplicates ------------------------------------------------------------------------------


async def test_duplicate_ids_are_shown_once_and_counted(make_app) -> None:  # type: ignore[no-untyped-def]
    app = await on_hostile_server(make_app(), "duplicate-ids")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        assert table.row_count == 3 and table.duplicates_hidden == 2
        assert any("2 duplicates hidden" in m for m in messages(app)), messages(app)

        await pilot.press("enter")
        await wait_for_workers(pilot)
        items = app.screen.query_one(RfiItemsTable)
        assert items.row_count == 2 and items.duplicates == 1
        assert any("1 duplicate hidden" in m for m in messages(app)), messages(app)


# --- huge but legal payloads -------------------------------------------------------------------


async def test_100000_recipients_show_at_once_and_keys_answer(make_app) -> None:  # type: ignore[no-untyped-def]
    app = await on_hostile_server(make_app(opens_on="batch", ping_on_start=False), "big-batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "batch")
        await submit_id(pilot, BATCH_ID)
        summary = static_text(app, "#batch-summary")
        assert summary.startswith("100,000 recipients, total 5,000,075,000.00 USDC"), summary
        table = app.screen.query_one(RecipientsTable)
        assert table.total_rows == 100_000 and table.row_count <= table.window
        table.focus()

        await answered(pilot, "down", lambda: table.position == 1)
        await answered(pilot, "ctrl+end", lambda: table.position == 99_999)
        assert str(table.get_row_at(table.cursor_row)[0]).strip() == "100,000"
        assert "of 100,000" in str(table.border_subtitle)
        await answered(pilot, "pageup", lambda: (table.position or 0) < 99_999)
        await answered(pilot, "ctrl+home", lambda: table.position == 0)
        await answered(pilot, "1", lambda: app.current_mode == "inbox")


async def test_a_round_of_10000_items_opens_and_keys_answer(make_app) -> None:  # type: ignore[no-untyped-def]
    app = await on_hostile_server(make_app(ping_on_start=False), "big-round")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await wait_for_workers(pilot)
        items = app.screen.query_one(RfiItemsTable)
        assert items.total_rows == 10_000 and items.row_count <= items.window
        items.focus()
        await answered(pilot, "down", lambda: items.position == 1)
        await answered(pilot, "ctrl+end", lambda: items.position == 9_999)
        highlighted = items.highlighted
        assert highlighted is not None and highlighted.label == "Item 9999"
        await answered(pilot, "escape", lambda: isinstance(app.screen.query(InboxTable).first(None), InboxTable))


async def test_the_window_slides_with_every_navigation_key() -> None:
    from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield WindowedTable(window=20, id="t")

    async with One().run_test(size=(40, 12)) as pilot:
        table = pilot.app.query_one(WindowedTable)
        table.add_column("n", key="n")
        table.show_rows(1000, lambda i: TableRow((Text(str(i)),), key=str(i)))
        table.focus()
        await pilot.pause()
        for _ in range(25):
            await pilot.press("down")
        assert table.position == 25 and table.window_start > 0
        await pilot.press("pagedown")
        assert table.position is not None and table.position > 25
        await pilot.press("ctrl+end")
        assert table.position == 999 and table.window_end == 1000
        assert table.window_label() == "rows 981–1,000 of 1,000"
        await pilot.press("up")
        assert table.position == 998
        await pilot.press("ctrl+home")
        assert table.position == 0 and table.window_start == 0
        table.clear()
        await pilot.press("ctrl+end")
        assert table.row_count == 0 and table.position is None  # a cleared table never slides back


# --- numbers past what Decimal and float can take ----------------------------------------------------


async def test_extreme_numbers_read_unreadable_and_keep_the_screen(make_app) -> None:  # type: ignore[no-untyped-def]
    app = await on_hostile_server(make_app(ping_on_start=False), "extreme-numbers")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        inbox = app.screen.query_one(InboxTable)
        assert inbox.row_count == 2  # createdAt 0001-01-01T00:00:00+14:00 and a deadline in 9999 render

        await open_mode(pilot, "batch")
        await submit_id(pilot, BATCH_ID)
        table = app.screen.query_one(RecipientsTable)
        amounts = [str(table.get_row_at(n)[2]).strip() for n in range(table.row_count)]
        assert amounts[0].startswith("unreadable") and amounts[3].startswith("unreadable")
        assert amounts[1] == "1,000,000,000,000,000,000,000,000,000,000.00 USDC"
        assert amounts[4] == "12.50 USDC"
        assert "total unknown: 2 amounts are unreadable" in static_text(app, "#batch-summary")
        assert "POLYGON" in assert_nothing_raw(app, "batch with unreadable amounts")  # the rest stays

        await open_mode(pilot, "quote")
        await submit_id(pilot, ONRAMP_ID)  # rate 1e-30
        await pilot.press("r")  # rate 1e30
        await wait_for_workers(pilot)
        quote = app.screen.query_one(QuoteTable)
        rate = [str(c) for c in quote.get_row("rate")]
        assert rate[1].strip() == "1,000,000,000,000,000,000,000,000,000,000"
        # 1e30 - 1e-30, exactly; the percent is 1e62, which Decimal's default context cannot quantize.
        assert rate[-1].startswith("▲ +999,999,999,999,999,999,999,999,999,999.999") and rate[-1].endswith("(+1E+62%)")
        send = [str(c) for c in quote.get_row("send_gross")]
        assert send[1].strip().startswith("unreadable")

        await run_metric(pilot, METRIC_ID)
        shown = assert_nothing_raw(app, "metric with 1e400")
        assert "offramp" in shown
        await pilot.press("t")
        await wait_for_workers(pilot)
        assert "1E+400" in assert_nothing_raw(app, "metric table with 1e400")
