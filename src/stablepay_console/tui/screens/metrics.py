"""Metrics: run a saved metric by ID or bookmark, see it as a chart or a table, export it to CSV."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import ContentSwitcher, OptionList, Static

from stablepay_console.api import APIError, MetricResult
from stablepay_console.services.metrics.series import template_name, to_csv
from stablepay_console.services.metrics.view import MetricView, metric_title
from stablepay_console.storage.bookmarks import Bookmark, BookmarkStore, bookmark_name
from stablepay_console.storage.writing import part_file
from stablepay_console.tui.formatters.text import clean, toast_path
from stablepay_console.tui.modals.export_dialog import ExportChoice, ExportDialog
from stablepay_console.tui.modals.metric_prompt import MetricPrompt
from stablepay_console.tui.runtime.audit_hooks import audit_export
from stablepay_console.tui.runtime.deliveries import deliver_bytes, download_name
from stablepay_console.tui.runtime.web_mode import in_browser
from stablepay_console.tui.screens.lookup import LookupScreen
from stablepay_console.tui.widgets.id_entry import IdEntry
from stablepay_console.tui.widgets.metrics.bookmarks import BookmarkList
from stablepay_console.tui.widgets.metrics.chart import MetricChart, MetricLegend
from stablepay_console.tui.widgets.metrics.info import MetricInfo
from stablepay_console.tui.widgets.metrics.table import MetricTable
from stablepay_console.tui.widgets.result_status import ResultStatus

HELP = """\
## Metrics

Run a saved reporting metric and read it as a chart or a table.

- Type a **metric ID** (a UUID) and press **Enter**, or pick a **bookmark** (**m** jumps to the list)
  and press Enter.
- **r** runs again the metric the status line names (after a failure, the one that failed).
  **t** switches between chart and table; **l** between lines and bars.
- **e** exports the dataset to CSV (exact values, one line per row the server sent), named after the
  metric, in the same folder and by the same rules as the inbox export.
