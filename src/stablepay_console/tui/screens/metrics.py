"""Metrics: run a saved metric by ID or bookmark, see it as a chart or a table, export it to CSV."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, Input, OptionList, Static

from stablepay_console.api import APIError, MetricResult
from stablepay_console.api.validation import parse_uuid
from stablepay_console.services.metric_series import MetricSeries, build_series, period_label, template_name, to_csv
from stablepay_console.storage import locations
from stablepay_console.storage.bookmarks import BookmarkStore, bookmark_name
from stablepay_console.tui.formatters.text import clean, plain, short_id, typed_path
from stablepay_console.tui.modals.metric_prompt import MetricPrompt
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.metric_bookmarks import BookmarkList
from stablepay_console.tui.widgets.metric_chart import ChartStyle, MetricChart, MetricLegend
from stablepay_console.tui.widgets.metric_info import MetricInfo
from stablepay_console.tui.widgets.metric_table import MetricTable

HELP = """\
## Metrics

Run a saved reporting metric and read it as a chart or a table.

- Type a **metric ID** (a UUID) and press **Enter**, or pick a **bookmark** and press Enter.
- **r** runs the typed ID again. **t** switches between chart and table; **l** between lines and bars.
- **e** exports the dataset to CSV (exact values, one line per row the server sent).
- **b** bookmarks the typed ID; in the bookmark list **n** renames and **Delete** removes one.
- **i** puts the cursor back in the ID field.

