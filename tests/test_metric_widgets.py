"""The metric widgets for a finance reader (issue 13, section 5), each mounted on its own.

Table: right-aligned, fixed decimals per column, thousands separators, an exact totals row.
Chart: subplots named in words, round y ticks with separators, whole ticks for counts, no
currency, values too large to draw left out and counted. Colours keep their meaning; a
legend that does not fit says "+N more".
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from textual.app import App, ComposeResult

from stablepay_console.api.client import decode
from stablepay_console.api.models import MetricResult
from stablepay_console.sandbox.data import METRIC_DAILY_VOLUME_ID, METRIC_TX_COUNT_ID, SandboxData
from stablepay_console.services.metrics.series import build_series
from stablepay_console.tui.formatters.metrics import field_title, nice_ticks, tick_label
from stablepay_console.tui.widgets.metrics.chart import MetricChart
from stablepay_console.tui.widgets.metrics.colors import TONES, is_greenish, is_reddish, tone_of
from stablepay_console.tui.widgets.metrics.legend import MetricLegend, legend_entries, legend_text, series_colors
from stablepay_console.tui.widgets.metrics.table import MetricTable
from tests.conftest import FIXED_NOW
from tests.hostile_payloads import raw, to_json

DATA = SandboxData(now=FIXED_NOW, frozen=True)
CURRENCY = re.compile(r"\b(USD|USDC|EUR|GBP)\b|[$€£]")


def result_of(body: dict[str, Any]) -> MetricResult:
    return decode(httpx.Response(200, content=to_json(body)), MetricResult)


def body_of(rows: list[dict[str, Any]], breakdowns: list[str] | None = None) -> dict[str, Any]:
    return {
        "status": "success",
        "data": rows,
        "metadata": {"template": "GROSS_VOLUME", "calculationInterval": "day", "breakdowns": breakdowns},
    }


class Widgets(App[None]):
    CSS = "MetricChart { height: 24; } #legend { height: auto; max-height: 3; } MetricTable { height: 14; }"

    def compose(self) -> ComposeResult:
        yield MetricChart(id="chart")
        yield MetricLegend(id="legend")
        yield MetricTable(id="table")


async def shown(result: MetricResult, title: str, style: str = "line", size: tuple[int, int] = (100, 50)) -> Any:
    """Mount the widgets, show `result`, and return (chart text, legend text, table rows)."""
    app = Widgets()
    async with app.run_test(size=size) as pilot:
        series = build_series(result)
        app.query_one(MetricChart).show(series, style, title)  # type: ignore[arg-type]
        app.query_one(MetricLegend).show(series)
        table = app.query_one(MetricTable)
        table.show(result)
        await pilot.pause()
        rows = [table.get_row_at(n) for n in range(table.row_count)]
        labels = [c.label for c in table.columns.values()]
        return str(app.query_one(MetricChart).render()), str(app.query_one(MetricLegend).render()), rows, labels


# --- the table ---------------------------------------------------------------------------------


async def test_table_is_right_aligned_with_fixed_decimals_separators_and_an_exact_total() -> None:
    rows = [
        {"periodStart": "2026-01-01", "grossVolume": raw("1234567.5"), "transactionCount": 3, "avgTicket": 5},
        {"periodStart": "2026-01-02", "grossVolume": raw("0.25"), "transactionCount": 1200, "avgTicket": 7},
        {"periodStart": "2026-01-03", "grossVolume": raw("1e30"), "transactionCount": 0, "avgTicket": 6},
    ]
    _, _, cells, labels = await shown(result_of(body_of(rows)), "Daily gross volume")
    assert [str(label) for label in labels] == ["periodStart", "grossVolume", "transactionCount", "avgTicket"]
    assert [label.justify for label in labels[1:]] == ["right", "right", "right"]
    volume = [str(row[1]) for row in cells]
    assert volume == ["1,234,567.50", "0.25", "1,000,000,000,000,000,000,000,000,000,000.00",
                      "1,000,000,000,000,000,000,000,001,234,567.75"]  # the exact total, with the column's places
    assert all(row[1].justify == "right" for row in cells)
    assert [str(row[2]) for row in cells] == ["3", "1,200", "0", "1,203"]  # a count: no decimals
    assert str(cells[-1][0]) == "Total" and str(cells[-1][3]) == ""  # an average is not added up


async def test_totals_row_says_unreadable_rather_than_a_wrong_sum() -> None:
    rows = [{"periodStart": "2026-01-01", "grossVolume": raw("1e999999999")},
            {"periodStart": "2026-01-02", "grossVolume": "10.00"}]
    _, _, cells, _ = await shown(result_of(body_of(rows)), "Daily gross volume")
    assert str(cells[0][1]).startswith("unreadable") and str(cells[1][1]) == "10.00"
    assert str(cells[-1][1]) == "unreadable"


async def test_a_table_of_rows_without_numbers_has_no_totals_row() -> None:
    _, _, cells, _ = await shown(result_of(body_of([{"periodStart": "2026-01-01", "note": "quiet"}])), "x")
    assert [str(c) for c in cells[-1]] == ["2026-01-01", "quiet"]  # the only row: no total of nothing


# --- the chart ---------------------------------------------------------------------------------


async def test_chart_is_named_in_words_with_round_ticks_and_no_currency() -> None:
    result = MetricResult.model_validate(DATA.metrics[METRIC_DAILY_VOLUME_ID])
    chart, legend, cells, _ = await shown(result, "Daily gross volume")
    assert "Daily gross volume" in chart and "Transaction count" in chart  # the second subplot's field, in words
    assert "grossVolume" not in chart
    y_labels = re.findall(r"^\s*([\d,.]+)┤", chart, flags=re.MULTILINE)
    assert "20,000" in y_labels or "25,000" in y_labels, y_labels  # round, with separators
    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*", label) for label in y_labels), y_labels
    for text in (chart, legend, " ".join(str(c) for row in cells for c in row)):
        assert not CURRENCY.search(text), "a currency the API never named"


async def test_the_chart_follows_its_size_its_data_its_style_and_the_theme() -> None:
    """Drawn once for what it shows (Plotext is slow), the chart is drawn again when any of it changes."""
    result = MetricResult.model_validate(DATA.metrics[METRIC_DAILY_VOLUME_ID])
    app = Widgets()
    async with app.run_test(size=(100, 50)) as pilot:
        chart = app.query_one(MetricChart)
        series = build_series(result)
        chart.show(series, "line", "Daily gross volume")
        await pilot.pause()

        def drawn() -> str:
            return str(chart.render())

        def widest() -> int:
            return max(len(line) for line in drawn().splitlines())

        first = drawn()
        assert drawn() == first, "asked again with nothing changed: the same chart"
        assert widest() == 100
        await pilot.resize_terminal(70, 50)
        await pilot.pause()
        assert widest() == 70, "narrowed with the terminal"
        line = drawn()
        chart.show(series, "bar", "Daily gross volume")
        await pilot.pause()
        assert drawn() != line, "bars instead of lines"
        chart.show(series, "bar", "Weekly gross volume")
        await pilot.pause()
        assert "Weekly gross volume" in drawn()
        bars = drawn()
        chart.show(build_series(result.model_copy(update={"data": result.data[:3]})), "bar", "Weekly gross volume")
        await pilot.pause()
        assert drawn() != bars, "three periods, not all of them"
        before = chart.render()
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        assert chart.render().spans != before.spans, "the theme's colours"  # type: ignore[union-attr]


def test_a_count_axis_never_gets_a_fractional_tick() -> None:
    assert nice_ticks(0, 3, whole=True) == [0, 1, 2, 3]
    assert nice_ticks(0, 7, whole=True) == [0, 2, 4, 6, 8]
    assert nice_ticks(0, 0.4, whole=True) == [0, 1]
    assert nice_ticks(0, 7, whole=False) == [0, 2, 4, 6, 8]
    assert nice_ticks(0, 0.7) == [0.0, 0.2, 0.4, 0.6000000000000001, 0.8]
    assert [tick_label(t, 0.2) for t in nice_ticks(0, 0.7)] == ["0.0", "0.2", "0.4", "0.6", "0.8"]
    assert [tick_label(t, 2e5) for t in nice_ticks(0, 1e6)] == ["0", "200,000", "400,000", "600,000", "800,000",
                                                              "1,000,000"]
    assert nice_ticks(0, 9e5)[:2] == [0, 200_000.0] and nice_ticks(0, 1.2e6)[:2] == [0, 250_000.0]
    assert [tick_label(t, 2e29) for t in nice_ticks(0, 1e30)][-1] == "1E+30"  # short when huge


async def test_small_counts_are_drawn_on_whole_ticks() -> None:
    rows = [{"periodStart": f"2026-01-0{d}", "transactionCount": n} for d, n in ((1, 1), (2, 3), (3, 2))]
    chart, _, _, _ = await shown(result_of(body_of(rows)), "Daily transaction count")
    y_labels = re.findall(r"^\s*([\d,.]+)┤", chart, flags=re.MULTILINE)
    assert y_labels and all("." not in label for label in y_labels), y_labels


async def test_values_too_large_to_draw_are_left_out_and_counted() -> None:
    rows = [{"periodStart": "2026-01-01", "grossVolume": raw("1e400")},
            {"periodStart": "2026-01-02", "grossVolume": raw("1e999999999")},
            {"periodStart": "2026-01-03", "grossVolume": 12}]
    for style in ("line", "bar"):
        chart, legend, cells, _ = await shown(result_of(body_of(rows)), "Daily gross volume", style)
        assert "Daily gross volume" in chart
        assert "left out of the chart" in legend
        assert str(cells[0][1]) == "1E+400"


def test_field_names_read_as_words() -> None:
    assert field_title("grossVolume") == "Gross volume"
    assert field_title("TRANSACTION_COUNT") == "Transaction count"
    assert field_title("weird[bold]") == "weird[bold]"


# --- colours and the legend ------------------------------------------------------------------------


def test_success_is_never_red_and_failure_never_green() -> None:
    series = build_series(MetricResult.model_validate(DATA.metrics[METRIC_TX_COUNT_ID]))
    colors = series_colors(series)
    seen = set()
    for one, color in zip(series.series, colors, strict=True):
        tone = tone_of(one.combination or ())
        seen.add(tone)
        if tone == "success":
            assert not is_reddish(color), (one.label, color)
        if tone == "failure":
            assert not is_greenish(color), (one.label, color)
        if tone in ("pending", "neutral"):
            assert not is_reddish(color) and not is_greenish(color), (one.label, color)
    assert {"success", "failure", "pending"} <= seen
    assert not any(is_reddish(c) or is_greenish(c) for c in TONES["neutral"])
    assert not any(is_reddish(c) for c in TONES["success"]) and not any(is_greenish(c) for c in TONES["failure"])
    assert len(set(colors)) == len(colors)  # every series tells apart from the others


def test_a_legend_that_does_not_fit_says_how_many_more() -> None:
    rows = [{"periodStart": f"2026-01-0{day}", "userId": f"user-{n:02d}", "transactionCount": (n + 1) * day}
            for day in (1, 2, 3) for n in range(13)]
    series = build_series(result_of(body_of(rows, breakdowns=["userId"])))
    entries = legend_entries(series)
    full = legend_text(series, 60)
    assert "more" not in str(full) and len(str(full).splitlines()) > 3
    short = str(legend_text(series, 60, max_lines=3))
    lines = short.splitlines()
    assert len(lines) == 3 and all(len(line) <= 60 for line in lines)
    more = int(re.search(r"\+(\d+) more$", lines[-1]).group(1))  # type: ignore[union-attr]
    shown_entries = sum(1 for _, label in entries if label in short)
    assert shown_entries + more == len(entries)


async def test_the_mounted_legend_keeps_to_its_height() -> None:
    rows = [{"periodStart": "2026-01-01", "userId": f"user-{n:02d}", "transactionCount": n + 1} for n in range(13)]
    _, legend, _, _ = await shown(result_of(body_of(rows, breakdowns=["userId"])), "Daily transaction count",
                                  size=(60, 50))
    assert len(legend.splitlines()) <= 3 and re.search(r"\+\d+ more$", legend), legend
