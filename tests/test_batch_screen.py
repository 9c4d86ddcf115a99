"""Batch lookup: a support person checks that every recipient of a batch got paid."""

from __future__ import annotations

import webbrowser
from decimal import Decimal
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Select, Static

from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_50_ID, BATCH_SMALL_ID, BATCH_UNKNOWN_CHAIN_ID, ONRAMP_OPEN_ID
from stablepay_console.services.explorers import known_chain, transaction_url
from stablepay_console.storage.prefs import Prefs
from stablepay_console.tui.formatters.text import money
from stablepay_console.tui.screens.batch import BatchScreen
from tests.conftest import open_mode, submit_id, wait_for_workers

SIZE = (120, 40)
MISSING_ID = "0e0e0e0e-1111-4222-8333-444455556666"


def recorder(opened: list[str]) -> Any:
    """A stand-in for webbrowser.open that notes the URL and says it opened."""

    def fake_open(url: str, *args: object, **kwargs: object) -> bool:
        opened.append(url)
        return True

    return fake_open


def batch_get(transfer_id: str) -> tuple[str, str]:
    return ("GET", f"/v2/wallets/transfers/batches/{transfer_id}")


def text_of(widget: Static) -> str:
    return str(widget.content)


def status(screen: BatchScreen) -> str:
    return text_of(screen.query_one("#batch-status", Static))


def entry_error(screen: BatchScreen) -> str:
    return text_of(screen.query_one("#id-error", Static))


def field_values(screen: BatchScreen) -> dict[str, str]:
    table: DataTable[Any] = screen.query_one("#batch-fields", DataTable)
    return {str(table.get_row_at(n)[0]): str(table.get_row_at(n)[1]) for n in range(table.row_count)}


def exact_total(sandbox: Sandbox, transfer_id: str) -> Decimal:
    wire = sandbox.data.batches[transfer_id].to_wire()
    return sum((Decimal(r["amount"]) for r in wire["transferDetails"]["destination"]["batch"]), Decimal(0))


async def open_batch(pilot: Pilot[Any]) -> BatchScreen:
    screen = await open_mode(pilot, "batch")
    assert isinstance(screen, BatchScreen)
    return screen


async def look_up(pilot: Pilot[Any], value: str) -> BatchScreen:
    screen = await submit_id(pilot, value)
    assert isinstance(screen, BatchScreen)
    return screen


# --- explorers (headless) -----------------------------------------------------------


def test_explorer_urls_for_known_chains_and_none_for_others() -> None:
    tx = "0x" + "ab" * 32
    assert transaction_url("POLYGON", tx) == f"https://polygonscan.com/tx/{tx}"
    assert transaction_url("polygon", tx) == f"https://polygonscan.com/tx/{tx}"
    assert transaction_url("ETHEREUM", tx) == f"https://etherscan.io/tx/{tx}"
    assert known_chain("MATIC") == "POLYGON"
    assert transaction_url("NEWCHAIN", tx) is None
    assert transaction_url(None, tx) is None
    assert transaction_url("POLYGON", None) is None
    # Server text never steers a link: a "hash" with URL characters is refused.
    assert transaction_url("POLYGON", "0xabc/../../evil?x=1") is None
    assert transaction_url("POLYGON", "0xabcdef12 ") == "https://polygonscan.com/tx/0xabcdef12"


# --- lookups ------------------------------------------------------------------------------


