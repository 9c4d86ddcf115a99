"""Find a request by its ID: `rfis show ID` from the shell, "Go to request" (key i, the palette) in the console,
the ID column from 160 columns, and the inbox sorted by deadline or by created.

The API has no read of one request: the command and the console read the record first (what it last saw narrows
the list), then the account's pages, stopping at the first match. The requests the sandbox received are counted.
"""

from __future__ import annotations

import json

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from stablepay_console.cli.main import main
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.modals.go_to import GoToDialog
from stablepay_console.tui.screens.inbox import InboxScreen
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import until, wait_for_workers

UNKNOWN = "0badc0de-0000-4000-8000-000000000000"
PAGES = "/v2/rfis"


@pytest.fixture
def shell(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The shell's commands on the embedded profile, served by this test's sandbox (its requests counted)."""
    from stablepay_console.wiring import Services

    monkeypatch.setattr("stablepay_console.cli.session.services_for", lambda args: Services(sandbox=sandbox))
    return sandbox


def listed(sandbox: Sandbox) -> int:
    return sum(1 for _, path in sandbox.api_calls() if path == PAGES)


# --- rfis show ---------------------------------------------------------------------------------------------------


def test_show_reads_the_account_to_the_first_match_and_prints_the_api_fields(
    shell: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    wanted = shell.data.rfis[150]  # on the account's second page of 100
    assert main(["rfis", "show", wanted.id, "--json"]) == 0
    out, err = capsys.readouterr()
    shown = json.loads(out)
    assert shown["id"] == wanted.id and shown["subjectType"] == wanted.subject_type
    assert {"createdAt", "currentRound", "userId", "round"} <= set(shown), "the API's own field names"
    assert listed(shell) == 2, "pages 1 and 2, not the third"
    assert "2 pages read" in err


def test_show_reads_what_the_record_saw_first(shell: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    wanted = shell.data.rfis[230]  # the account's third page
    assert main(["rfis", "show", wanted.id]) == 0
    assert listed(shell) == 3
    capsys.readouterr()
    assert main(["rfis", "show", wanted.id]) == 0, "now in the record"
    out, _ = capsys.readouterr()
    assert listed(shell) == 4, "one page: the list of its user and kind"
    assert wanted.id in out and wanted.status in out


def test_an_unknown_request_is_exit_1_with_a_message(shell: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rfis", "show", UNKNOWN]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"No request {UNKNOWN} in the account (3 pages read)" in err
    assert listed(shell) == 3, "every page once, then no more"


@pytest.mark.parametrize(("typed", "said"), [("616499c9", "36 characters"), ("not a uuid", "contains spaces"),
                                              (UNKNOWN[:-1] + "g", "not a hexadecimal digit")])
def test_a_malformed_id_is_exit_2_and_nothing_is_sent(
    shell: Sandbox, typed: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["rfis", "show", typed])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err
    assert shell.api_calls() == []


# --- the console -------------------------------------------------------------------------------------------------


async def go_to(pilot: Pilot[object], typed: str) -> None:
    await pilot.press("i")
    await until(pilot, lambda: isinstance(pilot.app.screen, GoToDialog), "the dialog never opened")
    pilot.app.screen.query_one(Input).value = typed
    await pilot.press("enter")
    await wait_for_workers(pilot)


async def test_go_to_a_whole_id_beyond_the_pages_read_opens_its_detail(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wanted = sandbox.data.rfis[170]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        await go_to(pilot, f"  {wanted.id} ")  # pasted from an email, with its spaces
        await until(pilot, lambda: isinstance(app.screen, RfiDetailScreen), "the request never opened")
        assert app.screen.rfi.id == wanted.id
        assert app.screen.provenance is not None and wanted.id in app.screen.provenance.asked


async def test_go_to_the_prefix_shown_and_what_it_cannot_open(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wanted = sandbox.data.rfis[3]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        sent = len(sandbox.api_calls())
        await go_to(pilot, "00000000")
        error = str(app.screen.query_one("#goto-error", Static).render())
        assert "No request this console has seen starts with 00000000" in error
        app.screen.query_one(Input).value = "12ab"
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert "must be a UUID of 36 characters" in str(app.screen.query_one("#goto-error", Static).render())
        assert len(sandbox.api_calls()) == sent, "nothing sent for an unknown prefix or a malformed ID"
        app.screen.query_one(Input).value = wanted.id[:8].upper()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, RfiDetailScreen), "the prefix did not open it")
        assert app.screen.rfi.id == wanted.id


async def test_go_to_is_in_the_palette_from_any_screen(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import open_mode

    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_mode(pilot, "batch")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"go to request")
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, GoToDialog), "the palette did not open the dialog")
        assert app.current_mode == "inbox"


async def test_the_inbox_sorts_by_deadline_or_by_created(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        page = sandbox.data.rfis[:20]
        dated = sorted((r for r in page if r.deadline is not None), key=lambda r: r.deadline)  # type: ignore[arg-type,return-value]
        await pilot.press("o")
        await pilot.pause()
        ids = [str(row.key.value) for row in screen.table.ordered_rows]
        assert ids[: len(dated)] == [r.id for r in dated] and len(ids) == 20
        assert "Sorted: deadline first (this page)" in str(screen.query_one("#inbox-active", Static).render())
        await pilot.press("o")
        await pilot.pause()
        assert [str(row.key.value) for row in screen.table.ordered_rows] == [r.id for r in page]
        assert "Sorted" not in str(screen.query_one("#inbox-active", Static).render())


@pytest.mark.parametrize(("width", "shown"), [(160, True), (120, False)])
async def test_the_request_id_is_a_column_from_160_columns(make_app, sandbox: Sandbox, width: int, shown: bool) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(width, 40)) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        assert ("id" in table.shown_columns) is shown
        if shown:
            first = sandbox.data.rfis[0]
            assert str(table.get_cell(first.id, "id")) == first.id, "the whole ID"
            assert {"status", "deadline", "step"} <= set(table.shown_columns)
