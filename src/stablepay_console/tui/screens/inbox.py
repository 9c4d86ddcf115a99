"""The RFI inbox: filter, page, watch deadlines, open a request, export."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static
from textual.worker import Worker

from stablepay_console.api import APIError, Rfi, RfiPage, ValidationFailed
from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.export import export_rfis
from stablepay_console.tui.formatters.text import clean, plain
from stablepay_console.tui.modals.inbox_export import ExportChoice, ExportDialog, ExportProgress
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.inbox_filters import InboxFilterBar, InboxQuery
from stablepay_console.tui.widgets.inbox_table import InboxTable

AUTO_REFRESH_CHOICES = (0, 15, 30, 60)
"""Seconds between automatic reloads; 0 is off. `t` cycles through them."""

INBOX, NEEDS_ACTION = "inbox", "needs action"

HELP = """\
## RFI inbox

Requests for information raised by compliance, newest first.

- **n** / **p**: next / previous page; **g** / **G**: first / last page.
- **/** focuses the filter bar; **s** and **k** cycle the status and kind filters,
  **u** types a user ID (Enter applies; a value that is not a UUID is refused),
  **x** clears every filter. The page size (1 to 100) is in the filter bar.
- **a** toggles *needs action*: every issued request, nearest deadline first.
- **r** reloads; **t** cycles auto-refresh (off, 15 s, 30 s, 60 s).
- **Enter** opens the request; **c** copies its ID, **y** its user ID.
- **e** exports the current filter, all pages, to CSV or JSON; **Esc** cancels a running export.

The deadline counts down to the current round's `expiresAt`, red under 24 hours.
"""


def nearest_deadline_first(rfis: list[Rfi]) -> list[Rfi]:
    """Deadline ascending, requests with no deadline last (stable, so newest first among those)."""
    dated = sorted((r for r in rfis if r.deadline is not None), key=lambda r: r.deadline)  # type: ignore[arg-type,return-value]
    return dated + [r for r in rfis if r.deadline is None]


class InboxScreen(ConsoleScreen):
    CSS_PATH = "../styles/inbox.tcss"
    HELP = HELP
    BINDINGS = [
        Binding("n", "next_page", "Next", id="inbox.next", tooltip="Next page"),
        Binding("p", "prev_page", "Prev", id="inbox.prev", tooltip="Previous page"),
        Binding("g", "first_page", "First", show=False, id="inbox.first", tooltip="First page"),
        Binding("G", "last_page", "Last", show=False, id="inbox.last", tooltip="Last page"),
        Binding("slash", "focus_filters", "Filter", id="inbox.filter", tooltip="Focus the filter bar"),
        Binding("s", "cycle('status')", "Status", show=False, id="inbox.status", tooltip="Next status filter"),
        Binding("k", "cycle('kind')", "Kind", show=False, id="inbox.kind", tooltip="Next kind filter"),
        Binding("u", "focus_user", "User", show=False, id="inbox.user", tooltip="Type a user ID filter"),
        Binding("x", "clear_filters", "Clear", show=False, id="inbox.clear", tooltip="Clear every filter"),
        Binding("r", "refresh", "Refresh", id="inbox.refresh", tooltip="Load the page again"),
        Binding("t", "cycle_auto", "Auto", show=False, id="inbox.auto", tooltip="Cycle auto-refresh interval"),
        Binding("a", "toggle_needs_action", "Needs action", id="inbox.action", tooltip="Issued, nearest deadline"),
        Binding("e", "export", "Export", id="inbox.export", tooltip="Export the current filter, all pages"),
        Binding("c", "copy_id", "Copy ID", show=False, id="inbox.copy", tooltip="Copy the request ID"),
        Binding("y", "copy_user", "Copy user", show=False, id="inbox.copy_user", tooltip="Copy the user ID"),
        Binding("escape", "escape", "Cancel export", show=False, id="inbox.escape", tooltip="Cancel the export"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.query_state = InboxQuery()
        """What was asked for last (filters, page window)."""
        self.page: RfiPage | None = None
        """The last page that loaded; kept on screen when a later load fails."""
        self.shown_query: InboxQuery | None = None
        self.view = INBOX
        self.action_rfis: list[Rfi] | None = None
        self.action_offset = 0
        self.busy: str | None = None
        self.error: Text | None = None
        self.auto_secs = 0
        self._auto_timer: Timer | None = None
        self._tick_timer: Timer | None = None
        self._load_gen = 0
        self.export_worker: Worker[None] | None = None

    # --- layout -----------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        yield InboxFilterBar(id="inbox-filters")
        yield Static("", id="inbox-active")
        yield Static("", id="inbox-status")
        yield Static("", id="inbox-error", classes="error")
        yield InboxTable(id="inbox-table")
        yield ExportProgress(id="inbox-export")

    def on_mount(self) -> None:
        self._tick_timer = self.set_interval(1.0, self.tick)
        self.query_one(InboxTable).focus()
        self._render_lines()
        self.load()

    def on_screen_suspend(self, _: events.ScreenSuspend) -> None:
        # Hidden (another mode, or the detail on top): no ticking and no auto-refresh requests.
        for timer in (self._tick_timer, self._auto_timer):
            if timer is not None:
                timer.pause()

    def on_screen_resume(self, _: events.ScreenResume) -> None:
        if self._tick_timer is not None:
            self.tick()
        for timer in (self._tick_timer, self._auto_timer):
            if timer is not None:
                timer.resume()

    def on_profile_changed(self) -> None:
        self.page = self.shown_query = None
        self.action_rfis = None
        self.query_state = replace(self.query_state, offset=0)
        self.action_refresh()

    @property
    def table(self) -> InboxTable:
        return self.query_one(InboxTable)

    @property
    def filters(self) -> RfiFilters:
        """The filters in force; needs action always means issued."""
        if self.view == NEEDS_ACTION:
            return replace(self.query_state.filters, status="issued")
        return self.query_state.filters

    # --- loading ----------------------------------------------------------------

    def _begin(self, what: str) -> int:
        self._load_gen += 1
        self.busy = what
        self._render_lines()
        return self._load_gen

    def _end(self, gen: int) -> None:
        if gen == self._load_gen:
            self.busy = None
            self._render_lines()

    def _fail(self, exc: APIError) -> None:
        text = Text(f"{exc.kind}: {clean(str(exc) if not isinstance(exc, ValidationFailed) else exc.message)}")
        if isinstance(exc, ValidationFailed):
            for field in exc.fields:
                code = f" ({clean(field.code)})" if field.code else ""
                text.append(f"\n  • {clean(field.field)}: {clean(field.message)}{code}")
        text.append("\nThe last page that loaded is still shown; r tries again.", style="dim")
        self.error = text

    @work(exclusive=True, group="inbox-load")
    async def load(self) -> None:
        """Fetch the page `query_state` names; on failure keep what is on screen."""
        query = self.query_state
        gen = self._begin(f"Loading page {query.offset // query.limit + 1}…")
        try:
            f = query.filters
            page = await self.console.client.list_rfis(f.status, f.kind, f.user_id, query.limit, query.offset)
            p = page.pagination
            if not page.data and p.total > 0 and p.offset >= p.total:
                # The list shrank since the last page was counted: show the new last page instead.
                query = replace(query, offset=(p.total - 1) // query.limit * query.limit)
                page = await self.console.client.list_rfis(f.status, f.kind, f.user_id, query.limit, query.offset)
        except APIError as exc:
            self._fail(exc)
            if self.shown_query is not None and self.shown_query.filters == query.filters:
                self.query_state = replace(self.query_state, offset=self.shown_query.offset)
        else:
            self.error = None
            self.page, self.shown_query = page, query
            self.query_state = replace(query, offset=page.pagination.offset)
            if self.view == INBOX:
                self.table.show(page.data, self.console.now())
        finally:
            self._end(gen)

    @work(exclusive=True, group="inbox-load")
    async def load_needs_action(self) -> None:
        """Every issued request matching the kind and user filters, nearest deadline first."""
        gen = self._begin("Loading every issued request…")
        f = self.filters
        try:
            found = [rfi async for rfi in self.console.client.iter_rfis(f.status, f.kind, f.user_id)]
        except APIError as exc:
            self._fail(exc)
            if self.action_rfis is None:
                self.view = INBOX
        else:
            self.error = None
            self.action_rfis = nearest_deadline_first(found)
            limit = self.query_state.limit
            self.action_offset = min(self.action_offset, max(0, len(found) - 1) // limit * limit)
            if self.view == NEEDS_ACTION:
                self._show_action_page()
        finally:
            self._end(gen)

    def _show_action_page(self) -> None:
        rows = self.action_rfis or []
        limit = self.query_state.limit
        self.table.show(rows[self.action_offset : self.action_offset + limit], self.console.now())
        self._render_lines()

    # --- what the lines above the table say --------------------------------------

    def _window(self) -> tuple[int, int, int] | None:
        """(offset, limit, total) of what the table shows, or None before anything loaded."""
        limit = self.query_state.limit
        if self.view == NEEDS_ACTION:
            if self.action_rfis is None:
                return None
            return self.action_offset, limit, len(self.action_rfis)
        if self.page is None:
            return None
        return self.query_state.offset, self.page.pagination.limit, self.page.pagination.total

    def _render_lines(self) -> None:
        if not self.is_mounted:
            return
        view = "needs action (issued, nearest deadline first)" if self.view == NEEDS_ACTION else "all requests"
        active = Text.assemble(("Filters: ", "bold"), clean(self.filters.describe()), ("   View: ", "bold"), view)
        if self.auto_secs:
            active.append(f"   Auto-refresh: every {self.auto_secs}s")
        self.query_one("#inbox-active", Static).update(active)

        status = Text()
        window = self._window()
        if window is not None:
            offset, limit, total = window
            pages = max(1, -(-total // limit))
            status.append(f"Page {offset // limit + 1} of {pages}, {total} total", style="bold")
            status.append(f" · {limit} per page")
            if total == 0:
                status.append(" · No requests match these filters.")
            shown = self.shown_query
            if self.view == INBOX and shown is not None and shown.filters != self.query_state.filters:
                status.append(f" · showing the last good page ({clean(shown.filters.describe())})", style="yellow")
        if self.busy:
            status.append(("   " if status else "") + self.busy, style="italic")
        self.query_one("#inbox-status", Static).update(status)

        error = self.query_one("#inbox-error", Static)
        error.update(self.error or "")
        error.display = self.error is not None

    # --- ticking -----------------------------------------------------------------

    def tick(self) -> None:
        """Re-render only the deadline cells (the countdown)."""
        self.table.tick(self.console.now())

    def _auto(self) -> None:
        if self.busy is None:
            self.action_refresh()

    # --- filters -----------------------------------------------------------------

    @on(InboxFilterBar.Applied)
    def apply_filters(self, event: InboxFilterBar.Applied) -> None:
        if self.view == NEEDS_ACTION and event.filters.status != self.query_state.filters.status:
            self.view = INBOX  # choosing a status means leaving the issued-only view
        self.query_state = InboxQuery(filters=event.filters, limit=event.limit, offset=0)
        self.action_offset = 0
        if isinstance(self.focused, Input):
            self.table.focus()  # Enter applied a typed value: paging keys work again at once
        self.action_refresh()

    def action_focus_filters(self) -> None:
        self.query_one("#filter-status", Select).focus()

    def action_focus_user(self) -> None:
        self.query_one("#filter-user", Input).focus()

    def action_cycle(self, which: str) -> None:
        self.query_one(InboxFilterBar).cycle(which)

    def action_clear_filters(self) -> None:
        self.view = INBOX
        self.query_state = InboxQuery(limit=self.query_state.limit)
        self.query_one(InboxFilterBar).show(self.query_state)
        self.action_refresh()

    # --- paging ------------------------------------------------------------------

    def _go(self, offset: int) -> None:
        if self.view == NEEDS_ACTION:
            self.action_offset = offset
            self._show_action_page()
        else:
            self.query_state = replace(self.query_state, offset=offset)
            self.load()

    def _page_to(self, where: str) -> None:
        window = self._window()
        if window is None:
            self.notify("Nothing has loaded yet.", severity="warning", timeout=3)
            return
        offset, limit, total = window
        last = max(0, (total - 1) // limit * limit)
        target = {"next": offset + limit, "prev": offset - limit, "first": 0, "last": last}[where]
        if target > last:
            self.notify("This is the last page.", timeout=2)
        elif target < 0:
            self.notify("This is the first page.", timeout=2)
        elif target != offset:
            self._go(target)

    def action_next_page(self) -> None:
        self._page_to("next")

    def action_prev_page(self) -> None:
        self._page_to("prev")

    def action_first_page(self) -> None:
        self._page_to("first")

    def action_last_page(self) -> None:
        self._page_to("last")

    # --- views and refresh -------------------------------------------------------

    def action_refresh(self) -> None:
        if self.view == NEEDS_ACTION:
            self.load_needs_action()
        else:
            self.load()

    def action_toggle_needs_action(self) -> None:
        if self.view == NEEDS_ACTION:
            self.view = INBOX
            if self.page is not None:
                self.table.show(self.page.data, self.console.now())
            self._render_lines()
            return
        self.view = NEEDS_ACTION
        self.action_offset = 0
        if self.action_rfis is not None:
            self._show_action_page()
        self.load_needs_action()

    def action_cycle_auto(self) -> None:
        choices = AUTO_REFRESH_CHOICES
        self.auto_secs = choices[(choices.index(self.auto_secs) + 1) % len(choices)]
        if self._auto_timer is not None:
            self._auto_timer.stop()
            self._auto_timer = None
        if self.auto_secs:
            self._auto_timer = self.set_interval(self.auto_secs, self._auto)
        said = f"Auto-refresh every {self.auto_secs}s." if self.auto_secs else "Auto-refresh off."
        self.notify(said, timeout=2)
        self._render_lines()

    # --- rows --------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        rfi = self.table.rfis.get(str(event.row_key.value))
        if rfi is not None:
            from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

            self.app.push_screen(RfiDetailScreen(rfi))

    def action_copy_id(self) -> None:
        rfi = self.table.highlighted
        if rfi is None:
            self.notify("No request is highlighted.", severity="warning", timeout=3)
            return
        self.console.copy_with_notice(rfi.id, "the request ID")

    def action_copy_user(self) -> None:
        rfi = self.table.highlighted
        if rfi is None or not rfi.user_id:
            self.notify("This request names no user.", severity="warning", timeout=3)
            return
        self.console.copy_with_notice(rfi.user_id, "the user ID")

    # --- export ------------------------------------------------------------------

    @property
    def exporting(self) -> bool:
        return self.export_worker is not None and not self.export_worker.is_finished

    def action_export(self) -> None:
        if self.exporting:
            self.notify("An export is already running; Esc cancels it.", severity="warning", timeout=3)
            return
        filters = self.filters

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                self.export_worker = self.run_export(choice[0], choice[1], filters)

        self.app.push_screen(ExportDialog(filters, self.console.now()), chosen)

    @work(exclusive=True, group="inbox-export")
    async def run_export(self, fmt: str, path: Path, filters: RfiFilters) -> None:
        progress = self.query_one(ExportProgress)
        progress.start(path)
        try:
            result = await export_rfis(self.console.client, path, fmt, filters, progress=progress.progress)
        except asyncio.CancelledError:
            progress.finish(Text("Export cancelled; no file was written.", style="yellow"))
            self.notify("Export cancelled; no file was written.", timeout=3)
            raise
        except (APIError, OSError) as exc:
            kind = exc.kind if isinstance(exc, APIError) else "Could not write"
            progress.finish(plain(f"Export failed, no file was written: {kind}: {exc}", style="bold red"))
            self.notify(f"Export failed: {clean(str(exc), 200)}", severity="error", markup=False)
        else:
            where = clean(result.path)
            progress.finish(Text(f"Exported {result.count} requests to {where}", style="green"))
            self.notify(f"Exported {result.count} requests to {where}", title="Export done", markup=False)

    def action_escape(self) -> None:
        if self.exporting and self.export_worker is not None:
            self.export_worker.cancel()
        else:
            self.table.focus()
