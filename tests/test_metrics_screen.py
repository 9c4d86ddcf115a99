"""The metrics screen: run a saved metric by ID or bookmark, chart it, table it, export it."""

from __future__ import annotations

import csv
import io
from datetime import date
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import ContentSwitcher, DataTable, Input, Static

from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import (
    METRIC_DAILY_VOLUME_ID,
    METRIC_EMPTY_ID,
    METRIC_HOURLY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
)
from stablepay_console.services.metrics.series import OTHER, to_csv
from stablepay_console.storage.bookmarks import BookmarkStore
from stablepay_console.storage.prefs import Prefs
from stablepay_console.tui.modals.export_dialog import ExportDialog
from stablepay_console.tui.modals.metric_prompt import MetricPrompt
from stablepay_console.tui.screens.metrics import MetricsScreen
from stablepay_console.tui.widgets.metrics.bookmarks import BookmarkList
from stablepay_console.tui.widgets.metrics.chart import MetricChart, MetricLegend
from stablepay_console.tui.widgets.metrics.info import metadata_rows
from tests.conftest import wait_for_workers

SIZE = (120, 40)
UNKNOWN_ID = "0d6f3c2a-1111-4222-8333-444455556666"
CUSTOM_ID = "0d6f3c2a-1111-4222-8333-0000000000c1"
METRIC_PATH = "/v2/reporting/metrics/"


def metric_calls(sandbox: Sandbox) -> list[tuple[str, str]]:
    return [c for c in sandbox.api_calls() if c[1].startswith(METRIC_PATH)]


def serve(sandbox: Sandbox, body: dict[str, Any], metric_id: str = CUSTOM_ID) -> str:
    """Make the sandbox answer `metric_id` with this body, as the wire would carry it."""
    sandbox.data.metrics[metric_id] = body
    return metric_id


def body_of(rows: list[dict[str, Any]], template: str = "GROSS_VOLUME", breakdowns: Any = None) -> dict[str, Any]:
    return {
        "status": "success",
        "data": rows,
        "metadata": {
            "template": template,
            "recordCount": len(rows),
            "projectedRowCount": None,
            "filledCount": len(rows),
            "calculationInterval": "day",
            "dateRange": {"start": "2026-01-01", "end": "2026-01-03"},
            "filters": {},
            "breakdowns": breakdowns,
        },
    }


async def open_metrics(pilot: Pilot[Any]) -> MetricsScreen:
    await wait_for_workers(pilot)
    if pilot.app.current_mode != "metrics":  # a console opened on the metrics screen is there (4 would be typed)
        await pilot.press("4")
    await wait_for_workers(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MetricsScreen)
    screen.query_one("#metric-id", Input).cursor_blink = False
    return screen


async def run_id(pilot: Pilot[Any], metric_id: str) -> MetricsScreen:
    screen = pilot.app.screen
    assert isinstance(screen, MetricsScreen)
    field = screen.query_one("#metric-id", Input)
    field.value = metric_id
    field.focus()
    await pilot.press("enter")
    await wait_for_workers(pilot)
    return screen


def shown(screen: MetricsScreen, selector: str) -> str:
    widget = screen.query_one(selector, Static)
    return str(widget.render()) if widget.display else ""


def current_view(screen: MetricsScreen) -> str | None:
    return screen.query_one("#metric-views", ContentSwitcher).current


def legend(screen: MetricsScreen) -> str:
    widget = screen.query_one(MetricLegend)
    return str(widget.render()) if widget.display else ""


def info(screen: MetricsScreen) -> str:
    assert screen.state.shown is not None
    return "\n".join(f"{label} {value}" for label, value in metadata_rows(screen.state.shown))


# --- running and charting ---------------------------------------------------------------


