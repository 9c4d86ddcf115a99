"""The RFI inbox: filter, page, watch deadlines, open a request, export."""

from __future__ import annotations

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select, Static

from stablepay_console.api.validation import MAX_LIMIT
from stablepay_console.services.inbox_pager import INBOX, MINE, NEEDS_ACTION, QUEUES, REVIEW, WHOLE_VIEWS, InboxPager
from stablepay_console.tui.formatters.inbox_lines import active_line, status_line
from stablepay_console.tui.modals.export_dialog import ExportChoice, ExportDialog
from stablepay_console.tui.runtime.first_rows import keep_first_page, paint_from_record, showing_record
from stablepay_console.tui.screens.inbox_base import InboxBase
from stablepay_console.tui.screens.inbox_go_to import GO_TO_HELP, InboxGoTo
from stablepay_console.tui.screens.inbox_help import HELP
from stablepay_console.tui.team_live import TeamChanged
from stablepay_console.tui.triage.inbox_claims import CLAIM_BINDING, CLAIMS_HELP, InboxClaims
from stablepay_console.tui.triage.inbox_triage import TRIAGE_HELP, InboxTriage
from stablepay_console.tui.triage.queues import QUEUES_HELP, InboxQueues
from stablepay_console.tui.triage.review import REVIEW_HELP, ReviewQueue
from stablepay_console.tui.triage.row_actions import RowActions
from stablepay_console.tui.triage.steps import STEPS_HELP, Entry, StepTaken, step_bindings
from stablepay_console.tui.widgets.inbox.auto_refresh import AutoRefresh
from stablepay_console.tui.widgets.inbox.export_progress import ExportProgress
from stablepay_console.tui.widgets.inbox.filters import InboxFilterBar
from stablepay_console.tui.widgets.inbox.table import InboxTable
from stablepay_console.tui.widgets.result_status import ResultStatus


