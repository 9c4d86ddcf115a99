"""The team's process in the console (local record, pilot tests): the steps in the request's detail and on the
inbox's highlighted row, each offered only when it makes sense, each asking for its note; the release question;
the review queue and the banner's count; the palette's words; the new dialogs' snapshots at 80x24 and 200x50."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.services.inbox_pager import REVIEW
from stablepay_console.storage.record_types import TeamMember
from stablepay_console.tui.modals.assign_picker import AssignPicker
from stablepay_console.tui.modals.confirm import ConfirmScreen
from stablepay_console.tui.modals.step_note import StepNoteDialog
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import wait_for_workers
from tests.test_layout_sizes import build_app, screen_lines
from tests.test_triage_tui import until


def text_of(app: Any) -> str:
    return "\n".join(screen_lines(app))


def footer(app: Any) -> str:
    return screen_lines(app)[-1]


def issued(app: Any) -> list[Any]:
    return [r for r in app.screen.query_one(InboxTable).order if r.status == "issued" and r.round is not None]


async def recorded(app: Any) -> None:
    """What the inbox fetched is in the record (a step belongs to the round the record saw last)."""
    await asyncio.to_thread(app.services.record.flush)


async def open_detail(pilot: Pilot[Any], rfi: Any) -> RfiDetailScreen:
    screen = RfiDetailScreen(rfi)
    await pilot.app.push_screen(screen)
    assert await until(pilot, lambda: screen.case is not None)
    return screen


async def made_ready_by(app: Any, rfi_id: str, who: str) -> None:
    await recorded(app)
    await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, rfi_id, author=who))
    await asyncio.wrap_future(app.services.triage.step(EMBEDDED_PROFILE, rfi_id, "ready", "checked", author=who))


async def test_steps_in_the_detail_are_offered_when_they_make_sense_and_ask_for_a_note() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        rfi = issued(app)[0]
        await recorded(app)
        screen = await open_detail(pilot, rfi)
        assert await until(pilot, lambda: "Triage: unclaimed" in text_of(app))
        assert "Mark ready" not in footer(app), "nothing to make ready before it is claimed"
        await pilot.press("R")
        await wait_for_workers(pilot)
        assert not isinstance(app.screen, StepNoteDialog), "a step not offered is not taken"
        await pilot.press("m")
        assert await until(pilot, lambda: "Triage: claimed" in text_of(app) and "R Mark ready" in footer(app))
        await pilot.press("R")
        assert await until(pilot, lambda: isinstance(app.screen, StepNoteDialog))
        await pilot.press(*"statement and ID checked", "enter")
        assert await until(pilot, lambda: "Triage: ready" in text_of(app))
        text = text_of(app)
        assert "made ready by" in text and "Mark ready" not in footer(app) and "X Reject" in footer(app)
        screen.query_one("#rfi-steps").scroll_visible(animate=False, top=True)
        assert await until(pilot, lambda: "statement and ID checked" in text_of(app)), "the step history"
        assert screen.case is not None and [s.step for s in screen.case.steps] == ["ready"]


async def test_releasing_your_claim_on_a_ready_answer_asks_first() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        rfi = issued(app)[0]
        await recorded(app)
        await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, rfi.id))
        await asyncio.wrap_future(app.services.triage.step(EMBEDDED_PROFILE, rfi.id, "ready"))
        await open_detail(pilot, rfi)
        await pilot.press("m")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen)), "asked before releasing"
        assert "Release your claim?" in text_of(app) and "is ready" in text_of(app)
        await pilot.press("n")
        await wait_for_workers(pilot)
        held = await asyncio.wrap_future(app.services.notes.claim_of(EMBEDDED_PROFILE.name, rfi.id))
        assert held is not None, "No keeps the claim"
        await pilot.press("m")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await until(pilot, lambda: "nobody holds it" in text_of(app))
        assert await asyncio.wrap_future(app.services.notes.claim_of(EMBEDDED_PROFILE.name, rfi.id)) is None


async def test_the_review_queue_holds_what_someone_else_made_ready_and_the_banner_counts_it() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        theirs, mine = issued(app)[:2]
        await made_ready_by(app, theirs.id, "ana")
        await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, mine.id))
        await asyncio.wrap_future(app.services.triage.step(EMBEDDED_PROFILE, mine.id, "ready"))
        await pilot.press("v")
        table = app.screen.query_one(InboxTable)
        assert await until(pilot, lambda: app.screen.paging.view == REVIEW and [r.id for r in table.order] == [
            theirs.id], rounds=300), "only what someone else made ready: never your own"
        assert await until(pilot, lambda: "1 to review" in screen_lines(app)[0])
        assert await until(pilot, lambda: str(table.get_cell(theirs.id, "step")) == "ready ·ana")
        assert "awaiting my review" in text_of(app)
        assert "A Approve" in footer(app) and "R Mark ready" not in footer(app), "the row's steps, in the footer"
        await pilot.press("ctrl+p")
        await pilot.press(*"Approve")
        assert await until(pilot, lambda: "(key A)" in text_of(app)), "the palette offers Approve on the row"
        await pilot.press("enter")
        assert await until(pilot, lambda: isinstance(app.screen, StepNoteDialog))
        await pilot.press("enter")
        assert await until(pilot, lambda: app.review_count == 0 and table.order == [], rounds=300)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_snapshot_the_step_note_dialog(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for_workers(pilot)
        rfi = issued(pilot.app)[0]
        await recorded(pilot.app)
        await asyncio.wrap_future(pilot.app.services.notes.claim(EMBEDDED_PROFILE, rfi.id))  # type: ignore[attr-defined]
        await open_detail(pilot, rfi)
        await pilot.press("R")
        assert await until(pilot, lambda: isinstance(pilot.app.screen, StepNoteDialog))
        field = pilot.app.screen.query_one(Input)
        field.cursor_blink = False  # the cursor shown steadily: a blink's off phase is no change of the screen
        assert await until(pilot, lambda: field.has_focus)
        await pilot.pause()

    assert snap_compare(build_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_snapshot_the_review_queue(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for_workers(pilot)
        first, second = issued(pilot.app)[:2]
        # The levels set (`record policy`): the queue shows the time left to each one's approve-by level.
        await asyncio.wrap_future(pilot.app.services.triage.set_policy(EMBEDDED_PROFILE))
        await made_ready_by(pilot.app, first.id, "ana")
        await made_ready_by(pilot.app, second.id, "bob")
        await pilot.press("v")
        table = pilot.app.screen.query_one(InboxTable)
        assert await until(pilot, lambda: len(table.order) == 2 and "2 to review" in screen_lines(pilot.app)[0],
                           rounds=300)
        await wait_for_workers(pilot)

    assert snap_compare(build_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_snapshot_the_assign_picker(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for_workers(pilot)
        rfi = issued(pilot.app)[0]
        team = [TeamMember("alice"), TeamMember("bob"), TeamMember("carol", lead=True)]
        await pilot.app.push_screen(AssignPicker(rfi.id, team, "alice"))
        await wait_for_workers(pilot)

    assert snap_compare(build_app(), terminal_size=size, run_before=run_before)


async def test_an_empty_review_queue_says_nothing_awaits_you() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("v")
        assert await until(pilot, lambda: "Nothing awaits your review" in text_of(app), rounds=300)
        await pilot.press("v")
        assert await until(pilot, lambda: "View: all requests" in text_of(app))


async def test_a_step_is_kept_in_the_round_on_screen_and_refused_when_the_record_knows_a_newer_one() -> None:
    """The console sends the round it shows (number and ID): compliance asked again since the detail was drawn,
    so the record has round 2, and the step meant for round 1 is refused in words instead of landing in round 2."""
    from datetime import datetime, timezone

    from stablepay_console.services.history import sighting
    from stablepay_console.storage.record_types import SeenPage

    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        rfi, later = issued(app)[0], issued(app)[1]
        await recorded(app)
        screen = await open_detail(pilot, later)
        assert await until(pilot, lambda: "Triage: unclaimed" in text_of(app))
        await pilot.press("m")
        assert await until(pilot, lambda: "Triage: claimed" in text_of(app) and "R Mark ready" in footer(app))
        await pilot.press("R")
        assert await until(pilot, lambda: isinstance(app.screen, StepNoteDialog))
        await pilot.press("enter")
        assert await until(pilot, lambda: "Triage: ready" in text_of(app))
        kept = app.services.record.call(lambda record: record.request_steps("embedded", later.id))
        assert [s.round_no for s in kept] == [later.round.round]
        app.pop_screen()
        await pilot.pause()

        screen = await open_detail(pilot, rfi)
        assert await until(pilot, lambda: "Triage: unclaimed" in text_of(app))
        await pilot.press("m")
        assert await until(pilot, lambda: "Triage: claimed" in text_of(app) and "R Mark ready" in footer(app))
        asked_again = rfi.model_copy(update={"current_round": rfi.round.round + 1, "round": rfi.round.model_copy(
            update={"round": rfi.round.round + 1, "id": "99999999-9999-4999-8999-999999999999"})})
        page = SeenPage("embedded", EMBEDDED_PROFILE.environment, datetime.now(timezone.utc), (sighting(asked_again),))
        app.services.record.call(lambda record: record.observe([page]))
        await pilot.press("R")
        assert await until(pilot, lambda: isinstance(app.screen, StepNoteDialog))
        await pilot.press("enter")
        said = f"is in round {rfi.round.round + 1} now; the console showed round {rfi.round.round}: read it again"
        assert await until(pilot, lambda: any(said in n.message for n in app.said)), \
            [n.message for n in app.said]
        assert app.services.record.call(lambda record: record.request_steps("embedded", rfi.id)) == []
        assert screen.rfi is rfi