async def test_bookmarked_daily_volume_charts_sorted_with_gaps(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        bookmarks = screen.query_one(BookmarkList)
        assert bookmarks.option_count == 4  # the embedded sandbox's helpful defaults
        bookmarks.focus()
        bookmarks.highlighted = 0
        await pilot.press("enter")
        await wait_for_workers(pilot)

        assert screen.query_one("#metric-id", Input).value == METRIC_DAILY_VOLUME_ID
        assert metric_calls(sandbox) == [("GET", f"{METRIC_PATH}{METRIC_DAILY_VOLUME_ID}/results")]
        chart = screen.query_one(MetricChart)
        assert chart.display and chart.series_data is not None
        periods = chart.series_data.periods
        assert periods == sorted(periods) and periods[0] == date(2026, 10, 22) and len(periods) == 30
        volume = chart.series_data.series[0]
        assert [p for p, v in zip(periods, volume.values, strict=True) if v is None] == chart.series_data.missing
        assert "No data sent for 4 bucket(s), left blank (not zero): 23 Oct, 01 Nov, 10 Nov, 19 Nov" in shown(
            screen, "#metric-gaps"
        )
        status = shown(screen, "#metric-status")
        assert "Daily gross volume (GROSS_VOLUME) · 26 rows · 22 Oct → 20 Nov · line chart" in status
        assert f"From metric {METRIC_DAILY_VOLUME_ID} · profile embedded (sandbox)" in status
        assert "grossVolume (total 1,409,474.78)" in legend(screen)
        assert "transactionCount (total 4,006)" in legend(screen)
        assert "22 Oct" in str(chart.render())  # the x axis reads as dates

        await pilot.press("l")
        assert chart.chart_style == "bar"
        assert "bar chart" in shown(screen, "#metric-status")

        await pilot.press("t")
        await pilot.pause()
        table = screen.query_one("#metric-table", DataTable)
        assert current_view(screen) == "metric-table"
        assert table.row_count == 26 + 1  # every row sent, then the totals row
        assert [str(c.label) for c in table.columns.values()] == ["periodStart", "grossVolume", "transactionCount"]
        assert str(table.get_row_at(0)[0]) == "2026-10-22"
        assert str(table.get_row_at(0)[1]) == "35,222.55"

        await pilot.press("t")
        await pilot.pause()
        assert current_view(screen) == "metric-chart-view"
        assert chart.chart_style == "bar"  # the style survives the trip to the table


async def test_export_writes_the_exact_dataset(make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_TX_COUNT_ID)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)  # the same dialog as the inbox export, in the same folder
        assert dialog.cwd == tmp_path
        name = dialog.query_one("#export-path", Input).value
        assert name == "metric-daily-transaction-count-20261120-093000.csv"
        path = tmp_path / name
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert app.screen is screen
        assert screen.state.shown is not None
        assert path.read_text(encoding="utf-8") == to_csv(screen.state.shown)
        assert not list(tmp_path.glob("*.part"))
        lines = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        assert lines[0] == ["periodStart", "transactionType", "transactionStatus", "transactionCount"]
        assert len(lines) == 85

        # A second export to the same name is refused inline rather than overwriting.
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-path", Input).value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        assert "already exists" in str(app.screen.query_one("#export-error", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_monthly_and_date_time_buckets(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_MONTHLY_VOLUME_ID)
        assert "9 rows · Mar 2026 → Nov 2026" in shown(screen, "#metric-status")
        assert "Mar 2026" in str(screen.query_one(MetricChart).render())
        assert shown(screen, "#metric-gaps") == ""

        await run_id(pilot, METRIC_HOURLY_VOLUME_ID)
        assert "24 rows · 19 Nov 01:00 → 20 Nov 00:00" in shown(screen, "#metric-status")
        assert "periodStart, by hour" in str(screen.query_one(MetricChart).render())
        await pilot.press("t")
        await pilot.pause()
        table = screen.query_one("#metric-table", DataTable)
        assert str(table.get_row_at(0)[0]) == "2026-11-19 01:00 UTC"
        assert str(table.get_row_at(23)[0]) == "2026-11-20 00:00 UTC"


async def test_breakdown_series_and_legend(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_TX_COUNT_ID)
        data = screen.query_one(MetricChart).series_data
        assert data is not None and len(data.series) == 6
        text = legend(screen)
        assert "transactionCount by transactionType · transactionStatus:" in text
        for label in ("onramp · COMPLETED", "onramp · FAILED", "offramp · PENDING"):
            assert label in text
        assert OTHER not in text
        assert "Breakdowns transactionType, transactionStatus" in info(screen)