Periods are sorted by time. A bucket the server left out is a gap in the chart, never a zero.
With breakdowns there is one series per combination of values: the ten largest, plus "other".
"""


def check_export_path(text: str) -> str:
    value = typed_path(text)
    if not value:
        raise ValueError("Give a file name.")
    path = Path(value).expanduser()
    try:
        if path.is_dir():
            raise ValueError(f"{clean(path, 200)} is a folder; give a file name.")
        if path.exists():
            raise ValueError(f"{clean(path, 200)} already exists; choose another name.")
    except OSError as exc:  # a name too long for the file system, say
        raise ValueError(f"This path cannot be used: {exc.strerror or exc}.") from None
    return str(path)


class MetricsScreen(ConsoleScreen):
    CSS_PATH = "../styles/metrics.tcss"
    HELP = HELP
    BINDINGS = [
        Binding("r", "run", "Run", id="metrics.run", tooltip="Run the typed metric ID again"),
        Binding("t", "toggle_view", "Chart/Table", id="metrics.view", tooltip="Switch between chart and table"),
        Binding("l", "toggle_style", "Line/Bars", id="metrics.style", tooltip="Draw lines or bars"),
        Binding("e", "export", "Export CSV", id="metrics.export", tooltip="Save the dataset as CSV"),
        Binding("b", "bookmark", "Bookmark", id="metrics.bookmark", tooltip="Bookmark the typed metric ID"),
        Binding("i", "focus_id", "Metric ID", id="metrics.focus_id", tooltip="Type a metric ID"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.result: MetricResult | None = None
        self.result_id: str | None = None
        self.series: MetricSeries | None = None
        self.view = "chart"
        self.chart_style: ChartStyle = "line"
        self.store: BookmarkStore | None = None

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="metric-entry"):
            yield Static("Metric ID", id="metric-id-label")
            yield Input(placeholder="Saved metric ID (UUID); Enter runs it", id="metric-id")
        yield Static("", id="metric-id-error", classes="error")
        with Horizontal(id="metrics-body"):
            with Vertical(id="metrics-side"):
                yield Static("Bookmarks", classes="title")
                yield BookmarkList(id="metric-bookmarks")
                with VerticalScroll(id="metric-info-box"):
                    yield MetricInfo(id="metric-info")
            with Vertical(id="metrics-main"):
                yield Static("", id="metric-status")
                with ContentSwitcher(initial="metric-chart-view", id="metric-views"):
                    with Vertical(id="metric-chart-view"):
                        yield MetricChart(id="metric-chart")
                        yield Static("", id="metric-empty")
                        yield MetricLegend(id="metric-legend")
                    yield MetricTable(id="metric-table")
                yield Static("", id="metric-gaps", classes="hint")

    def on_mount(self) -> None:
        self.load_bookmarks()
        self.query_one(MetricInfo).show(None)
        self.set_status(Text("Type a metric ID and press Enter, or pick a bookmark.", style="dim"))
        self.render_result()

    # --- running ---------------------------------------------------------------------

    def set_status(self, text: Text) -> None:
        self.query_one("#metric-status", Static).update(text)

    def typed_id(self) -> str | None:
        """The typed ID in canonical form, or None after saying inline what is wrong with it."""
        error = self.query_one("#metric-id-error", Static)
        try:
            mid = parse_uuid(self.query_one("#metric-id", Input).value, "metric ID")
        except ValueError as exc:
            error.update(Text(str(exc)))
            return None
        error.update("")
        return mid

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "metric-id":
            self.query_one("#metric-id-error", Static).update("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "metric-id":
            event.stop()
            self.action_run()

    def action_run(self) -> None:
        mid = self.typed_id()
        if mid is not None:
            self.run_metric(mid)

    @work(exclusive=True, group="metric-run")
    async def run_metric(self, metric_id: str) -> None:
        self.set_status(plain(f"Running metric {metric_id}…", style="dim"))
        try:
            result = await self.console.client.run_metric(metric_id)
        except APIError as exc:
            message = Text(f"{exc.kind}: ", style="bold red")
            message.append(clean(str(exc), 300), style="red")
            if self.result is not None:
                message.append(f"  (still showing {short_id(self.result_id)}…)", style="dim")
            self.set_status(message)
            return
        self.result, self.result_id = result, metric_id
        self.series = build_series(result)
        self.render_result()
        if self.focused is self.query_one("#metric-id", Input):
            self.focus_view()

    # --- showing ---------------------------------------------------------------------

    def focus_view(self) -> None:
        target = "#metric-table" if self.view == "table" else "#metric-chart"
        self.query_one(target).focus()

    def status_text(self) -> Text:
        result, series = self.result, self.series
        if result is None or series is None:
            return Text("")
        text = Text()
        text.append(clean(result.metadata.template or "(no template)", 40), style="bold")
        text.append(f" · {short_id(self.result_id)}… · {len(result.data):,} rows")
        if series.periods:
            first, last = series.periods[0], series.periods[-1]
            text.append(f" · {period_label(first, series.interval)} → {period_label(last, series.interval)}")
        shown = f"{self.chart_style} chart" if self.view == "chart" else "table"
        text.append(f" · {shown}", style="dim")
        return text

    def empty_text(self) -> Text:
        result, series = self.result, self.series
        if result is None or series is None:
            return Text("No metric run yet.", style="dim")
        if not result.data:
            return Text("The server returned no rows for this metric: nothing to chart.", style="italic")
        names = ", ".join(sorted({k for row in result.data for k in row.fields}))
        return plain(
            f"These {len(result.data)} rows carry no numeric field to chart"
            + (f" (fields: {names})" if names else "")
            + ". Press t for the table.",
            style="italic",
        )

    def gaps_text(self) -> Text:
        series = self.series
        if series is None or not series.missing:
            return Text("")
        shown = ", ".join(period_label(p, series.interval) for p in series.missing[:8])
        more = len(series.missing) - 8
        return Text(
            f"No data sent for {len(series.missing)} bucket(s), left blank (not zero): {shown}"
            + (f", … and {more} more" if more > 0 else "")
        )

    def render_result(self) -> None:
        series = self.series
        chart = self.query_one(MetricChart)
        empty = self.query_one("#metric-empty", Static)
        legend = self.query_one(MetricLegend)
        has_chart = series is not None and not series.is_empty
        chart.display = has_chart
        legend.display = has_chart
        empty.display = not has_chart
        empty.update(self.empty_text())
        self.query_one("#metric-gaps", Static).update(self.gaps_text())
        if series is not None:
            title = clean(self.result.metadata.template if self.result else "", 40)  # type: ignore[union-attr]
            chart.show(series, self.chart_style, title)
            legend.show(series)
        if self.result is not None:
            self.query_one(MetricTable).show(self.result)
        self.query_one(MetricInfo).show(self.result)
        self.query_one(ContentSwitcher).current = f"metric-{self.view}-view" if self.view == "chart" else "metric-table"
        if self.result is not None:
            self.set_status(self.status_text())

    # --- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_view", "export") and self.result is None:
            return None
        if action == "toggle_style" and (self.result is None or self.view != "chart"):
            return None
        return True

    def action_toggle_view(self) -> None:
        self.view = "table" if self.view == "chart" else "chart"
        self.render_result()
        if self.focused is not self.query_one("#metric-id", Input):
            self.focus_view()
        self.refresh_bindings()

    def action_toggle_style(self) -> None:
        self.chart_style = "bar" if self.chart_style == "line" else "line"
        self.render_result()

    def action_focus_id(self) -> None:
        self.query_one("#metric-id", Input).focus()

    def action_export(self) -> None:
        if self.result is None:
            return
        stamp = self.console.now().strftime("%Y%m%d-%H%M%S")
        default = locations.data_dir() / "exports" / f"metric-{short_id(self.result_id)}-{stamp}.csv"
        result = self.result

        def save(path: str | None) -> None:
            if path is not None:
                self.write_csv(result, Path(path))

        self.app.push_screen(
            MetricPrompt(
                "Save the dataset as CSV",
                str(default),
                check=check_export_path,
                hint="One line per row the server sent, values exact. Enter saves, Escape cancels.",
            ),
            save,
        )

    def write_csv(self, result: MetricResult, path: Path) -> None:
        try:
            locations.ensure(path)
            path.write_text(to_csv(result), encoding="utf-8", newline="")
        except OSError as exc:
            self.notify(f"Could not save the CSV: {exc}", title="Export failed", severity="error", markup=False)
            return
        self.notify(f"Saved {len(result.data)} rows to {path}", title="Exported", markup=False)

    # --- bookmarks ---------------------------------------------------------------------

    def load_bookmarks(self) -> None:
        profile = self.console.profile
        if profile is None:
            return
        self.store = BookmarkStore(profile.name, self.console.services.bookmark_defaults(profile))
        self.query_one(BookmarkList).show(self.store.items)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.store is None or event.option_list.id != "metric-bookmarks":
            return
        event.stop()
        bookmark = self.store.items[event.option_index]
        self.query_one("#metric-id", Input).value = bookmark.id
        self.query_one("#metric-id-error", Static).update("")
        self.run_metric(bookmark.id)

    def action_bookmark(self) -> None:
        mid = self.typed_id()
        store = self.store
        if mid is None or store is None:
            return
        existing = store.find(mid)
        if existing is not None:
            self.notify(f"Already bookmarked as {clean(existing.name)!r}.", markup=False)
            return
        suggestion = ""
        if self.result is not None and self.result_id == mid:
            suggestion = clean(template_name(self.result.metadata.template), 40)

        def add(name: str | None) -> None:
            if name is None:
                return
            store.add(name, mid)
            self.query_one(BookmarkList).show(store.items, highlight=len(store.items) - 1)
            self.notify(f"Bookmarked {mid} as {name!r}.", markup=False)

        self.app.push_screen(MetricPrompt(f"Name the bookmark for {mid}", suggestion, check=bookmark_name), add)

    def on_bookmark_list_rename(self, event: BookmarkList.Rename) -> None:
        store = self.store
        if store is None or not 0 <= event.index < len(store.items):
            return
        index = event.index

        def rename(name: str | None) -> None:
            if name is not None:
                store.rename(index, name)
                self.query_one(BookmarkList).show(store.items, highlight=index)

        current = store.items[index]
        self.app.push_screen(MetricPrompt("Rename the bookmark", current.name, check=bookmark_name), rename)

    def on_bookmark_list_remove(self, event: BookmarkList.Remove) -> None:
        store = self.store
        if store is None or not 0 <= event.index < len(store.items):
            return
        removed = store.remove(event.index)
        self.query_one(BookmarkList).show(store.items, highlight=event.index)
        self.notify(f"Removed the bookmark {removed.name!r}.", markup=False)

    def on_profile_changed(self) -> None:
        """Another profile is another server: its bookmarks, and the typed metric run there."""
        self.load_bookmarks()
        self.result = self.result_id = self.series = None
        self.query_one(MetricTable).clear(columns=True)
        self.render_result()
        self.set_status(Text("Profile changed.", style="dim"))
        mid = self.typed_id() if self.query_one("#metric-id", Input).value.strip() else None
        if mid is not None:
            self.run_metric(mid)
