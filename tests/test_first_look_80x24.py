"""What a new user met at 80x24 (issue 13, section 4), read off the screen as they would.

Batch lookup shows at least five recipients; the banner keeps the ping and the deadline count apart;
the inbox's filter line keeps "user any" and "View:" apart; a footer shows each key whole or not at
all; a document type in the RFI detail breaks between words or after an underscore, never inside one.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from stablepay_console.sandbox import data
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.batch.recipients import RecipientsTable
from stablepay_console.tui.widgets.footer import ConsoleFooter
from stablepay_console.tui.widgets.rfi.items import RfiItemsTable
from tests.conftest import open_mode, submit_id, wait_for_workers
from tests.test_layout_sizes import assert_chrome, build_app, press, screen_lines
from tests.test_rfi_detail import make_rfi

SMALL = (80, 24)
SIZES = [(80, 24), (100, 30), (120, 40), (200, 50)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]


def footer_line_keys(app: Any) -> tuple[str, list[str]]:
    """The footer's text left of help and quit, and the labels of the keys shown there."""
    footer = app.screen.query_one(ConsoleFooter)
    shown = [
        f"{key.key_display} {key.description}"
        for key in footer.query(FooterKey)
        if "-pinned" not in key.classes and "-command-palette" not in key.classes and key.visible and key.display
    ]
    left = screen_lines(app)[-1].split("▏")[0]
    return left, shown


def assert_footer_whole(app: Any, where: str) -> list[str]:
    """Every word in the footer belongs to a key shown whole: nothing like "t Tr" at the pinned edge."""
    left, shown = footer_line_keys(app)
    assert left.split() == " ".join(shown).split(), f"{where}: the footer reads {left!r}, its keys are {shown}"
    assert_chrome(app, where)
    return shown


# --- batch lookup ----------------------------------------------------------------------------------------------------


async def test_batch_lookup_shows_at_least_five_recipients() -> None:
    app = build_app(opens_on="batch")
    async with app.run_test(size=SMALL) as pilot:
        await open_mode(pilot, "batch")
        screen: Any = await submit_id(pilot, data.BATCH_50_ID)
        table = screen.query_one(RecipientsTable)
        lines = screen_lines(app)
        region = table.region
        inside = lines[region.y : region.bottom]
        recipients = screen.transfer.details.destination.batch
        shown = [r for r in recipients[:10] if any(r.user_id in line for line in inside)]
        assert len(shown) >= 5, "\n".join(lines)
        assert "50 recipients, total " in "\n".join(lines)
        assert any("Status" in line and "COMPLETED" in line for line in lines), "the status still shows"
        assert_footer_whole(app, "batch after a lookup")


# --- the banner ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_banner_separates_the_ping_from_the_deadline_count(size: tuple[int, int]) -> None:
    app = build_app(ping_on_start=True, radar=True)
    async with app.run_test(size=size) as pilot:
        await wait_for_workers(pilot)
        assert app.radar_label and "overdue" in app.radar_label
        top = screen_lines(app)[0]
        # At 80 columns the ping's words give way before the due count (banner.GIVE_WAY); its ✓ stays.
        assert re.search(r"ping ✓( pong)? · +\d+ (overdue|due)\b", top), top
        assert not re.search(r"(pong|✓) \d", top)
        assert not top.rstrip().endswith("·"), f"no separator left dangling: {top!r}"
        count = re.split(r"ping ✓(?: pong)? · ", top)[1]
        if size[0] < 110:
            assert re.match(r"\d+ overdue · \d+ due\b", count), f"narrow: overdue first, and due kept: {top!r}"
        elif size[0] >= 160:
            assert count.startswith(f" {app.radar_label} "), f"wide: the whole count: {top!r}"
        else:  # the service levels breached (the least urgent part) give way to the server's address
            deadlines = " · ".join(part for part in app.radar_label.split(" · ") if not part.endswith("breached"))
            assert count.startswith(f" {deadlines} "), f"wide: the whole deadline count: {top!r}"


# --- the inbox's filter line -----------------------------------------------------------------------------------------


async def test_filter_line_separates_the_filters_from_the_view() -> None:
    app = build_app()
    async with app.run_test(size=SMALL) as pilot:
        await wait_for_workers(pilot)
        line = next(line for line in screen_lines(app) if "Filters:" in line)
        assert "user any │ View: all requests" in line, line
        await press(pilot, "exclamation_mark")
        line = next(line for line in screen_lines(app) if "Filters:" in line)
        assert "user any │ View: needs action" in line, line


# --- the RFI detail --------------------------------------------------------------------------------------------------


async def open_detail(pilot: Pilot[Any]) -> RfiDetailScreen:
    await wait_for_workers(pilot)
    screen = RfiDetailScreen(make_rfi())
    await pilot.app.push_screen(screen)
    await wait_for_workers(pilot)
    return screen


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_detail_footer_never_cuts_a_key(size: tuple[int, int]) -> None:
    app = build_app()
    async with app.run_test(size=size) as pilot:
        await open_detail(pilot)
        shown = assert_footer_whole(app, f"detail at {size}")
        assert shown[:2] == ["esc Back", "o Open link"], shown
        if size == SMALL:
            assert "t Transfer ID" not in shown, "at 80 columns it does not fit: hidden, not cut"
        await pilot.resize_terminal(200, 50)
        await wait_for_workers(pilot)
        assert "e Evidence" in assert_footer_whole(app, "detail widened to 200x50"), "a hidden key comes back"


def rejoined(lines: list[str]) -> str:
    """The lines put back together as if each break were a space, or nothing after an underscore."""
    text = ""
    for line in lines:
        text += ("" if not text or text.endswith("_") else " ") + line
    return text


async def test_detail_document_type_breaks_between_words() -> None:
    app = build_app()
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        table = screen.query_one(RfiItemsTable)
        await pilot.press("tab")  # the items, below the request's details
        await pilot.pause()
        at = table.get_column_index("type")
        width = table.ordered_columns[at].width
        lines = table.get_cell_at(Coordinate(1, at)).plain.split("\n")
        assert len(lines) > 1 and all(len(line) <= width for line in lines), lines
        assert rejoined(lines) == "Document (untyped: utility_bill_scan)", f"a word was split: {lines}"
        on_screen = screen_lines(app)
        for line in lines:
            assert any(line in shown for shown in on_screen), f"{line!r} is not on screen"
        assert not any(shown.rstrip().endswith("utility_bill_sca") for shown in on_screen)


@pytest.mark.parametrize("width", [80, 60, 46])
async def test_the_review_count_gives_way_last_after_the_overdue_count(width: int) -> None:
    app = build_app(ping_on_start=True, radar=True)
    async with app.run_test(size=(width, 24)) as pilot:
        await wait_for_workers(pilot)
        assert app.radar_label and "overdue" in app.radar_label
        app.review_count = 3
        await wait_for_workers(pilot)
        top = screen_lines(app)[0]
        assert "3 to review" in top, f"kept at {width} columns: {top!r}"
        if width < 60:
            assert "overdue" not in top, f"the overdue count gave way first: {top!r}"