async def test_valid_lookup_shows_transfer_receipt_and_recipients(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_SMALL_ID)
        details = sandbox.data.batches[BATCH_SMALL_ID].details
        fields = field_values(screen)
        assert fields["Status"] == "COMPLETED"
        assert fields["Chain"] == "POLYGON"
        assert fields["Currency"] == "USDC"
        assert fields["Token contract"] == details.contract_address
        assert fields["Transfer ID"] == BATCH_SMALL_ID
        assert fields["Source user"] == details.source.user_id
        assert fields["Source wallet"] == details.source.wallet_address
        assert fields["Wallet type"] == "INDIVIDUAL"
        assert fields["Transaction hash"] == details.receipt.transaction_hash
        assert fields["User-op hash"] == details.receipt.user_op_hash
        assert fields["Created"].startswith("2026-")
        assert fields["Explorer"] == f"https://polygonscan.com/tx/{details.receipt.transaction_hash}"
        recipients: DataTable[Any] = screen.query_one("#batch-recipients", DataTable)
        assert recipients.row_count == 3
        first = recipients.get_row_at(0)
        assert str(first[1]) == details.destination.batch[0].user_id
        assert str(first[2]).strip() == money(details.destination.batch[0].amount, "usdc")
        summary = text_of(screen.query_one("#batch-summary", Static))
        assert summary == f"3 recipients, total {money(exact_total(sandbox, BATCH_SMALL_ID), 'usdc')}"
        assert sandbox.api_calls().count(batch_get(BATCH_SMALL_ID)) == 1


async def test_fifty_recipients_count_and_exact_total(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_50_ID)
        recipients: DataTable[Any] = screen.query_one("#batch-recipients", DataTable)
        assert recipients.row_count == 50
        total = exact_total(sandbox, BATCH_50_ID)
        assert total == sandbox.data.batches[BATCH_50_ID].total
        assert text_of(screen.query_one("#batch-summary", Static)) == f"50 recipients, total {total:,} USDC"
        assert str(recipients.get_row_at(49)[0]).strip() == "50"


async def test_pasted_id_with_surrounding_spaces_is_accepted(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, f"  {BATCH_SMALL_ID.upper()} ")
        assert field_values(screen)["Transfer ID"] == BATCH_SMALL_ID
        assert batch_get(BATCH_SMALL_ID) in sandbox.api_calls()


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("", "The transfer ID is empty."),
        ("6f1c2a10-5b7e-4c1d-9a33", "must be a UUID of 36 characters"),
        ("6f1c2a10-5b7e-4c1d 9a33-000000000050", "contains spaces"),
        ("6f1c2a10-5b7e-4c1d-9a33-00000000005z", "'z', which is not a hexadecimal digit"),
    ],
)
async def test_bad_id_is_explained_inline_and_nothing_is_sent(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, typed: str, says: str
) -> None:
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        before = list(sandbox.api_calls())
        screen = await look_up(pilot, typed)
        assert says in entry_error(screen)
        assert sandbox.api_calls() == before
        assert screen.entry.value == typed  # the typed text stays to be fixed
        assert not screen.query_one("#batch-result").display


async def test_typing_clears_the_inline_error(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_batch(pilot)
        await look_up(pilot, "nope")
        assert entry_error(screen)
        await pilot.press("x")
        await pilot.pause()
        assert entry_error(screen) == ""
        assert screen.entry.value == "nopex"


async def test_not_found_shows_server_message_and_keeps_previous_result(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_SMALL_ID)
        screen = await look_up(pilot, MISSING_ID)
        message = status(screen)
        assert message.startswith("Refused: HTTP 404: No batch transfer with ID " + MISSING_ID)
        assert f"Still showing transfer {BATCH_SMALL_ID} · profile embedded (sandbox)" in message
        assert screen.entry.value == MISSING_ID
        assert field_values(screen)["Transfer ID"] == BATCH_SMALL_ID
        assert screen.query_one("#batch-recipients", DataTable).row_count == 3
        assert MISSING_ID not in Prefs("embedded").recent("recent_batches")
        assert screen.query_one("#batch-result").has_class("-stale")  # greyed: it is not the answer to the ID typed
        # r tries again the ID the message names (the one that failed), never the one greyed on screen.
        assert f"r tries transfer {MISSING_ID} again." in message
        shown_calls = sandbox.api_calls().count(batch_get(BATCH_SMALL_ID))
        missing_calls = sandbox.api_calls().count(batch_get(MISSING_ID))
        screen.query_one("#batch-recipients").focus()
        await pilot.press("r")
        await wait_for_workers(pilot)
        assert sandbox.api_calls().count(batch_get(MISSING_ID)) == missing_calls + 1
        assert sandbox.api_calls().count(batch_get(BATCH_SMALL_ID)) == shown_calls
        assert f"r tries transfer {MISSING_ID} again." in status(screen)
        assert screen.query_one("#batch-result").has_class("-stale")  # still not the answer to the ID named
        assert screen.entry.value == MISSING_ID


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ("401", "Not authorized: HTTP 401: Missing or invalid API key"),
        ("500", "Server error: HTTP 500: Simulated internal failure (sandbox fault injection)"),
    ],
)
async def test_unauthorized_and_server_errors_show_the_server_message(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, fault: str, says: str
) -> None:
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        sandbox.faults.force = fault
        screen = await look_up(pilot, BATCH_SMALL_ID)
        assert status(screen).startswith(says)
        assert screen.entry.value == BATCH_SMALL_ID
        assert not screen.query_one("#batch-result").display