async def test_more_than_ten_combinations_show_other(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"periodStart": f"2026-01-0{day}", "userId": f"user-{n:02d}", "transactionCount": (n + 1) * day}
        for day in (1, 2, 3)
        for n in range(13)
    ]
    mid = serve(sandbox, body_of(rows, template="TRANSACTION_COUNT", breakdowns=["userId"]))
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, mid)
        data = screen.query_one(MetricChart).series_data
        assert data is not None and len(data.series) == 11
        text = legend(screen)
        assert "user-12 (78)" in text and "user-03 (24)" in text and "user-02 " not in text
        assert "other (36, 3 combinations)" in text  # users 00-02: (1+2+3) * (1+2+3)


async def test_empty_result_renders_a_message(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_EMPTY_ID)
        assert not screen.query_one(MetricChart).display
        assert "The server returned no rows for this metric" in shown(screen, "#metric-empty")
        assert "0 rows" in shown(screen, "#metric-status")
        assert "Records 0" in info(screen)
        await pilot.press("t")
        await pilot.pause()
        assert screen.query_one("#metric-table", DataTable).row_count == 0


async def test_unknown_template_and_fields_render_as_sent(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"periodStart": "2026-01-02", "zorbIndex": 7.25, "weird[bold]": 2},
        {"periodStart": "2026-01-01", "zorbIndex": 0, "weird[bold]": 1},
    ]
    mid = serve(sandbox, body_of(rows, template="[red]MYSTERY_TEMPLATE"))
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, mid)
        assert "Template [red]MYSTERY_TEMPLATE (unknown template)" in info(screen)
        assert "Daily [red]MYSTERY_TEMPLATE ([red]MYSTERY_TEMPLATE) · " in shown(screen, "#metric-status")  # not markup
        assert "zorbIndex (total 7.25)" in legend(screen)
        assert "weird[bold] (total 3)" in legend(screen)
        data = screen.query_one(MetricChart).series_data
        assert data is not None and data.series[0].values[0] == 0  # a zero the server sent stays zero

        serve(sandbox, body_of([{"periodStart": "2026-01-01", "comment": "quiet day"}]), UNKNOWN_ID)
        await run_id(pilot, UNKNOWN_ID)
        assert not screen.query_one(MetricChart).display
        assert "These 1 rows carry no numeric field to chart (fields: comment)" in shown(screen, "#metric-empty")


async def test_filters_show_subset_all_values_and_shortened_lists(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_DAILY_VOLUME_ID)
        text = info(screen)
        assert "Interval day" in text
        assert "Range 2026-10-22 → 2026-11-20" in text
        assert "Projected —" in text and "Filled 26" in text
        assert "• transactionTypes all\nnot specified\nonramp, offramp" in text
        assert "• userIds subset\n60 values (list omitted)\n60 user IDs; the list is omitted for length" in text
        assert "• createdAfter subset\n2026-10-22" in text


# --- refusing, failing ---------------------------------------------------------------------


async def test_invalid_id_is_refused_inline_without_a_request(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, "9a0e7c55-1d2b-4e3f-8a6b-0000000000d")
        assert "must be a UUID of 36 characters" in shown(screen, "#metric-entry #id-error")
        await run_id(pilot, " 9a0e7c55 1d2b ")
        assert "contains spaces" in shown(screen, "#metric-entry #id-error")
        assert metric_calls(sandbox) == []
        await pilot.press("x")  # typing clears the message
        assert shown(screen, "#metric-entry #id-error") == ""


async def test_error_keeps_the_previous_result(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_MONTHLY_VOLUME_ID)
        await run_id(pilot, UNKNOWN_ID)
        status = shown(screen, "#metric-status")
        assert f"Refused: HTTP 404: No saved metric with ID {UNKNOWN_ID}" in status
        assert f"Still showing metric {METRIC_MONTHLY_VOLUME_ID} · profile embedded (sandbox)" in status
        assert screen.shown_id == METRIC_MONTHLY_VOLUME_ID
        assert screen.query_one("#metric-views").has_class("-stale")
        assert screen.query_one(MetricChart).display

        sandbox.faults.force = "500"
        screen.query_one(MetricChart).focus()
        await pilot.press("r")
        await wait_for_workers(pilot)
        assert "Server error" in shown(screen, "#metric-status")
        assert screen.shown_id == METRIC_MONTHLY_VOLUME_ID


