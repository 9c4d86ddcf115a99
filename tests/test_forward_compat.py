"""Forward compatibility and server text: values nobody has seen yet, extra fields and absent optional fields render
in every screen, and whatever text the server sends is shown as text, never as Rich markup or terminal codes.

Each test serves such bodies by editing the sandbox's data, then drives the screen a person would use.
"""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from stablepay_console.api.models import BatchTransfer, OnrampTransfer, Rfi
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_SMALL_ID, ONRAMP_OPEN_ID
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from tests.conftest import wait_for_workers

SIZE = (120, 40)
MARKUP = "[bold red]alarm[/] [link=https://evil.example]click[/link]"
ESCAPES = "\x1b[31mred\x1b[0m\x1b]8;;https://evil.example/\x07x\x1b]8;;\x07\x1b[2J\u202e"
HOSTILE = f"{MARKUP} {ESCAPES}"
"""Server text that would restyle the screen, add a link, clear the terminal or reverse the line if run."""
RAW = ("\x1b", "\x07", "\u202e")


def no_raw(text: str) -> bool:
    return not any(ch in text for ch in RAW)


def shown(app: ConsoleApp) -> str:
    """What the terminal would draw: the screenshot's text, raw characters included."""
    svg = app.export_screenshot()
    assert no_raw(svg), "a control character from the server reached the terminal"
    return svg


def static_text(app: ConsoleApp, selector: str) -> str:
    """The text a Static shows, whatever it holds (a Text, a table, a group)."""
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one(selector, Static).content)
    return console.export_text().rstrip("\n")


def cells(app: ConsoleApp, selector: str) -> list[list[str]]:
    table: DataTable[Any] = app.screen.query_one(selector, DataTable)
    return [[str(c) for c in table.get_row_at(n)] for n in range(table.row_count)]


def by_column(app: ConsoleApp, selector: str) -> list[dict[str, str]]:
    """Each row's cells by column key (columns narrow or drop with the terminal's width)."""
    table: DataTable[Any] = app.screen.query_one(selector, DataTable)
    keys = [str(column.key.value) for column in table.ordered_columns]
    return [dict(zip(keys, (str(c) for c in table.get_row_at(n)), strict=True)) for n in range(table.row_count)]


def fields(app: ConsoleApp, selector: str) -> dict[str, str]:
    return {row[0]: row[1] for row in cells(app, selector)}


async def look_up(pilot: Pilot[Any], mode: str, selector: str, value: str) -> None:
    await wait_for_workers(pilot)
    await pilot.app.switch_mode(mode)
    await wait_for_workers(pilot)
    field = pilot.app.screen.query_one(selector, Input)
    field.cursor_blink = False
    field.focus()
    field.value = value
    await pilot.press("enter")
    await wait_for_workers(pilot)


# --- RFIs ------------------------------------------------------------------------------------------------------------


def serve_rfis(sandbox: Sandbox, *wires: dict[str, Any]) -> list[Rfi]:
    """Put these RFIs at the top of the inbox (newest first), as the server would send them."""
    rfis = [Rfi.model_validate(w) for w in wires]
    sandbox.data.rfis[: len(rfis)] = rfis
    for name in ("_wire", "_index"):  # the sandbox's caches of the list, where it keeps them
        cache = getattr(sandbox.state, name, None)
        if isinstance(cache, dict):
            cache.clear()
    return rfis


def future_rfi(sandbox: Sandbox) -> dict[str, Any]:
    wire = sandbox.data.rfis[0].to_wire()
    wire.update(status="escalated", kind="sanctions_screening", subjectType="trust", flowType="bridge",
                transferId="5d2c9f00-0000-4000-8000-000000000001", riskScore=7, tags=["new"])
    rnd = wire["round"]
    rnd.update(channel="email", link=None)
    rnd["items"] = [
        {"id": "a1000000-0000-4000-8000-000000000001", "kind": "video", "label": HOSTILE, "docType": "liveness_video",
         "detail": HOSTILE, "required": True, "maxSizeMb": 20},
        {"id": "a1000000-0000-4000-8000-000000000002", "kind": "question", "label": "Why?"},
    ]
    return wire


def sparse_rfi(sandbox: Sandbox) -> dict[str, Any]:
    """Only the fields that are never null: every optional one absent."""
    wire = sandbox.data.rfis[1].to_wire()
    return {k: wire[k] for k in ("id", "kind", "status", "subjectType", "createdAt")}


