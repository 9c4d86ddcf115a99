"""The RFI inbox: filter, page, watch deadlines, open a request, export."""

from __future__ import annotations

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static

from stablepay_console.api.validation import MAX_LIMIT
from stablepay_console.services.inbox_pager import NEEDS_ACTION, InboxPager
from stablepay_console.services.provenance import clock_text
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.export_dialog import ExportChoice, ExportDialog
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.export_progress import ExportProgress
from stablepay_console.tui.widgets.inbox_claims import CLAIM_BINDING, CLAIMS_HELP, InboxClaims
from stablepay_console.tui.widgets.inbox_filters import InboxFilterBar
from stablepay_console.tui.widgets.inbox_table import InboxTable
from stablepay_console.tui.widgets.result_status import ResultStatus

AUTO_REFRESH_CHOICES = (0, 15, 30, 60)
"""Seconds between automatic reloads; 0 is off. `t` cycles through them."""

HELP = """\
## RFI inbox

Requests for information raised by compliance, newest first.

- **n** / **p**: next / previous page; **g** / **G**: first / last page.
- **/** focuses the filter bar; **s** and **k** cycle the status and kind filters,
  **u** types a user ID (Enter applies; a value that is not a UUID is refused),
  **x** clears every filter. The page size (1 to 100) is in the filter bar.
- **a** toggles *needs action*: every issued request whose deadline is ahead, nearest first,
  then the *overdue* ones (deadline passed: a reply would be rejected).
- **r** reloads; **t** cycles auto-refresh (off, 15 s, 30 s, 60 s).
- **Enter** opens the request; **c** copies its ID, **y** its user ID.
- **e** exports the current filter, all pages, to CSV or JSON; **Esc** cancels a running export.

The deadline counts down to the current round's `expiresAt`, red under 24 hours.
Pages you visit and their neighbours are kept for a moment, so paging is instant; each is
checked again quietly and marked *updated* when it changed. **r** asks the server afresh.
"""


