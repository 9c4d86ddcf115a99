"""The RFI inbox: filters, invalid input, pagination, loading, failures, needs action, export, snapshots."""

from __future__ import annotations

import csv
from datetime import timedelta
from pathlib import Path

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from stablepay_console.api import FieldError, ValidationFailed
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.modals.export_dialog import ExportDialog
from stablepay_console.tui.screens.inbox import InboxScreen
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.inbox.export_progress import ExportProgress
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.held_latency import hold_latency

SIZE = (120, 40)


def inbox(pilot: Pilot[object]) -> InboxScreen:
    screen = pilot.app.screen
    assert isinstance(screen, InboxScreen)
    return screen


def line(pilot: Pilot[object], widget_id: str) -> str:
    return str(pilot.app.screen.query_one(f"#{widget_id}", Static).render())


def column(pilot: Pilot[object], key: str) -> list[Text]:
    table = pilot.app.screen.query_one(InboxTable)
    return [table.get_cell(row.key, key) for row in table.ordered_rows]


def row_ids(pilot: Pilot[object]) -> list[str]:
    table = pilot.app.screen.query_one(InboxTable)
    return [str(row.key.value) for row in table.ordered_rows]


async def type_into(pilot: Pilot[object], selector: str, text: str) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    field.value = text
    await pilot.press("enter")
    await wait_for_workers(pilot)


# --- the table -------------------------------------------------------------------


