"""One RFI: the request, the held transfer, the current round with a live deadline, its items, the link."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Static

from stablepay_console.api.models import Rfi
from stablepay_console.services.provenance import Provenance
from stablepay_console.services.triage.process import Process, process
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_triage_types import NO_POLICY, TriageCase
from stablepay_console.tui.formatters.rfi import held_transfer, link_absence_reason, link_line, status_long
from stablepay_console.tui.formatters.text import NO_DEADLINE, ago, clean, countdown, plain, when
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.team_live import TeamChanged
from stablepay_console.tui.triage.claims import ClaimActions
from stablepay_console.tui.triage.process_view import ProcessLine, StepHistory, process_line
from stablepay_console.tui.triage.steps import STEPS_HELP, Entry, StepTaken, StepTaker, step_bindings
from stablepay_console.tui.widgets.rfi.items import RfiItemsTable
from stablepay_console.tui.widgets.rfi.record import RECORD_BINDINGS, RECORD_HELP, RecordActions, RfiRecordPanel

HELP = """\
## Request for information

The request, the transfer it holds (transaction requests), the current round with its
deadline counting down, and the items the round asks for, in the server's order.

- **o** opens the hosted reply page in the browser; **l** copies its link.
- **c** copies the request ID, **u** the user ID, **t** the held transfer ID,
  **d** the round ID, **i** the highlighted item's ID (quoted as `requestItemId` in a reply).
- **Up**, **Down**, **PageUp**, **PageDown**, **Home** and **End** scroll the request; **Tab** goes to the
  items (their rows), and **Tab** again, or **Up** on the first item, back to the top of the request.
- **Esc** goes back to the inbox.

When the round has no link, the screen says why: answered and under review, closed, or asked again.

### The team's process

Under the deadline: the request's triage step, who holds it (and the lead who assigned it), and, where service
levels are set (`record policy`), the time left to its next one (red once breached, "paused" while waiting on the
user); below the request, every step of
this round (when, who, step, note). Only the steps that make sense for you now show their keys; each asks for its
note (Enter takes the step):

""" + STEPS_HELP + """

The command palette (Ctrl+P) has the same under their names ("Mark ready", "Approve", "Reject", "Waiting on the
user", "Resume"), and, with the team record, "Assign to…" (a lead gives the request to an analyst) and "Release
claim" (a lead releases someone else's claim; both ask first).
"""


class DetailBody(VerticalScroll):
    """The detail's scrolling body. It has the keys when the request opens (Up, Down, PageUp, PageDown, Home and
    End scroll it), and each time it is given them again (Tab, Shift+Tab, or Up, PageUp or Home on the items' first
    row) it shows its top: the title and the request's ID, status and user."""

    def on_focus(self) -> None:
        self.scroll_home(animate=False, immediate=True)

    # The keys move it at once, never animated nor deferred: keys pressed in a burst (six Downs, or a held key on
    # a busy machine) land exactly where they add up to. Deferred to the next refresh, each key of a burst would
    # start from the same place, and six Downs would move one line.
    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False, immediate=True)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False, immediate=True)

    def action_page_up(self) -> None:
        self.scroll_to(y=self.scroll_target_y - self.scrollable_content_region.height, animate=False, immediate=True)

    def action_page_down(self) -> None:
        self.scroll_to(y=self.scroll_target_y + self.scrollable_content_region.height, animate=False, immediate=True)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, immediate=True)


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    return grid