class InboxScreen(InboxClaims, ConsoleScreen):
    CSS_PATH = "../styles/inbox.tcss"
    HELP = HELP + CLAIMS_HELP
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
        CLAIM_BINDING,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pager: InboxPager | None = None
        self.auto_secs = 0
        self._auto_timer: Timer | None = None
        self._tick_timer: Timer | None = None
        self._rows_that_fit: int | None = None
        """How many rows the table shows (None until its first size is known)."""

    # --- layout -----------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        yield InboxFilterBar(id="inbox-filters")
        yield Static("", id="inbox-active")
        yield Static("", id="inbox-status")
        yield ResultStatus(id="inbox-error", classes="error")
        yield InboxTable(id="inbox-table")
        yield ExportProgress(id="inbox-export")

    def on_mount(self) -> None:
        profile = self.console.profile
        name, environment = (profile.name, profile.environment) if profile is not None else ("", "")
        self.pager = InboxPager(name, environment, self.console.now)
        self._tick_timer = self.set_interval(1.0, self.tick)
        self.query_one(InboxTable).focus()
        fixed = self.console.inbox_page_size
        self.query_one(InboxFilterBar).show_limit(fixed)
        if fixed is not None:
            self.pager.set_limit(fixed)
        self.render_state()
        if fixed is not None:
            self.load()  # with the page size following the table, its first size starts the load

    @on(InboxTable.Fits)
    def follow_table_height(self, event: InboxTable.Fits) -> None:
        """Unless the user chose a page size, a page is as many rows as the table shows."""
        rows, first = min(event.rows, MAX_LIMIT), self._rows_that_fit is None
        self._rows_that_fit = rows
        pager = self.paging
        if self.query_one(InboxFilterBar).limit is not None or (not first and pager.query.limit == rows):
            return
        pager.set_limit(rows)
        if pager.view != NEEDS_ACTION:
            self.load()
        elif pager.action.current is None:
            self.load_needs_action()
        else:
            self.render_state()

    def on_screen_suspend(self, _: events.ScreenSuspend) -> None:
        # Hidden (another mode, or the detail on top): no ticking and no auto-refresh requests.
        for timer in (self._tick_timer, self._auto_timer):
            if timer is not None:
                timer.pause()

    def on_screen_resume(self, _: events.ScreenResume) -> None:
        self.refresh_claims()  # a claim may have changed in the detail
        if self._tick_timer is not None:
            self.tick()
        for timer in (self._tick_timer, self._auto_timer):
            if timer is not None:
                timer.resume()

    def on_profile_changed(self) -> None:
        profile = self.console.profile
        if self.pager is None or profile is None:
            return
        self.pager.set_profile(profile.name, profile.environment)
        self.render_state()  # nothing of the old profile stays on screen, even while the new one loads
        self.action_refresh()
        self.refresh_claims()

    @property
    def table(self) -> InboxTable:
        return self.query_one(InboxTable)

    @property
    def paging(self) -> InboxPager:
        assert self.pager is not None, "the pager is made on mount"
        return self.pager

    # --- loading ----------------------------------------------------------------

    @work(exclusive=True, group="inbox-load")
    async def load(self) -> None:
        """Show the asked page (at once when cached), fetch it, then fetch its neighbours quietly."""
        pager = self.paging
        if pager.show_cached():
            self.render_state()
        pager.begin()
        self.render_state(busy_only=True)
        await pager.load(self.console.client)
        self.render_state()
        if pager.page.error is None:
            self.prefetch()

    @work(exclusive=True, group="inbox-prefetch")
    async def prefetch(self) -> None:
        await self.paging.prefetch(self.console.client)

    @work(exclusive=True, group="inbox-load")
    async def load_needs_action(self) -> None:
        self.paging.begin()
        self.render_state(busy_only=True)
        await self.paging.load_needs_action(self.console.client)
        self.render_state()

    # --- rendering ----------------------------------------------------------------

    def render_state(self, busy_only: bool = False) -> None:
        """Lines above the table, the error, and (unless only busy changed) the rows."""
        if not self.is_mounted or self.pager is None:
            return
        pager = self.pager
        if not busy_only:
            overdue = pager.overdue if pager.view == NEEDS_ACTION else set()
            rows = self.claimed_rows(self.table, pager.rows())
            self.table.show(rows, self.console.now(), overdue=overdue, first=pager.cursor_to_first)
            pager.cursor_to_first = False
        self.query_one(InboxFilterBar).show_filters(pager.filters)
        needs_action = pager.view == NEEDS_ACTION
        view = "needs action (issued: deadline ahead, then overdue)" if needs_action else "all requests"
        active = Text.assemble(("Filters: ", "bold"), clean(pager.filters.describe()), ("   View: ", "bold"), view)
        active.append_text(self.claim_note())
        if self.auto_secs:
            active.append(f"   Auto-refresh: every {self.auto_secs}s")
        self.query_one("#inbox-active", Static).update(active)

        state = pager.state
        status = Text()
        window = pager.window()
        if window is not None:
            offset, limit, total = window
            pages = max(1, -(-total // limit))
            status.append(f"Page {offset // limit + 1} of {pages}, {total} total", style="bold")
            status.append(f" · {limit} per page")
            if total == 0:
                status.append(" · No requests match these filters.")
            if pager.revalidated and not needs_action:
                status.append(" · updated", style="italic green")
        if state.loading:
            status.append(("   " if status else "") + state.loading, style="italic")
        if window is not None and state.current is not None and state.error is None:
            # Last: on one line at 80 columns, where the page came from is what gets cut (the banner says it).
            shown = state.current.provenance
            status.append(f" · {clean(shown.profile, 30)} ({shown.environment}) at {clock_text(shown.at)}", style="dim")
        self.query_one("#inbox-status", Static).update(status)

        error = self.query_one("#inbox-error", ResultStatus)
        error.display = state.error is not None
        if state.error is not None:
            error.show(state, self.table)
        else:
            self.table.set_class(False, "-stale")

    def tick(self) -> None:
        """Re-render only the time cells (countdowns, "created … ago")."""
        self.table.tick(self.console.now())

    def _auto(self) -> None:
        if self.pager is not None and self.pager.state.loading is None:
            self.action_refresh()

    # --- filters -----------------------------------------------------------------

    @on(InboxFilterBar.Applied)
    def apply_filters(self, event: InboxFilterBar.Applied) -> None:
        auto, fits = event.limit is None, self._rows_that_fit
        self.paging.apply(event.filters, event.limit or fits or self.paging.query.limit)
        if isinstance(self.focused, Input):
            self.table.focus()  # Enter applied a typed value: paging keys work again at once
        if auto and fits is None:
            return  # following the table, whose first size starts the load
        self.action_refresh()

    def action_focus_filters(self) -> None:
        self.query_one("#filter-status", Select).focus()

    def action_focus_user(self) -> None:
        self.query_one("#filter-user", Input).focus()

    def action_cycle(self, which: str) -> None:
        self.query_one(InboxFilterBar).cycle(which)

    def action_clear_filters(self) -> None:
        self.paging.clear_filters()
        self.query_one(InboxFilterBar).show(self.paging.query)
        self.action_refresh()

    # --- paging ------------------------------------------------------------------

    def _page_to(self, where: str) -> None:
        goal, message = self.paging.target(where)
        if goal is None:
            if message:
                self.notify(message, severity="warning" if "Nothing" in message else "information", timeout=2)
            return
        self.paging.go(goal)
        if self.paging.view == NEEDS_ACTION:
            self.render_state()
        else:
            self.load()

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
        if self.paging.view == NEEDS_ACTION:
            self.load_needs_action()
        else:
            self.paging.drop_cache()
            self.load()

    def action_toggle_needs_action(self) -> None:
        pager = self.paging
        pager.toggle_view()
        self.render_state()
        if pager.view == NEEDS_ACTION:
            self.load_needs_action()
        elif pager.page.current is None or pager.page.current.provenance.profile != pager.profile:
            self.load()

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
        self.render_state(busy_only=True)

    # --- rows --------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        rfi = self.table.rfis.get(str(event.row_key.value))
        if rfi is not None:
            from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

            state = self.paging.state.current
            self.app.push_screen(RfiDetailScreen(rfi, state.provenance if state is not None else None))

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

    def action_export(self) -> None:
        progress = self.query_one(ExportProgress)
        if progress.running:
            self.notify("An export is already running; Esc cancels it.", severity="warning", timeout=3)
            return
        filters = self.paging.filters

        def chosen(choice: ExportChoice | None) -> None:
            if choice is not None:
                progress.export(self.console.client, choice, filters)

        self.app.push_screen(ExportDialog.for_rfis(filters, self.console.now()), chosen)

    def action_escape(self) -> None:
        progress = self.query_one(ExportProgress)
        if progress.running:
            progress.cancel()
        else:
            self.table.focus()