- **b** bookmarks the typed ID; in the bookmark list **n** renames and **Delete** removes one.
- **/**, **Enter** or **i** puts the cursor in the ID field (**Esc** leaves it, so the digits switch screens).

Periods are sorted by time. A bucket the server left out is a gap in the chart, never a zero.
With breakdowns there is one series per combination of values: the ten largest, plus "other";
four series or more start as stacked bars.
"""

READY = "/ or Enter: type a metric ID, then Enter; or pick a bookmark (m)."


class MetricsScreen(LookupScreen[MetricResult]):
    CSS_PATH = "../styles/metrics.tcss"
    HELP = HELP
    BINDINGS = [
        Binding("r", "run", "Run", id="metrics.run", tooltip="Run the shown metric again"),
        Binding("t", "toggle_view", "Chart/Table", id="metrics.view", tooltip="Switch between chart and table"),
        Binding("l", "toggle_style", "Line/Bars", id="metrics.style", tooltip="Draw lines or bars"),
        Binding("e", "export", "Export CSV", id="metrics.export", tooltip="Save the dataset as CSV"),
        Binding("b", "bookmark", "Bookmark", id="metrics.bookmark", tooltip="Bookmark the typed metric ID"),
        Binding("m", "focus_bookmarks", "Bookmarks", id="metrics.bookmarks", tooltip="Go to the bookmark list"),
        Binding("slash,enter,i", "focus_id", "Type ID", id="metrics.focus_id",
                tooltip="Type a metric ID (Esc: the keys go back)"),
    ]
    ENTRY, STATUS, RESULT = "#metric-entry", "#metric-status", "#metric-views"

    def __init__(self) -> None:
        super().__init__()
        self.state = MetricView()
        self.result = self.state.result
        self.store: BookmarkStore | None = None

    def compose_body(self) -> ComposeResult:
        yield IdEntry("metric ID", None, id="metric-entry", input_id="metric-id")
        with Horizontal(id="metrics-body"):
            with Vertical(id="metrics-side"):
                yield Static("Bookmarks", id="metric-bookmarks-title", classes="title")
                yield BookmarkList(id="metric-bookmarks")
                with VerticalScroll(id="metric-info-box"):
                    yield MetricInfo(id="metric-info")
            with Vertical(id="metrics-main"):
                yield ResultStatus(READY, id="metric-status")
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
        self.render_result()

    # --- running ---------------------------------------------------------------------

    @on(IdEntry.Requested, "#metric-entry")
    def _requested(self, event: IdEntry.Requested) -> None:
        self.run_metric(event.value)

    def action_run(self) -> None:
        if self.retry_id is not None:
            self.run_metric(self.retry_id)  # the metric the status line names, not what is typed since
        else:
            self.entry.submit()

    @work(exclusive=True, group="metric-run")
    async def run_metric(self, metric_id: str) -> None:
        self.begin(f"Running metric {metric_id}…")
        try:
            result = await self.console.client.run_metric(metric_id)
        except APIError as exc:
            self.failed(exc, metric_id, f"metric {metric_id}")
            return
        loaded = self.succeeded(result, metric_id, f"metric {metric_id}")
        self.state.show(loaded)
        self.render_result()
        if self.focused is self.entry.input or self.focused is self.query_one(BookmarkList):
            self.focus_view()

    # --- showing ---------------------------------------------------------------------

    def focus_view(self) -> None:
        self.query_one("#metric-table" if self.state.view == "table" else "#metric-chart").focus()

    def render_result(self) -> None:
        state, result = self.state, self.state.shown
        series = state.series
        chart = self.query_one(MetricChart)
        has_chart = series is not None and not series.is_empty
        chart.display = has_chart
        self.query_one(MetricLegend).display = has_chart
        empty = self.query_one("#metric-empty", Static)
        empty.display = not has_chart
        empty.update(Text(state.empty_reason(), style="italic"))
        self.query_one("#metric-gaps", Static).update(Text(state.gaps()))
        if series is not None and result is not None:
            chart.show(series, state.style, metric_title(result))
            self.query_one(MetricLegend).show(series)
        if result is not None:
            self.query_one(MetricTable).show(result)
        else:
            self.query_one(MetricTable).clear(columns=True)
        self.query_one(MetricInfo).show(result)
        self.query_one(ContentSwitcher).current = "metric-chart-view" if state.view == "chart" else "metric-table"
        self.render_status(Text(state.summary(), style="bold") if result is not None else None)
        self.query_one("#metric-views").display = True  # the empty-state text lives there too
        self.refresh_bindings()

    # --- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_view", "export") and self.state.shown is None:
            return None
        if action == "toggle_style" and (self.state.shown is None or self.state.view != "chart"):
            return None
        return True

    def action_toggle_view(self) -> None:
        self.state.toggle_view()
        self.render_result()
        if self.focused is not self.entry.input:
            self.focus_view()

    def action_toggle_style(self) -> None:
        self.state.toggle_style()
        self.render_result()

    def action_focus_id(self) -> None:
        self.action_edit_id()

    def action_focus_bookmarks(self) -> None:
        self.query_one(BookmarkList).focus()

    def action_export(self) -> None:
        result = self.state.shown
        if result is None:
            return
        name = self.state.export_name(self.console.now())

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.write_csv(result, choice.path)

        dialog = ExportDialog(
            "Export the metric's dataset",
            f"{metric_title(result)}: one line per row the server sent, values exact.",
            lambda fmt: name,
            formats=("csv",),
        )
        self.app.push_screen(dialog, chosen)

    @work(thread=True, group="metric-export")
    def write_csv(self, result: MetricResult, path: Path) -> None:
        if in_browser():  # a download, straight from memory: nothing is written on the server
            deliver_bytes(self.app, to_csv(result).encode("utf-8"), path.name)
            audit_export(self, "metric dataset", path, len(result.data), target=self.shown_id or "")
            said = f"Exported {len(result.data)} rows: your browser downloads {download_name(path)}"
            self.app.call_from_thread(self.notify, said, title="Exported", markup=False)
            return
        try:
            with part_file(path, "the metric's CSV") as out:
                out.write(to_csv(result))
        except OSError as exc:  # NotWritten: what, where and why, in one line; nothing partial is left
            message = f"Could not save the CSV: {clean(exc, 300)}"
            self.app.call_from_thread(self.notify, message, title="Export failed", severity="error", markup=False)
            audit_export(self, "metric dataset", path, None, "failed: not written", target=self.shown_id or "")
            return
        audit_export(self, "metric dataset", path, len(result.data), target=self.shown_id or "")
        said = f"Saved {len(result.data)} rows to\n{toast_path(path)}"  # a path never broken mid-word
        self.app.call_from_thread(self.notify, said, title="Exported", markup=False)

    # --- bookmarks ---------------------------------------------------------------------

    def load_bookmarks(self) -> None:
        profile = self.console.profile
        if profile is None:
            return
        self.store = BookmarkStore(profile.name, self.console.services.bookmark_defaults(profile))
        self.show_bookmarks(self.store.items)

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def _side_open_while_focused(self) -> None:
        """`-side-open` while the side (bookmarks, details) has the focus: below 100 columns it then takes the
        chart's place (metrics.tcss), rather than squeezing it."""
        focused = self.focused
        side = self.query_one("#metrics-side")
        self.set_class(focused is not None and side in focused.ancestors_with_self, "-side-open")

    def show_bookmarks(self, items: list[Bookmark], highlight: int | None = None) -> None:
        """The list, and its title with the count and the key that goes to it (all a short, narrow screen shows
        of the list until m or Tab opens it)."""
        self.query_one(BookmarkList).show(items, highlight=highlight)
        said = f"Bookmarks ({len(items):,}) · m goes to them" if items else "Bookmarks: none yet · b bookmarks an ID"
        self.query_one("#metric-bookmarks-title", Static).update(said)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.store is None or event.option_list.id != "metric-bookmarks":
            return
        event.stop()
        bookmark = self.store.items[event.option_index]
        self.entry.input.value = bookmark.id
        self.entry.clear_error()
        self.run_metric(bookmark.id)

    def action_bookmark(self) -> None:
        store = self.store
        try:
            mid = self.entry.checked()
        except ValueError as exc:
            self.entry.show_error(str(exc))
            return
        if store is None:
            return
        existing = store.find(mid)
        if existing is not None:
            self.notify(f"Already bookmarked as {clean(existing.name)!r}.", markup=False)
            return
        shown = self.state.shown
        suggestion = metric_title(shown) if shown is not None and self.shown_id == mid else ""
        suggestion = suggestion or (clean(template_name(shown.metadata.template), 40) if shown else "")

        def add(name: str | None) -> None:
            if name is None:
                return
            store.add(name, mid)
            self.show_bookmarks(store.items, highlight=len(store.items) - 1)
            self.notify(f"Bookmarked {mid} as {name!r}.", markup=False)
            self.tell_not_saved(store)

        self.app.push_screen(MetricPrompt(f"Name the bookmark for {mid}", suggestion, check=bookmark_name), add)

    def on_bookmark_list_rename(self, event: BookmarkList.Rename) -> None:
        store = self.store
        if store is None or not 0 <= event.index < len(store.items):
            return
        index = event.index

        def rename(name: str | None) -> None:
            if name is not None:
                store.rename(index, name)
                self.show_bookmarks(store.items, highlight=index)
                self.tell_not_saved(store)

        current = store.items[index]
        self.app.push_screen(MetricPrompt("Rename the bookmark", current.name, check=bookmark_name), rename)

    def on_bookmark_list_remove(self, event: BookmarkList.Remove) -> None:
        store = self.store
        if store is None or not 0 <= event.index < len(store.items):
            return
        removed = store.remove(event.index)
        self.show_bookmarks(store.items, highlight=event.index)
        self.notify(f"Removed the bookmark {removed.name!r}.", markup=False)
        self.tell_not_saved(store)

    def tell_not_saved(self, store: BookmarkStore) -> None:
        if store.not_saved:
            self.notify(store.not_saved, title="Bookmarks not saved", severity="warning", markup=False)
            store.not_saved = None

    def on_profile_changed(self) -> None:
        """Another profile is another server: its bookmarks, and nothing run on the old one."""
        self.load_bookmarks()
        self.state.forget(self.profile_name or "")
        super().on_profile_changed()
        self.render_result()