class LinkLine(Static):
    """The hosted link on one line as wide as the screen, never broken inside its ID (`link_line`); without a
    link, why there is none (that wraps: it is words). Once the round's deadline has passed unanswered, the link
    is not offered to reply with: the provider would reject the reply (`l` still copies it, for the record)."""

    def __init__(self, rfi: Rfi, now: Callable[[], datetime], **kwargs: Any) -> None:
        self.rfi, self.now = rfi, now
        self.passed = self._deadline_passed()
        super().__init__(self._line(None), **kwargs)

    def _deadline_passed(self) -> bool:
        r = self.rfi.round
        return r is not None and r.submitted_at is None and r.expires_at is not None and r.expires_at <= self.now()

    def _line(self, width: int | None) -> Text:
        r = self.rfi.round
        if r is not None and r.link and self.passed:
            return Text.assemble(("No reply can be sent: ", "bold"),
                                 "the deadline passed, so the provider would reject one through the hosted link.")
        if r is not None and r.link:
            return link_line(r.link, width)
        return Text.assemble(("No hosted link. ", "bold"), link_absence_reason(self.rfi))

    def on_resize(self, _: events.Resize) -> None:
        self.update(self._line(self.size.width))

    def recheck(self) -> None:
        """At each tick: the deadline may have passed while the request is open."""
        passed = self._deadline_passed()
        if passed != self.passed:
            self.passed = passed
            self.update(self._line(self.size.width or None))
            self.screen.refresh_bindings()