# --- copying and the explorer ----------------------------------------------------------


async def test_copy_keys_put_hashes_addresses_and_ids_on_the_clipboard(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_SMALL_ID)
        details = sandbox.data.batches[BATCH_SMALL_ID].details
        fields: DataTable[Any] = screen.query_one("#batch-fields", DataTable)
        assert app.focused is screen.query_one("#batch-recipients")  # the row that matters: the first recipient
        fields.focus()
        await pilot.press("t")
        assert app.clipboard == details.receipt.transaction_hash
        labels = [str(fields.get_row_at(n)[0]) for n in range(fields.row_count)]
        for label, expected in [
            ("User-op hash", details.receipt.user_op_hash),
            ("Source wallet", details.source.wallet_address),
            ("Token contract", details.contract_address),
            ("Transfer ID", BATCH_SMALL_ID),
        ]:
            fields.move_cursor(row=labels.index(label))
            await pilot.press("c")
            assert app.clipboard == expected, label
        recipients: DataTable[Any] = screen.query_one("#batch-recipients", DataTable)
        recipients.focus()
        recipients.move_cursor(row=2)
        await pilot.press("c")
        assert app.clipboard == details.destination.batch[2].user_id


async def test_open_in_explorer_opens_polygonscan(make_app, sandbox: Sandbox, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", recorder(opened))
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        await look_up(pilot, BATCH_SMALL_ID)
        await pilot.press("o")
        await pilot.pause()
    tx = sandbox.data.batches[BATCH_SMALL_ID].details.receipt.transaction_hash
    assert opened == [f"https://polygonscan.com/tx/{tx}"]


async def test_unknown_chain_says_no_explorer_and_opens_nothing(  # type: ignore[no-untyped-def]
    make_app, monkeypatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", recorder(opened))
    app = make_app(opens_on="batch")
    notes: list[str] = []
    original = app.notify

    def noting(message: str, **kwargs: Any) -> None:
        notes.append(str(message))
        original(message, **kwargs)

    monkeypatch.setattr(app, "notify", noting)
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_UNKNOWN_CHAIN_ID)
        assert field_values(screen)["Chain"] == "NEWCHAIN"
        assert field_values(screen)["Explorer"] == "no block explorer known for chain NEWCHAIN"
        await pilot.press("o")
        await pilot.pause()
    assert opened == []
    assert any("No block explorer is known for chain NEWCHAIN" in n for n in notes)


async def test_copy_and_explorer_keys_are_disabled_before_a_lookup(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_batch(pilot)
        assert screen.check_action("open_explorer", ()) is None
        assert screen.check_action("copy", ()) is None
        await look_up(pilot, BATCH_SMALL_ID)
        assert screen.check_action("open_explorer", ()) is True


# --- recent lookups and kept state ---------------------------------------------------------


async def test_recent_lookups_are_kept_per_profile_and_can_be_picked(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        await look_up(pilot, BATCH_SMALL_ID)
        await look_up(pilot, BATCH_50_ID)
    assert Prefs("embedded").recent("recent_batches") == [BATCH_50_ID, BATCH_SMALL_ID]
    assert Prefs("other").recent("recent_batches") == []

    again = make_app(opens_on="batch")
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_batch(pilot)
        select: Select[str] = screen.query_one("#id-recent", Select)
        assert not select.disabled
        select.focus()
        await pilot.press("enter")  # open the list: the prompt, then the newest lookup first
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        await wait_for_workers(pilot)
        assert screen.entry.value == BATCH_SMALL_ID
        assert field_values(screen)["Transfer ID"] == BATCH_SMALL_ID
    assert sandbox.api_calls().count(batch_get(BATCH_SMALL_ID)) == 2


async def test_switching_profile_clears_the_result_but_keeps_the_typed_id(  # type: ignore[no-untyped-def]
    make_app,
) -> None:
    from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE

    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_SMALL_ID)
        assert screen.query_one("#id-recent", Select).disabled is False
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
        await wait_for_workers(pilot)
        assert screen.transfer is None
        assert not screen.query_one("#batch-result").display
        assert screen.entry.value == BATCH_SMALL_ID
        select: Select[str] = screen.query_one("#id-recent", Select)
        offered = [value for _, value in select._options if isinstance(value, str)]
        assert offered == [value for _, value in screen.entry.samples]  # no recent lookups there, only samples
        assert select.prompt == "Samples to try"


async def test_hand_edited_recent_list_offers_only_uuids(make_app) -> None:  # type: ignore[no-untyped-def]
    Prefs("embedded").set("recent_batches", [BATCH_SMALL_ID, "[bold]not an id", 42])
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_batch(pilot)
        select: Select[str] = screen.query_one("#id-recent", Select)
        offered = [value for _, value in select._options if isinstance(value, str)]
        assert offered == [BATCH_SMALL_ID, *(value for _, value in screen.entry.samples)]


async def test_typed_id_survives_switching_screens(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_batch(pilot)
        screen.entry.input.focus()
        await pilot.press(*"6f1c2a10-5b7e")
        await app.switch_mode("quote")
        await wait_for_workers(pilot)
        await app.switch_mode("batch")
        await wait_for_workers(pilot)
        assert app.screen is screen
        assert screen.entry.value == "6f1c2a10-5b7e"
        assert sandbox.api_calls().count(batch_get(BATCH_SMALL_ID)) == 0


async def test_reload_fetches_the_shown_transfer_again(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_batch(pilot)
        screen = await look_up(pilot, BATCH_SMALL_ID)
        screen.entry.input.value = ONRAMP_OPEN_ID  # typed but not submitted: r reloads what is shown
        screen.query_one("#batch-fields").focus()
        await pilot.press("r")
        await wait_for_workers(pilot)
    assert sandbox.api_calls().count(batch_get(BATCH_SMALL_ID)) == 2


# --- snapshots -----------------------------------------------------------------------------


def test_snapshot_fifty_recipients(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_batch(pilot)
        await look_up(pilot, BATCH_50_ID)

    assert snap_compare(make_app(opens_on="batch"), terminal_size=SIZE, run_before=run_before)


def test_snapshot_bad_id(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_batch(pilot)
        await look_up(pilot, "6f1c2a10-5b7e-4c1d 9a33-000000000050")

    assert snap_compare(make_app(opens_on="batch"), terminal_size=SIZE, run_before=run_before)


def test_snapshot_unknown_chain_then_not_found(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_batch(pilot)
        await look_up(pilot, BATCH_UNKNOWN_CHAIN_ID)
        await look_up(pilot, MISSING_ID)

    assert snap_compare(make_app(opens_on="batch"), terminal_size=SIZE, run_before=run_before)