def hostile_status_rfi(sandbox: Sandbox) -> dict[str, Any]:
    wire = sandbox.data.rfis[2].to_wire()
    wire.update(status=HOSTILE, kind=HOSTILE, subjectType=HOSTILE)
    wire["round"]["link"] = "https://sandbox.stablepay.example/rfi/respond/[bold]x[/bold]"
    return wire


async def test_inbox_and_detail_render_unknown_values_extra_and_absent_fields(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    future, sparse, hostile = serve_rfis(sandbox, future_rfi(sandbox), sparse_rfi(sandbox), hostile_status_rfi(sandbox))
    app = make_app()
    async with app.run_test(size=(200, 50)) as pilot:  # wide: every column is shown
        await wait_for_workers(pilot)
        rows = by_column(app, "#inbox-table")
        assert [rows[0][k] for k in ("status", "kind", "subject")] == ["escalated", "sanctions_screening", "trust"]
        assert rows[0]["held"] == "5d2c9f00 bridge"
        no_deadline = "no deadline" if sparse.status == "issued" else ""  # an issued one says so in words
        assert [rows[1][k] for k in ("user", "held", "round", "deadline")] == ["", "", "", no_deadline], (
            "no user, no held transfer, no round, no deadline"
        )
        assert rows[2]["status"].startswith(MARKUP[:20]), "a status is text, never markup"
        assert "\\x1b[31m" in rows[2]["status"] or "…" in rows[2]["status"], "an escape sequence is shown, not run"
        shown(app)

        for index, rfi in enumerate((future, sparse, hostile)):
            table: DataTable[Any] = app.screen.query_one("#inbox-table", DataTable)
            table.move_cursor(row=index)
            await pilot.press("enter")
            await wait_for_workers(pilot)
            assert isinstance(app.screen, RfiDetailScreen) and app.screen.rfi.id == rfi.id
            request = static_text(app, "#rfi-request")
            screen = shown(app)
            if rfi is future:
                assert "escalated" in request and "sanctions_screening" in request and "bridge" in request
                items = cells(app, "#rfi-items")
                assert items[0][1] == "video" and "liveness_video" in items[0][3]
                assert items[0][4].startswith(MARKUP) and items[0][5].startswith(MARKUP)
                assert items[1][3] == "written answer" and items[1][5] == ""
                assert "[bold red]alarm[/]" in screen.replace("&#160;", " ")
            elif rfi is sparse:
                assert "none given" in request
                assert "No round is open" in static_text(app, "#rfi-round")
                assert "No items" in static_text(app, "#rfi-items-title")
            else:
                assert MARKUP in request
                assert "[bold]x[/bold]" in static_text(app, "#rfi-link")
            await pilot.press("escape")
            await wait_for_workers(pilot)


# --- Batch transfers -------------------------------------------------------------------------------------------------


async def test_batch_with_unknown_values_extra_and_absent_fields(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wire = sandbox.data.batches[BATCH_SMALL_ID].to_wire()
    details = wire["transferDetails"]
    details.update(status="PARTIALLY_SETTLED", chain="SONIC", currency="eurc", settlementWindow="T+1", fee=None)
    details["source"].update(walletType="SMART_CONTRACT", label=HOSTILE)
    details["destination"]["batch"][0].update(memo=HOSTILE, status="FAILED")
    del details["receipt"]
    wire["transferType"] = "WALLET.TRANSFER.BATCH.V3"
    wire["traceId"] = "abc"
    sandbox.data.batches[BATCH_SMALL_ID] = BatchTransfer.model_validate(wire)
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await look_up(pilot, "batch", "#id-input", BATCH_SMALL_ID)
        values = fields(app, "#batch-fields")
        assert values["Status"] == "PARTIALLY_SETTLED"
        assert values["Chain"] == "SONIC" and values["Currency"] == "EURC" and values["Wallet type"] == "SMART_CONTRACT"
        assert values["Transaction hash"] == "—" and values["User-op hash"] == "—"
        assert values["Explorer"] == "no transaction hash in the receipt"
        assert len(cells(app, "#batch-recipients")) == 3
        assert "3 recipients" in static_text(app, "#batch-summary")
        shown(app)


async def test_batch_server_text_is_never_markup(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wire = sandbox.data.batches[BATCH_SMALL_ID].to_wire()
    wire["transferDetails"].update(status=HOSTILE, chain=MARKUP, currency="[b]x[/b]")
    wire["transferDetails"]["source"]["walletAddress"] = HOSTILE
    sandbox.data.batches[BATCH_SMALL_ID] = BatchTransfer.model_validate(wire)
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await look_up(pilot, "batch", "#id-input", BATCH_SMALL_ID)
        values = fields(app, "#batch-fields")
        # Long values are cut in the middle with an ellipsis; what shows is the literal text, never markup.
        assert values["Status"].startswith(MARKUP[:20]) and values["Chain"] == MARKUP
        assert values["Source wallet"].startswith(MARKUP[:20]) and "\\x1b[2J" in values["Source wallet"]
        assert "[B]X[/B]" in static_text(app, "#batch-summary")
        shown(app)


# --- Onramp quotes ---------------------------------------------------------------------------------------------------


async def test_quote_with_unknown_values_extra_and_absent_fields(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wire = sandbox.data.onramps[ONRAMP_OPEN_ID].to_wire()
    details = wire["transferDetails"]
    details["source"].update(currency="brl", rail="PIX", user=None, amount=None)
    details["destination"].update(currency="usdglo", chain="SONIC", walletType="SMART_CONTRACT")
    del details["destination"]["user"]
    for key in ("receipt", "developerFee", "virtualAccountId", "depositInfo", "failedReason"):
        details.pop(key, None)
    details["complianceHold"] = {"reason": HOSTILE}
    sandbox.data.onramps[ONRAMP_OPEN_ID] = OnrampTransfer.model_validate(wire)
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await look_up(pilot, "quote", "#id-input", ONRAMP_OPEN_ID)
        assert "Quote refreshed once" in static_text(app, "#quote-message")
        source, destination = fields(app, "#quote-source"), fields(app, "#quote-destination")
        assert source["Currency"] == "BRL" and source["Amount"] == "not given" and source["User"] == "—"
        assert destination["Currency"] == "USDGLO" and destination["Chain"] == "SONIC"
        assert len(cells(app, "#quote-table")) == 6
        shown(app)


async def test_quote_server_text_is_never_markup(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    wire = sandbox.data.onramps[ONRAMP_OPEN_ID].to_wire()
    details = wire["transferDetails"]
    details["source"]["user"] = {"firstName": MARKUP, "lastName": ESCAPES, "email": HOSTILE, "businessName": None}
    details["destination"]["walletAddress"] = HOSTILE
    sandbox.data.onramps[ONRAMP_OPEN_ID] = OnrampTransfer.model_validate(wire)
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await look_up(pilot, "quote", "#id-input", ONRAMP_OPEN_ID)
        source, destination = fields(app, "#quote-source"), fields(app, "#quote-destination")
        assert source["User"].startswith(MARKUP[:20]) and source["Email"].startswith(MARKUP[:20])
        assert destination["Wallet"].startswith(MARKUP[:20])
        shown(app)


# --- Metrics ---------------------------------------------------------------------------------------------------------

METRIC_ID = "0d6f3c2a-1111-4222-8333-0000000000c7"


def future_metric() -> dict[str, Any]:
    rows = [
        {"periodStart": "2026-11-01", "netRevenue": "10.50", "region": MARKUP, "confidence": "high", "extra": None},
        {"periodStart": "2026-11-15", "netRevenue": 12, "region": "LATAM", "flagged": True},
        {"periodStart": "2026-11-29T00:00:00+02:00", "netRevenue": "9.25", "region": ESCAPES},
    ]
    return {
        "status": "success",
        "data": rows,
        "metadata": {
            "template": "NET_REVENUE",
            "calculationInterval": "fortnight",
            "filters": {
                "regions": {"applied": "partial", "specified": True, "values": [MARKUP], "note": HOSTILE},
                "currency": {"applied": "all"},
            },
            "breakdowns": ["region"],
            "warehouse": "eu-1",
        },
        "requestId": "r-1",
    }


async def test_metric_with_unknown_values_extra_and_absent_fields(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    sandbox.data.metrics[METRIC_ID] = future_metric()
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        await look_up(pilot, "metrics", "#metric-id", METRIC_ID)
        status = static_text(app, "#metric-status")
        assert "(NET_REVENUE)" in status and "3 rows" in status, status  # the unknown template, as sent
        info = static_text(app, "#metric-info")
        assert "unknown template" in info and "fortnight" in info and "partial" in info
        assert MARKUP in info, "filter values and notes are text"
        await pilot.press("t")
        await wait_for_workers(pilot)
        table = cells(app, "#metric-table")
        assert len(table) == 4 and table[-1][0] == "Total"  # three rows and the totals row
        assert any(MARKUP in cell for cell in table[0])
        assert any("\\x1b[31m" in cell for cell in table[2])
        shown(app)
        await pilot.press("t")
        await wait_for_workers(pilot)
        shown(app)
        assert "NET_REVENUE" in static_text(app, "#metric-status")