async def test_first_page_newest_first_with_every_column(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        assert row_ids(pilot) == [r.id for r in sandbox.data.rfis[:20]]
        assert "Page 1 of 12, 240 total" in line(pilot, "inbox-status")
        assert "status any · kind any · user any" in line(pilot, "inbox-active")
        first = sandbox.data.rfis[0]
        table = app.screen.query_one(InboxTable)
        cells = [str(c) for c in table.get_row(first.id)]
        assert cells[0] == "51m 00s ago" and "at" not in table.shown_columns  # the absolute time goes first
        assert cells[1:5] == [first.status, first.kind, first.subject_type, first.user_id[:8]]
        deadline = table.get_cell(first.id, "deadline")
        assert str(deadline) == "in 10h 08m" and "red" in str(deadline.style)
        held = next(r for r in sandbox.data.rfis[:20] if r.kind == "transaction")
        assert str(table.get_cell(held.id, "held")) == f"{held.transfer_id[:8]} {held.flow_type}"


async def test_a_read_that_ends_as_the_console_closes_draws_nothing_and_raises_nothing(make_app) -> None:  # type: ignore[no-untyped-def]
    """The team's claims, read from the record, can come back while the console is closing and the inbox's widgets
    are already gone (seen under load: a traceback at exit). The inbox then draws nothing."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        await screen.query_one(InboxTable).remove()
        screen.render_state()
        assert not screen.query(InboxTable)


async def test_deadline_column_overdue_far_and_blank(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        for rfi in sandbox.data.rfis[:20]:
            cell = table.get_cell(rfi.id, "deadline")
            if rfi.round is not None and rfi.round.submitted_at is not None:
                assert str(cell) == "answered"  # a reply is in: no countdown, no alarm
            elif rfi.deadline is None:
                said = "no deadline" if rfi.status == "issued" else ""
                assert str(cell) == said, "an open round with no date says so"
            elif rfi.deadline <= FIXED_NOW:
                assert str(cell) == "overdue", "a passed deadline is overdue, never a status's word"
            elif rfi.deadline - FIXED_NOW > timedelta(hours=24):
                assert str(cell).startswith("in ") and "red" not in str(cell.style)


async def test_a_passed_deadline_is_overdue_and_offers_no_link(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    """A round whose deadline passed (the status may still say issued) reads "overdue", never "expired" (a
    status's word), and its Round cell offers no `link`: a reply there would be rejected. An open one does."""
    from stablepay_console.tui.widgets.inbox.table import round_cell

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        with_link = [r for r in table.order if r.round is not None and r.round.link and r.round.expires_at]
        assert with_link
        row = with_link[0]
        later = row.round.expires_at + timedelta(minutes=5)
        assert str(round_cell(row, later)) == str(row.current_round), "no link once the deadline passed"
        assert str(round_cell(row, row.round.expires_at - timedelta(minutes=5))).endswith(" link")
        cell = str(table.get_cell(row.id, "round"))
        assert cell.endswith(" link") == (row.round.expires_at > FIXED_NOW), cell


async def test_deadline_countdown_ticks_with_the_clock(sandbox: Sandbox) -> None:
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.wiring import Services

    now = [FIXED_NOW]
    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=sandbox), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        first = sandbox.data.rfis[0].id
        calls = len(sandbox.api_calls())
        now[0] = FIXED_NOW + timedelta(hours=10, minutes=7, seconds=30)
        inbox(pilot).tick()
        await pilot.pause()
        assert str(app.screen.query_one(InboxTable).get_cell(first, "deadline")) == "in 0m 30s"
        now[0] = FIXED_NOW + timedelta(hours=11)
        inbox(pilot).tick()
        await pilot.pause()
        assert str(app.screen.query_one(InboxTable).get_cell(first, "deadline")) == "overdue"
        assert len(sandbox.api_calls()) == calls  # ticking never asks the server


async def test_unknown_status_is_shown_raw_and_uncoloured(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    sandbox.data.rfis[0] = sandbox.data.rfis[0].model_copy(update={"status": "escalated"})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        status = column(pilot, "status")
        assert str(status[0]) == "escalated" and not str(status[0].style)
        assert str(status[1]) == "issued" and "yellow" in str(status[1].style)


# --- filters ---------------------------------------------------------------------


async def test_status_filter_from_keyboard_returns_to_first_page(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("n")
        await wait_for_workers(pilot)
        assert "Page 2 of 12" in line(pilot, "inbox-status")
        await pilot.press("s")
        await wait_for_workers(pilot)
        issued = [r for r in sandbox.data.rfis if r.status == "issued"]
        assert row_ids(pilot) == [r.id for r in issued[:20]]
        assert f"Page 1 of {-(-len(issued) // 20)}, {len(issued)} total" in line(pilot, "inbox-status")
        assert "status issued" in line(pilot, "inbox-active")
        assert app.screen.query_one("#filter-status", Select).value == "issued"
        await pilot.press("k", "k")
        await wait_for_workers(pilot)
        expected = [r.id for r in issued if r.kind == "transaction"][:20]
        assert row_ids(pilot) == expected
        assert "status issued · kind transaction" in line(pilot, "inbox-active")
        await pilot.press("x")
        await wait_for_workers(pilot)
        assert "status any · kind any · user any" in line(pilot, "inbox-active")
        assert "240 total" in line(pilot, "inbox-status")


async def test_filter_bar_select_sets_kind(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("slash")
        assert app.focused is app.screen.query_one("#filter-status")
        app.screen.query_one("#filter-kind", Select).value = "onboarding"
        await wait_for_workers(pilot)
        onboarding = [r for r in sandbox.data.rfis if r.kind == "onboarding"]
        assert row_ids(pilot) == [r.id for r in onboarding[:20]]
        assert f"{len(onboarding)} total" in line(pilot, "inbox-status")


async def test_user_id_that_is_not_a_uuid_is_refused_before_any_request(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        before = list(sandbox.api_calls())
        shown = row_ids(pilot)
        await pilot.press("u")
        assert app.focused is app.screen.query_one("#filter-user")
        await type_into(pilot, "#filter-user", "0cb1e29c-not-a-uuid")
        error = line(pilot, "filter-error")
        assert "user ID" in error and "UUID" in error
        assert app.screen.query_one("#filter-error").display
        assert sandbox.api_calls() == before
        assert row_ids(pilot) == shown
        assert "user any" in line(pilot, "inbox-active")


async def test_valid_user_id_filters_and_is_shown(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    user = sandbox.data.rfis[0].user_id
    assert user is not None
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await type_into(pilot, "#filter-user", "  " + user.upper() + " ")
        mine = [r.id for r in sandbox.data.rfis if r.user_id == user]
        assert row_ids(pilot) == mine[:20]
        assert f"user {user}" in line(pilot, "inbox-active")
        assert not app.screen.query_one("#filter-error").display


# --- pagination ------------------------------------------------------------------


async def test_pagination_edges(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        calls = len(sandbox.api_calls())
        await pilot.press("p", "g")
        await wait_for_workers(pilot)
        assert len(sandbox.api_calls()) == calls  # already on the first page: nothing sent
        await pilot.press("G")
        await wait_for_workers(pilot)
        assert "Page 12 of 12, 240 total" in line(pilot, "inbox-status")
        assert row_ids(pilot) == [r.id for r in sandbox.data.rfis[220:240]]
        calls = len(sandbox.api_calls())
        await pilot.press("n")
        await wait_for_workers(pilot)
        assert len(sandbox.api_calls()) == calls  # already on the last page
        await pilot.press("p")
        await wait_for_workers(pilot)
        assert "Page 11 of 12" in line(pilot, "inbox-status")
        await pilot.press("g")
        await wait_for_workers(pilot)
        assert "Page 1 of 12" in line(pilot, "inbox-status")


async def test_page_size_bounds(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("n")
        await wait_for_workers(pilot)
        await type_into(pilot, "#filter-limit", "7")
        assert "Page 1 of 35, 240 total · 7 per page" in line(pilot, "inbox-status")
        assert len(row_ids(pilot)) == 7
        await type_into(pilot, "#filter-limit", "100")
        await pilot.press("G")
        await wait_for_workers(pilot)
        assert "Page 3 of 3" in line(pilot, "inbox-status") and len(row_ids(pilot)) == 40
        calls = len(sandbox.api_calls())
        for bad in ("0", "101", "ten"):
            await type_into(pilot, "#filter-limit", bad)
            assert "page size" in line(pilot, "filter-error")
        assert len(sandbox.api_calls()) == calls
        assert "Page 3 of 3" in line(pilot, "inbox-status")


async def test_list_that_shrank_lands_on_the_new_last_page(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("G")
        await wait_for_workers(pilot)
        del sandbox.data.rfis[200:]
        sandbox.state._index.clear()
        await pilot.press("r")
        await wait_for_workers(pilot)
        assert "Page 10 of 10, 200 total" in line(pilot, "inbox-status")
        assert row_ids(pilot) == [r.id for r in sandbox.data.rfis[180:200]]


async def test_state_survives_switching_modes(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("s", "n")
        await wait_for_workers(pilot)
        ids = row_ids(pilot)
        await pilot.press("2")
        await wait_for_workers(pilot)
        assert app.current_mode == "batch"
        await app.switch_mode("inbox")  # (the batch screen may hold focus in an input that takes "1")
        await wait_for_workers(pilot)
        assert app.current_mode == "inbox"
        assert row_ids(pilot) == ids
        assert "Page 2 of" in line(pilot, "inbox-status")
        assert "status issued" in line(pilot, "inbox-active")


# --- loading and failures --------------------------------------------------------


async def test_loading_shows_and_keeps_the_last_page(make_app, sandbox: Sandbox, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        first_page = row_ids(pilot)
        latency = hold_latency(monkeypatch)
        sandbox.faults.latency = 30.0
        await pilot.press("G")  # the last page: not a neighbour, so not prefetched
        await pilot.pause()
        assert "Loading page 12…" in line(pilot, "inbox-status")
        assert row_ids(pilot) == first_page
        await pilot.press("down")  # the table stays usable while it loads
        assert app.screen.query_one(InboxTable).cursor_row == 1
        assert "Loading page 12…" in line(pilot, "inbox-status"), "the key was answered during the load"
        latency.end()
        await wait_for_workers(pilot)
        assert "Loading" not in line(pilot, "inbox-status")
        assert "Page 12 of 12" in line(pilot, "inbox-status")


async def test_next_page_paints_from_the_prefetch_then_revalidates(make_app, sandbox: Sandbox, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("n")
        await wait_for_workers(pilot)
        page_two = row_ids(pilot)
        await pilot.press("p")
        await wait_for_workers(pilot)
        assert row_ids(pilot) != page_two
        latency = hold_latency(monkeypatch)
        sandbox.faults.latency = 30.0
        await pilot.press("n")
        await pilot.pause()
        # Page 2 was fetched quietly after page 1: it is on screen at once, while it is checked again.
        assert row_ids(pilot) == page_two
        # Page 2 is already on screen: the line says it is being checked again, not loaded.
        said = line(pilot, "inbox-status")
        assert "Page 2 of 12" in said and "refreshing…" in said and "Loading" not in said, said
        latency.end()
        await wait_for_workers(pilot)
        assert "refreshing" not in line(pilot, "inbox-status") and row_ids(pilot) == page_two


async def test_api_failure_mid_session_keeps_the_last_good_page(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        good = row_ids(pilot)
        sandbox.faults.force = "500"
        await pilot.press("G")
        await wait_for_workers(pilot)
        error = line(pilot, "inbox-error")
        assert "Server error" in error and "Simulated internal failure" in error
        assert "Still showing status any · kind any · user any · page 1" in error
        assert row_ids(pilot) == good
        assert app.screen.query_one(InboxTable).has_class("-stale")
        assert "Page 1 of 12" in line(pilot, "inbox-status")
        sandbox.faults.clear()
        await pilot.press("n")
        await wait_for_workers(pilot)
        assert "Page 2 of 12" in line(pilot, "inbox-status")
        assert not app.screen.query_one("#inbox-error").display


async def test_validation_error_shows_field_errors(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        good = row_ids(pilot)

        async def refuse(*args: object, **kwargs: object) -> None:
            raise ValidationFailed(
                "Invalid query parameters",
                fields=[FieldError("userId", "userId must be a UUID", "invalid_uuid")],
                status=400,
                code="VALIDATION_ERROR",
            )

        app.client.list_rfis = refuse  # type: ignore[method-assign]
        await pilot.press("r")
        await wait_for_workers(pilot)
        error = line(pilot, "inbox-error")
        assert "Invalid request: Invalid query parameters" in error
        assert "userId: userId must be a UUID (invalid_uuid)" in error
        assert row_ids(pilot) == good


async def test_auto_refresh_cycles_and_is_shown(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("t")
        assert "Auto-refresh: every 15s" in line(pilot, "inbox-active")
        assert inbox(pilot).auto.seconds == 15 and inbox(pilot).auto._timer is not None
        await pilot.press("t", "t", "t")
        assert "Auto-refresh" not in line(pilot, "inbox-active")
        assert inbox(pilot).auto.seconds == 0 and inbox(pilot).auto._timer is None


# --- needs action, detail, copy --------------------------------------------------


async def test_needs_action_lists_issued_by_nearest_deadline(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("a")
        await wait_for_workers(pilot)
        issued = [r for r in sandbox.data.rfis if r.status == "issued"]
        ahead = sorted((r for r in issued if r.deadline and r.deadline > FIXED_NOW), key=lambda r: r.deadline)  # type: ignore[arg-type,return-value,operator]
        overdue = sorted(
            (r for r in issued if r.deadline and r.deadline <= FIXED_NOW),
            key=lambda r: r.deadline,  # type: ignore[arg-type,return-value]
            reverse=True,
        )
        expected = [r.id for r in ahead] + [r.id for r in overdue] + [r.id for r in issued if r.deadline is None]
        found = inbox(pilot).paging.action.current
        assert found is not None and [r.id for r in found.value] == expected
        assert row_ids(pilot) == expected[:20]
        assert app.screen.query_one(InboxTable).cursor_row == 0
        # The status selector says the filter in force: needs action means issued.
        assert app.screen.query_one("#filter-status", Select).value == "issued"
        assert f"Page 1 of {-(-len(issued) // 20)}, {len(issued)} total" in line(pilot, "inbox-status")
        assert "needs action" in line(pilot, "inbox-active") and "status issued" in line(pilot, "inbox-active")
        await pilot.press("G")
        await pilot.pause()
        assert row_ids(pilot)[-1] == expected[-1]
        await pilot.press("a")
        await pilot.pause()
        assert row_ids(pilot) == [r.id for r in sandbox.data.rfis[:20]]


async def test_enter_opens_the_highlighted_request(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RfiDetailScreen)
        assert app.screen.rfi.id == sandbox.data.rfis[1].id
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, InboxScreen)


async def test_copy_request_and_user_id(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("down", "down", "c")
        assert app.clipboard == sandbox.data.rfis[2].id
        await pilot.press("y")
        assert app.clipboard == sandbox.data.rfis[2].user_id


# --- export ----------------------------------------------------------------------


async def start_export(pilot: Pilot[object], path: str | None) -> None:
    await pilot.press("e")
    await pilot.pause()
    assert isinstance(pilot.app.screen, ExportDialog)
    if path is not None:
        pilot.app.screen.query_one("#export-path", Input).value = path
    await pilot.press("enter")
    await pilot.pause()


async def test_export_current_filter_to_csv_with_progress(make_app, sandbox: Sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("s")
        await wait_for_workers(pilot)
        reported: list[tuple[int, int]] = []
        bar = app.screen.query_one(ExportProgress)
        original = bar.progress
        bar.progress = lambda done, total: (reported.append((done, total)), original(done, total))  # type: ignore[method-assign]
        await start_export(pilot, str(tmp_path / "audit"))
        await wait_for_workers(pilot)
        issued = [r for r in sandbox.data.rfis if r.status == "issued"]
        written = tmp_path / "audit.csv"
        rows = list(csv.DictReader(written.open(encoding="utf-8")))
        assert [r["id"] for r in rows] == [r.id for r in issued]
        assert reported[-1] == (len(issued), len(issued))
        assert f"Exported {len(issued)} requests to {written}" in bar.text


async def test_export_default_name_in_current_folder(make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-format", Select).value = "json"
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).value == "rfis-all-20261120-093000.json"
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert (tmp_path / "rfis-all-20261120-093000.json").exists()


async def test_export_refuses_an_existing_file(make_app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "taken.csv").write_text("keep me")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await start_export(pilot, str(tmp_path / "taken.csv"))
        assert isinstance(app.screen, ExportDialog)
        assert "already exists" in str(app.screen.query_one("#export-error", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, InboxScreen)
        assert (tmp_path / "taken.csv").read_text() == "keep me"


async def test_export_can_be_cancelled(make_app, sandbox: Sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        sandbox.faults.latency = 5.0
        await start_export(pilot, str(tmp_path / "slow.csv"))
        assert app.screen.query_one(ExportProgress).running
        assert "Esc cancels" in app.screen.query_one(ExportProgress).text
        await pilot.press("escape")
        await wait_for_workers(pilot)
        assert not app.screen.query_one(ExportProgress).running
        assert "cancelled" in app.screen.query_one(ExportProgress).text
        assert not list(tmp_path.glob("slow.csv*"))


async def test_export_failure_says_so_and_writes_nothing(make_app, sandbox: Sandbox, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        sandbox.faults.force = "500"
        await start_export(pilot, str(tmp_path / "broken.csv"))
        await wait_for_workers(pilot)
        text = app.screen.query_one(ExportProgress).text
        assert "Export failed" in text and "Simulated internal failure" in text
        assert not list(tmp_path.glob("broken.csv*"))


# --- snapshots -------------------------------------------------------------------


def _no_blink(pilot: Pilot[object]) -> None:
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False


def test_snapshot_inbox_issued_page_two(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        await wait_for_workers(pilot)
        _no_blink(pilot)
        await pilot.press("s", "n")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(ping_on_start=False), terminal_size=SIZE, run_before=run_before)


def test_snapshot_inbox_failed_load(make_app, sandbox: Sandbox, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        await wait_for_workers(pilot)
        _no_blink(pilot)
        sandbox.faults.force = "500"
        await pilot.press("G")
        await wait_for_workers(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(ping_on_start=False), terminal_size=SIZE, run_before=run_before)


async def test_export_dialog_takes_a_date_range_and_refuses_a_bad_day(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, tmp_path: Path
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-path", Input).value = str(tmp_path / "range.csv")
        dialog.query_one("#export-after", Input).value = "2026-13-01"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is dialog, "a bad day keeps the dialog open"
        assert "is not a day (YYYY-MM-DD" in str(dialog.query_one("#export-error", Static).render())
        dialog.query_one("#export-after", Input).value = "2026-11-19"
        dialog.query_one("#export-before", Input).value = "2026-11-20"
        dialog.query_one("#export-path", Input).focus()
        await pilot.press("enter")
        await wait_for_workers(pilot)
    with (tmp_path / "range.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    day = FIXED_NOW.replace(year=2026, month=11, day=19, hour=0, minute=0, second=0)
    expected = [r.id for r in sandbox.data.rfis if day <= r.created_at < day + timedelta(days=1)]
    assert expected and [row["id"] for row in rows] == expected


async def test_the_list_shows_which_requests_still_have_an_open_hosted_link(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(inbox_page_size=20)
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        keys = [str(column.key.value) for column in table.ordered_columns]
        rounds = {row_id: str(table.get_row_at(n)[keys.index("round")]) for n, row_id in enumerate(row_ids(pilot))}
    by_id = {rfi.id: rfi for rfi in sandbox.data.rfis}
    with_link = [i for i in rounds if by_id[i].round is not None and by_id[i].round.link]  # type: ignore[union-attr]
    assert with_link and len(with_link) < len(rounds)
    for rfi_id, shown in rounds.items():
        assert shown.endswith(" link") == (rfi_id in with_link), (rfi_id, shown)