class InboxScreen(InboxBase):
    CSS_PATH = "../styles/inbox.tcss"
    HELP = (HELP + GO_TO_HELP + CLAIMS_HELP + TRIAGE_HELP
            + "\nOn the highlighted row (only the steps allowed you now show):\n\n" + STEPS_HELP + QUEUES_HELP
            + REVIEW_HELP)
    AUTO_FOCUS = "#inbox-table"
    """The rows have the keys when the inbox opens: focused as the screen is built, not the filter bar first
    (Textual focuses only while the app has the focus; `on_mount` gives it otherwise, as in a browser tab
    that has not yet said it has the focus)."""
    BINDINGS = [
        *step_bindings("inbox"),
        Binding("n", "page('next')", "Next", id="inbox.next", tooltip="Next page"),
        Binding("p", "page('prev')", "Prev", id="inbox.prev", tooltip="Previous page"),
        Binding("g", "page('first')", "First", show=False, id="inbox.first", tooltip="First page"),
        Binding("G", "page('last')", "Last", show=False, id="inbox.last", tooltip="Last page"),
        Binding("slash", "focus_filters", "Filter", id="inbox.filter", tooltip="Focus the filter bar"),
        Binding("s", "cycle('status')", "Status", show=False, id="inbox.status", tooltip="Next status filter"),
        Binding("k", "cycle('kind')", "Kind", show=False, id="inbox.kind", tooltip="Next kind filter"),
        Binding("u", "focus_user", "User", show=False, id="inbox.user", tooltip="Type a user ID filter"),
        Binding("x", "clear_filters", "Clear", show=False, id="inbox.clear", tooltip="Clear every filter"),
        Binding("r", "refresh", "Refresh", id="inbox.refresh", tooltip="Load the page again"),
        Binding("t", "cycle_auto", "Auto", show=False, id="inbox.auto", tooltip="Cycle auto-refresh interval"),
        Binding("a", "toggle_needs_action", "Needs action", id="inbox.action", tooltip="Issued, nearest deadline"),
        Binding("M", "toggle_mine", "Mine", show=False, id="inbox.mine",
                tooltip="My requests: every request of the account claimed by or assigned to me, deadline first"),
        Binding("v", "toggle_review", "Review", show=False, id="inbox.review",
                tooltip="Awaiting my review: every answer of the account someone else made ready, deadline first"),
        Binding("i", "go_to", "Go to", show=False, id="inbox.goto",
                tooltip="Go to request: a whole ID or the 8 characters shown"),
        Binding("o", "cycle_order", "Order", show=False, id="inbox.order",
                tooltip="Sort the page by deadline (nearest first) or by created (newest first)"),
        Binding("e", "export", "Export", id="inbox.export", tooltip="Export the current filter, all pages"),
        Binding("c", "copy_field('id')", "Copy ID", show=False, id="inbox.copy", tooltip="Copy the request ID"),
        Binding("y", "copy_field('user')", "Copy user", show=False, id="inbox.copy_user", tooltip="Copy the user ID"),
        Binding("escape", "escape", "Cancel export", show=False, id="inbox.escape", tooltip="Cancel the export"),
        CLAIM_BINDING,
    ]

    claims: InboxClaims
    queues: InboxQueues

    def __init__(self) -> None:
        super().__init__()
        self.pager = None
        self.auto = AutoRefresh(self, self._auto)
        self._tick_timer: Timer | None = None
        self._rows_that_fit: int | None = None
        """How many rows the table shows (None until its first size is known)."""
        self.claims = InboxClaims(self)
        self.triage = InboxTriage(self, self.claims.marks)
        self.row_actions = RowActions(self, lambda: self.claims.marks.claims, lambda: self.triage.marks.steps,
                                      lambda: self.claims.marks.me)
        self.review = ReviewQueue(self)
        self.go_to = InboxGoTo(self)
        self.queues = InboxQueues(self)

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
        self.query_one(InboxTable).triage_of = self.triage.row_of
        fixed = self.console.inbox_page_size
        self.query_one(InboxFilterBar).show_limit(fixed)
        if fixed is not None:
            self.pager.set_limit(fixed)
        self.render_state()
        paint_from_record(self)  # a repeat start: the first page as last shown, greyed, until the server's
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
        if pager.view == INBOX:
            self.load()
        elif pager.state.current is not None:
            self.render_state()
        elif pager.view == NEEDS_ACTION:
            self.load_needs_action()
        else:
            self.queues.load(pager.view)

    def on_screen_suspend(self, _: events.ScreenSuspend) -> None:
        # Hidden (another mode, or the detail on top): no ticking and no auto-refresh requests.
        self.auto.pause()
        if self._tick_timer is not None:
            self._tick_timer.pause()

    def on_screen_resume(self, _: events.ScreenResume) -> None:
        self.claims.read()  # a claim may have changed in the detail
        self.review.read()
        self.queues.read_again()
        self.triage.want(self.table.order, again=True)
        if self._tick_timer is not None:
            self.tick()
            self._tick_timer.resume()
        self.auto.resume()

    def on_profile_changed(self) -> None:
        profile = self.console.profile
        if self.pager is None or profile is None:
            return
        self.pager.set_profile(profile.name, profile.environment)
        self.render_state()  # nothing of the old profile stays on screen, even while the new one loads
        self.action_refresh()
        self.claims.read()

    # --- loading ----------------------------------------------------------------

    @work(exclusive=True, group="inbox-load")
    async def load(self) -> None:
        """Show the asked page (at once when cached), fetch it, then fetch its neighbours quietly."""
        pager = self.paging
        cached = pager.show_cached()
        if cached:
            self.render_state()
            await self.wait_for_refresh()  # the cached page reaches the screen before anything else runs
            self.prefetch()
        pager.begin()
        self.render_state(busy_only=True)
        changed = await pager.load(self.console.client)
        self.render_state(busy_only=not changed)
        if changed:
            keep_first_page(self)
        if not cached and pager.page.error is None:
            self.prefetch()

    @work(exclusive=True, group="inbox-prefetch")
    async def prefetch(self) -> None:
        await self.paging.prefetch(self.console.client)

    @work(exclusive=True, group="inbox-load")
    async def load_needs_action(self) -> None:
        from stablepay_console.services.team.needs_action import team_reader  # in team mode: the watcher's rows

        self.paging.begin()
        self.render_state(busy_only=True)
        team = team_reader(self.console.services.team_record, self.console.profile)
        await self.paging.load_needs_action(self.console.client, self.render_state, team)
        self.render_state()

    # --- rendering ----------------------------------------------------------------

    def render_state(self, busy_only: bool = False) -> None:
        """Lines above the table, the error, and (unless only busy changed) the rows. Nothing once the screen's
        widgets are gone: a read that ends while the console closes has nowhere to show."""
        if not self.is_mounted or self.pager is None or not self.query(InboxTable):
            return
        pager = self.pager
        if not busy_only:
            overdue = pager.shown_overdue()
            rows = self.claims.rows(self.table, pager.rows())
            self.table.show(rows, self.console.now(), overdue=overdue, first=pager.cursor_to_first)
            pager.cursor_to_first = False
            if not showing_record(pager):
                self.triage.want(rows)
        self.query_one(InboxFilterBar).show_filters(pager.filters)
        self.query_one("#inbox-active", Static).update(active_line(pager, self.claims.note(), self.auto.seconds))
        self.query_one("#inbox-status", Static).update(status_line(pager))
        state = pager.state
        error = self.query_one("#inbox-error", ResultStatus)
        error.display = state.error is not None
        if state.error is not None:
            error.show(state, self.table)
        else:
            self.table.set_class(False, "-stale")
        if showing_record(pager):
            self.table.set_class(True, "-stale")  # rows from the record are never shown as current

    def tick(self) -> None:
        """Re-render only the time cells (countdowns, "created … ago")."""
        self.table.tick(self.console.now())

    def _auto(self) -> None:
        if self.pager is not None and self.pager.state.loading is None:
            self.action_refresh()

    # --- filters -----------------------------------------------------------------

    @on(TeamChanged)
    def read_team_again(self, message: TeamChanged) -> None:
        if message.change.kind == "deliveries" and self.paging.view == NEEDS_ACTION:
            self._auto()  # the team watcher's facts changed: the view reads them again (from the record)
        if message.touches("claims"):
            self.claims.read()
        if message.touches("claims", "triage"):
            self.triage.reread()  # a step, or a claim that changes one
            self.review.read()
            self.queues.read_again()

    @on(StepTaken)
    def read_step_again(self, _: StepTaken) -> None:
        self.claims.read()
        self.triage.reread()
        self.review.read()
        self.queues.read_again()

    # --- the team's process on the highlighted row ---------------------------------

    def on_data_table_row_highlighted(self, _: DataTable.RowHighlighted) -> None:
        self.refresh_bindings()  # the steps offered are the highlighted request's

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "triage_step":
            return self.row_actions.allows(self.table.highlighted, parameters[0])
        return True

    def action_triage_step(self, name: str) -> None:
        self.row_actions.take(self.table.highlighted, name)

    def triage_entries(self) -> list[Entry]:
        return [*self.row_actions.entries(self.table.highlighted), *self.queues.entries()]

    def action_cycle_claims(self) -> None:
        self.claims.cycle()

    def action_toggle_review(self) -> None:
        self.review.toggle()

    def action_toggle_mine(self) -> None:
        self.show_view(MINE)

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

    def action_page(self, where: str) -> None:
        """`n`/`p`/`g`/`G`: the next, previous, first or last page."""
        goal, message = self.paging.target(where)
        if goal is None:
            if message:
                self.notify(message, severity="warning" if "Nothing" in message else "information", timeout=2)
            return
        self.paging.go(goal)
        if self.paging.view in WHOLE_VIEWS:
            self.render_state()
        else:
            self.load()

    # --- views and refresh -------------------------------------------------------

    def action_refresh(self) -> None:
        view = self.paging.view
        if view == REVIEW:
            self.review.read()
        if view == NEEDS_ACTION:
            self.load_needs_action()
        elif view in QUEUES:
            self.queues.load(view)
        else:
            self.paging.drop_cache()
            self.load()

    def action_toggle_needs_action(self) -> None:
        self.show_view(NEEDS_ACTION)

    def show_view(self, view: str) -> None:
        """Into `view` (needs action, a queue) or back to all requests; needs action reads every issued request
        again, a queue its record and its rows again, all requests only when it shows none of this profile."""
        pager = self.paging
        pager.toggle_view(view)
        self.render_state()
        if pager.view == NEEDS_ACTION:
            self.load_needs_action()
        elif pager.view in QUEUES:
            self.queues.load(pager.view)
        elif pager.view == INBOX and (pager.page.current is None
                                      or pager.page.current.provenance.profile != pager.profile):
            self.load()

    def action_go_to(self) -> None:
        self.go_to.ask()

    def action_cycle_order(self) -> None:
        self.go_to.cycle_order()

    def action_cycle_auto(self) -> None:
        self.notify(self.auto.cycle(), timeout=2)
        self.render_state(busy_only=True)

    # --- rows --------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        rfi = self.table.rfis.get(str(event.row_key.value))
        if showing_record(self.paging):
            self.notify("These rows are from the record; the server's page is on its way.", timeout=3)
        elif rfi is not None:
            from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

            state = self.paging.state.current
            self.app.push_screen(RfiDetailScreen(rfi, state.provenance if state is not None else None))

    def action_copy_field(self, what: str) -> None:
        """`c` copies the highlighted request's ID, `y` its user's."""
        rfi = self.table.highlighted
        value = None if rfi is None else (rfi.id if what == "id" else rfi.user_id)
        if rfi is None or not value:
            said = "No request is highlighted." if rfi is None else "This request names no user."
            self.notify(said, severity="warning", timeout=3)
            return
        self.console.copy_with_notice(value, "the request ID" if what == "id" else "the user ID")

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