async def test_switching_screens_keeps_the_id_and_result(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_TX_COUNT_ID)
        await pilot.press("t")
        screen.query_one("#metric-id", Input).value = "half-typed"
        screen.query_one(MetricChart).focus()
        await pilot.press("1")
        await wait_for_workers(pilot)
        assert app.current_mode == "inbox"
        await pilot.press("4")
        await wait_for_workers(pilot)
        assert app.screen is screen
        assert screen.query_one("#metric-id", Input).value == "half-typed"
        assert screen.shown_id == METRIC_TX_COUNT_ID and screen.state.view == "table"


# --- bookmarks -----------------------------------------------------------------------------


async def test_add_rename_remove_bookmarks_persist_per_profile(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        await run_id(pilot, METRIC_MONTHLY_VOLUME_ID)
        await pilot.press("b")
        await pilot.pause()
        assert "Already bookmarked as 'Monthly gross volume'." in [n.message for n in app.said]

        mid = serve(sandbox, body_of([{"periodStart": "2026-01-01", "v": 1}]))
        await run_id(pilot, mid)
        await pilot.press("b")
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, MetricPrompt)
        assert prompt.query_one(Input).value == "Daily gross volume"  # named in words from the result
        prompt.query_one(Input).value = "   "
        await pilot.press("enter")
        await pilot.pause()
        assert "needs a name" in str(prompt.query_one("#prompt-error", Static).render())
        prompt.query_one(Input).value = "my  custom metric"
        await pilot.press("enter")
        await pilot.pause()
        bookmarks = screen.query_one(BookmarkList)
        assert bookmarks.option_count == 5 and bookmarks.highlighted == 4

        bookmarks.focus()
        await pilot.press("n")
        await pilot.pause()
        assert app.screen.query_one(Input).value == "my custom metric"
        app.screen.query_one(Input).value = "renamed"
        await pilot.press("enter")
        await pilot.pause()

        bookmarks.highlighted = 0
        await pilot.press("delete")
        await pilot.pause()
        assert bookmarks.option_count == 4

    stored = Prefs(EMBEDDED_PROFILE.name).get("metric_bookmarks")
    assert [b["name"] for b in stored] == [
        "Transaction count by type and status",
        "Monthly gross volume",
        "Hourly gross volume",
        "renamed",
    ]
    assert stored[-1]["id"] == CUSTOM_ID
    # Another profile has its own, and a non-sandbox profile starts with none.
    production = Profile("prod", "production", "https://api.example.com")
    assert BookmarkStore(production.name, app.services.bookmark_defaults(production)).items == []


async def test_emptied_sandbox_bookmarks_stay_empty(make_app) -> None:  # type: ignore[no-untyped-def]
    Prefs(EMBEDDED_PROFILE.name).set("metric_bookmarks", [])
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_metrics(pilot)
        assert screen.query_one(BookmarkList).option_count == 0


# --- snapshots -------------------------------------------------------------------------------


def snapshot_run(metric_id: str, *keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await open_metrics(pilot)
        await run_id(pilot, metric_id)
        for key in keys:
            await pilot.press(key)
            await wait_for_workers(pilot)

    return run_before


def test_snapshot_daily_line_chart(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(opens_on="metrics", ping_on_start=False), terminal_size=SIZE, run_before=snapshot_run(
        METRIC_DAILY_VOLUME_ID
    ))


def test_snapshot_breakdown_bar_chart(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(opens_on="metrics", ping_on_start=False), terminal_size=SIZE, run_before=snapshot_run(
        METRIC_TX_COUNT_ID  # a breakdown of more than three series starts as stacked bars
    ))


def test_snapshot_table(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(opens_on="metrics", ping_on_start=False), terminal_size=SIZE, run_before=snapshot_run(
        METRIC_DAILY_VOLUME_ID, "t"
    ))


def test_snapshot_empty_result(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(make_app(opens_on="metrics", ping_on_start=False), terminal_size=SIZE, run_before=snapshot_run(
        METRIC_EMPTY_ID
    ))