class RfiDetailScreen(RecordActions, ConsoleScreen):
    CSS_PATH = "../styles/rfi_detail.tcss"
    HELP = HELP + RECORD_HELP
    BINDINGS = [
        Binding("escape", "back", "Back", id="rfi.back", tooltip="Back to the inbox"),
        *step_bindings("rfi"),
        Binding("o", "open_link", "Open link", id="rfi.open", tooltip="Open the hosted reply page"),
        Binding("l", "copy_link", "Copy link", id="rfi.copy_link", tooltip="Copy the hosted link"),
        Binding("c", "copy_id('request')", "Copy ID", id="rfi.copy_id", tooltip="Copy the request ID"),
        Binding("u", "copy_id('user')", "User ID", id="rfi.copy_user", tooltip="Copy the user ID"),
        Binding("t", "copy_id('transfer')", "Transfer ID", id="rfi.copy_transfer", tooltip="Copy the transfer ID"),
        Binding("d", "copy_id('round')", "Round ID", show=False, id="rfi.copy_round", tooltip="Copy the round ID"),
        Binding("i", "copy_id('item')", "Item ID", id="rfi.copy_item", tooltip="Copy the highlighted item's ID"),
        *RECORD_BINDINGS,
    ]

    def __init__(self, rfi: Rfi, provenance: Provenance | None = None) -> None:
        super().__init__()
        self.rfi = rfi
        self.provenance = provenance
        """Where the request was read: the inbox page's profile, filters and time."""
        self._tick_timer: Timer | None = None
        self.steps = StepTaker(self)
        self.claims = ClaimActions(self)
        self.case: TriageCase | None = None
        self.policy = NO_POLICY  # until the record is read: no level shown
        self.process_problem = ""

    def compose_body(self) -> ComposeResult:
        # Only the body scrolls (the banner stays). It opens at its top: what a reply needs comes first, so at 80x24
        # the title, the time left, the triage line and the link (one line each) and the round's first items are on
        # the first screen; the request's details, its steps and the record below them.
        rfi = self.rfi
        items = rfi.round.items if rfi.round is not None else []
        title = f"Items ({len(items)}), in the order the server gives them" if items else "No items: no round is open."
        heading = Text.assemble(("Request for information ", "bold"), clean(rfi.id), no_wrap=True, overflow="ellipsis")
        with DetailBody(id="rfi-body"):
            yield Static(heading, id="rfi-title")
            yield Static(self._provenance_line(), id="rfi-provenance")
            yield Static("", id="rfi-countdown")
            yield ProcessLine(process_line(None), id="rfi-process")
            yield LinkLine(self.rfi, self.console.now, id="rfi-link")
            yield Static(Text(title), id="rfi-items-title")
            yield RfiItemsTable(items, id="rfi-items")
            with Horizontal(id="rfi-panels"):
                yield Static(self._request_panel(), id="rfi-request")
                with Vertical(id="rfi-round-box"):
                    yield Static(self._round_panel(), id="rfi-round")
            yield StepHistory(id="rfi-steps")
            yield RfiRecordPanel(rfi.id, id="rfi-record")

    def on_mount(self) -> None:
        self.tick()
        self._tick_timer = self.set_interval(1.0, self.tick)
        self.query_one(DetailBody).focus()
        self.read_process()

    def on_rfi_items_table_above_top(self, _: RfiItemsTable.AboveTop) -> None:
        self.query_one(DetailBody).focus()

    def on_screen_suspend(self, _: events.ScreenSuspend) -> None:
        if self._tick_timer is not None:
            self._tick_timer.pause()

    def on_screen_resume(self, _: events.ScreenResume) -> None:
        if self._tick_timer is not None:
            self.tick()
            self._tick_timer.resume()

    def _provenance_line(self) -> Text:
        if self.provenance is None:
            return Text("")
        return Text(f"From {self.provenance.describe()}", style="dim")

    @on(TeamChanged)
    def read_team_again(self, message: TeamChanged) -> None:
        if message.everything or message.change.rfi_id == self.rfi.id:
            for panel in self.query(RfiRecordPanel):
                panel.reload()
            self.read_process()

    @on(StepTaken)
    def read_step_again(self, message: StepTaken) -> None:
        if message.rfi_id == self.rfi.id:
            for panel in self.query(RfiRecordPanel):
                panel.reload()
            self.read_process()

    # --- the team's process ----------------------------------------------------------

    @work(exclusive=True, group="rfi-process")
    async def read_process(self) -> None:
        profile = self.console.profile
        try:
            case, self.policy = await asyncio.wrap_future(
                self.console.services.triage.case(profile.name if profile else "", self.rfi.id))
            self.case, self.process_problem = case, ""
        except RecordError as exc:
            self.case, self.process_problem = None, clean(str(exc), 200)
        try:
            self.query_one(StepHistory).show(self.process_now(self.console.now()))
            self.tick()
        except NoMatches:  # the screen was dismissed while the record was read
            return
        self.refresh_bindings()

    def process_now(self, now: datetime) -> Process | None:
        if self.case is None:
            return None
        return process(self.rfi, self.case, self.policy, self.claims.me, now)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_link":  # past the deadline a reply through the link would be rejected: not offered
            r = self.rfi.round
            lines = list(self.query(LinkLine).results(LinkLine))  # none while the screen is being dismissed
            return not (r is not None and r.link and any(line.passed for line in lines))
        if action == "triage_step":
            found = self.process_now(self.console.now())
            return found is not None and any(step.name == parameters[0] for step in found.offered)
        return True

    def action_triage_step(self, name: str) -> None:
        self.steps.take(self.rfi, name)

    def action_claim(self) -> None:
        found = self.process_now(self.console.now())
        if found is None:
            self.notify(self.process_problem or "The record is still being read.", title="Claim",
                        severity="warning", markup=False)
            return
        self.claims.toggle(self.rfi.id, self.case.claim if self.case else None, found.step)

    def triage_entries(self) -> list[Entry]:
        """The palette's entries for this request: the steps offered, assignment and a lead's release."""
        found = self.process_now(self.console.now())
        if found is None:
            return []
        entries = self.steps.entries(self.rfi, list(found.offered))
        claim = self.case.claim if self.case else None
        if self.console.services.team is not None:  # assignment is the team record's (Offer.ASSIGNMENT)
            entries.append(("Assign to…", partial(self.claims.assign, self.rfi.id, claim),
                            "give this request to an analyst of the team (a lead's right)"))
        if claim is not None and claim.claimant != self.claims.me:
            entries.append(("Release claim", partial(self.claims.release_other, self.rfi.id, claim),
                            f"release {clean(claim.claimant, 40)}'s claim (a lead's right; asks first)"))
        return entries

    def on_profile_changed(self) -> None:
        """This request was read under another profile: grey it and say so; nothing here is current now."""
        shown = self.provenance
        profile = self.console.profile
        if shown is None or profile is None or shown.profile == profile.name:
            return
        self.add_class("-stale")
        self.query_one("#rfi-provenance", Static).update(
            Text.assemble(
                (f"Read under profile {clean(shown.profile, 40)} ({shown.environment}), ", "bold yellow"),
                (f"not {clean(profile.name, 40)}: ", "bold yellow"),
                ("Esc goes back to the inbox of the profile in use.", "yellow"),
            )
        )

    # --- panels ------------------------------------------------------------------

    def _request_panel(self) -> Table:
        rfi, now = self.rfi, self.console.now()
        grid = _grid()
        grid.add_row("ID", plain(rfi.id))
        grid.add_row("Kind", plain(rfi.kind))
        grid.add_row("Status", status_long(rfi.status))
        grid.add_row("Subject", plain(rfi.subject_type))
        grid.add_row("User", plain(rfi.user_id or "none given"))
        grid.add_row("Created", plain(f"{when(rfi.created_at)} ({ago(rfi.created_at, now)})"))
        grid.add_row("Current round", plain(rfi.current_round if rfi.current_round is not None else "none open"))
        for label, value in held_transfer(rfi):
            grid.add_row(label, value)
        return grid

    def _round_panel(self) -> Table | Text:
        r = self.rfi.round
        if r is None:
            return Text("No round is open.", style="dim")
        grid = _grid()
        grid.add_row("Round", plain(f"{r.round}  (ID {r.id})"))
        grid.add_row("Issued", plain(when(r.issued_at)))
        grid.add_row("Deadline", plain(when(r.expires_at) if r.expires_at else "no deadline given"))
        grid.add_row("Submitted", plain(when(r.submitted_at)) if r.submitted_at else Text("not yet answered", "dim"))
        return grid

    def tick(self) -> None:
        """Re-render only the countdown line."""
        r = self.rfi.round
        line = Text()
        if r is not None and r.submitted_at is not None:
            if r.expires_at is not None:
                line.append("Answered; no reply is due.", style="dim")
        elif r is not None:
            line.append("Time left: ", style="bold")
            if r.expires_at is None:
                line.append(f"{NO_DEADLINE} (the round gives no date a reply is due by)", style="dim")
            else:
                line.append_text(countdown(r.expires_at, self.console.now()))
        self.query_one("#rfi-countdown", Static).update(line)
        self.query_one(LinkLine).recheck()
        self.query_one(ProcessLine).update(process_line(self.process_now(self.console.now()), self.process_problem))

    # --- actions -----------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_open_link(self) -> None:
        r = self.rfi.round
        if r is None or not r.link:
            self.notify(link_absence_reason(self.rfi), title="No link", severity="warning", markup=False)
            return
        outcome = self.console.open_link(r.link, "hosted reply page")
        self.console.services.audit.append("link.open", self.console.profile, target=self.rfi.id, outcome=outcome,
                                           what="hosted link")

    def action_copy_link(self) -> None:
        r = self.rfi.round
        if r is None or not r.link:
            self.notify(link_absence_reason(self.rfi), title="No link", severity="warning", markup=False)
            return
        outcome = self.console.copy_link(r.link, "hosted link")  # only an https (or loopback) link, sanitised
        self.console.services.audit.append("link.copy", self.console.profile, target=self.rfi.id, outcome=outcome,
                                           what="hosted link")

    def action_copy_id(self, what: str) -> None:
        rfi = self.rfi
        item = self.query_one(RfiItemsTable).highlighted
        values = {
            "request": (rfi.id, "the request ID", ""),
            "user": (rfi.user_id, "the user ID", "This request names no user."),
            "transfer": (rfi.transfer_id, "the transfer ID", "This request holds no transfer."),
            "round": (rfi.round.id if rfi.round else None, "the round ID", "No round is open."),
            "item": (item.id if item else None, "the item ID", "No item is highlighted."),
        }
        value, label, missing = values[what]
        if not value:
            self.notify(missing, severity="warning", timeout=3)
            return
        self.console.copy_with_notice(value, label)
