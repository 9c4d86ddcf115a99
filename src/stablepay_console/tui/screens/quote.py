"""Quote refresh: what rate will this onramp's user get now, and how did it move?"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Static

from stablepay_console.api import APIError, StatusError
from stablepay_console.api.models import OPEN_QUOTE, OnrampTransfer
from stablepay_console.services.quote_refreshes import QuoteHistory
from stablepay_console.tui.formatters.text import clean, when
from stablepay_console.tui.modals.confirm import ConfirmScreen
from stablepay_console.tui.screens.lookup import LookupScreen
from stablepay_console.tui.widgets.batch.fields import FieldTable
from stablepay_console.tui.widgets.id_entry import IdEntry
from stablepay_console.tui.widgets.quote.history_table import QuoteHistoryTable
from stablepay_console.tui.widgets.quote.parties import destination_rows, source_rows
from stablepay_console.tui.widgets.quote.table import LINES, QuoteTable, expiry_text
from stablepay_console.tui.widgets.result_status import ResultStatus

READY = "/ or Enter: type an onramp ID (or paste one), then Enter to refresh its quote; or pick a recent onramp."
ONLY_OPEN = f"Only an onramp in status {OPEN_QUOTE} has a quote that can be refreshed."


def refused_for_state(status: int) -> bool:
    """A 4xx that may be the onramp's state; not a missing onramp, a timeout or a rate limit."""
    return 400 <= status < 500 and status not in (404, 408, 429)


class QuoteScreen(LookupScreen[OnrampTransfer]):
    CSS_PATH = "../styles/quote.tcss"

    HELP = f"""\
## Quote refresh

Refresh the conversion-rate quote of a quote-based onramp and read it: what is
sent, the rail fee, what is received, the rate and when the quote expires.

- **/** or **Enter** to type the **onramp ID** (or paste it), then **Enter** to refresh (**Esc** leaves
  the field, so the digits switch screens again). A malformed
  ID is explained under the input and nothing is sent.
- **r** refreshes again the onramp the line under the input names: the one on screen, or, after a
  refusal, the one refused (never the other one still greyed on screen). From
  the second refresh on, the rate and the receive amounts show how they moved (▲ up,
  ▼ down), and a table lists every refresh of this session: time, rate, receive net, expiry.
- On a **production** profile every refresh asks for confirmation first.
- A refresh is never retried automatically; if one fails, the last good quote
  stays on screen. {ONLY_OPEN}
- **c** copies the selected value (amount, user ID, wallet address); **/**
  goes back to the ID input.
"""

    BINDINGS = [
        Binding("slash,enter", "edit_id", "Type ID", id="quote.edit", tooltip="Type an onramp ID"),
        Binding("r", "refresh_quote", "Refresh", id="quote.refresh", tooltip="Ask for a new quote (POST)"),
        Binding("c", "copy", "Copy", id="quote.copy", tooltip="Copy the selected value"),
    ]

    ENTRY, STATUS, RESULT = "#quote-entry", "#quote-message", "#quote-result"

    def __init__(self) -> None:
        super().__init__()
        self.history = QuoteHistory()
        self.refreshing = False
        self._ticker: Timer | None = None

    def compose_body(self) -> ComposeResult:
        yield IdEntry("onramp ID", "recent_onramps", id="quote-entry")
        yield ResultStatus(READY, id="quote-message", classes="hint")
        with VerticalScroll(id="quote-result"):
            yield Static("", id="quote-heading")
            yield QuoteTable(id="quote-table")
            yield Static("", id="quote-expiry")
            yield QuoteHistoryTable(id="quote-history")
            with Horizontal(id="quote-parties"):
                yield FieldTable(label_width=9, id="quote-source")
                yield FieldTable(label_width=9, id="quote-destination")

    def on_mount(self) -> None:
        self.query_one("#quote-source").border_title = "Source"
        self.query_one("#quote-destination").border_title = "Destination"
        self.query_one("#quote-history").border_title = "Refreshes this session"
        self.render_status()
        self.load_recent()
        self._ticker = self.set_interval(1.0, self.tick)

    def load_recent(self) -> None:
        profile = self.console.profile
        samples = self.console.services.sample_ids(profile, "onramp") if profile is not None else []
        self.entry.load_recent(self.profile_name, samples)

    @property
    def onramp(self) -> OnrampTransfer | None:
        return self.shown.value if self.shown is not None else None

    def on_profile_changed(self) -> None:
        # A quote of another environment means nothing here; the typed ID stays.
        self.history.clear()
        super().on_profile_changed()

    # --- asking ------------------------------------------------------------------

    @on(IdEntry.Requested, "#quote-entry")
    def _requested(self, event: IdEntry.Requested) -> None:
        self.request_refresh(event.value)

    def action_refresh_quote(self) -> None:
        # The onramp the status line names: after a refusal the one that was refused, never the other
        # one still greyed on screen (a POST on an ID the user did not just ask for).
        if self.retry_id is not None:
            self.request_refresh(self.retry_id)
        else:
            self.entry.submit()

    def request_refresh(self, onramp_id: str) -> None:
        """Refresh now, or after a yes on a production profile."""
        if self.refreshing:
            self.notify("A refresh is already under way.", severity="warning", timeout=3)
            return
        profile = self.console.profile
        if profile is None or not profile.is_production:
            self.start_refresh(onramp_id)
            return
        question = Text.assemble(
            "Refresh the quote of onramp ",
            (onramp_id, "bold"),
            " on the ",
            ("PRODUCTION", "bold red"),
            " profile ",
            (clean(profile.name, 40), "bold"),
            "?\n\nThis asks the live service for a new quote for a real customer's onramp.",
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.start_refresh(onramp_id)
            else:
                self.query_one(self.STATUS, ResultStatus).update(Text("Refresh cancelled; nothing was sent."))

        confirm = ConfirmScreen(
            question, title="Refresh a production quote?", yes_label="Refresh", no_label="Cancel", danger=True
        )
        self.app.push_screen(confirm, answered)

    def start_refresh(self, onramp_id: str) -> None:
        if self.refreshing:
            self.notify("A refresh is already under way.", severity="warning", timeout=3)
            return
        self.refreshing = True
        self.refresh_quote(onramp_id)

    @work(group="quote-refresh")
    async def refresh_quote(self, onramp_id: str) -> None:
        # Not exclusive: cancelling a POST in flight would leave its outcome unknown.
        self.begin(f"Refreshing the quote of onramp {onramp_id}…")
        try:
            onramp = await self.console.client.refresh_onramp_quote(onramp_id)
        except APIError as exc:
            extra = None
            if isinstance(exc, StatusError) and exc.status is not None and refused_for_state(exc.status):
                extra = Text(ONLY_OPEN, style="yellow")
            self.failed(exc, onramp_id, f"onramp {onramp_id}", extra)
            self.console.services.audit.quote_refreshed(self.console.profile, onramp_id, None, None, exc.kind)
            return
        finally:
            self.refreshing = False
        self.history.add(onramp, self.console.now())
        self.console.services.audit.quote_refreshed(self.console.profile, onramp_id, self.history.previous, onramp)
        self.succeeded(onramp, onramp_id, f"onramp {onramp_id}")  # r refreshes the ID asked, never server text
        self.show(onramp)

    # --- showing -----------------------------------------------------------------

    def show(self, onramp: OnrampTransfer) -> None:
        d = onramp.details
        count = len(self.history)
        times = "once" if count == 1 else f"{count} times"
        note = "" if count == 1 else "; changes are against the previous quote"
        self.render_status(Text(f"Quote refreshed {times}{note}."))
        self.query_one("#quote-heading", Static).update(
            Text.assemble(
                "Onramp ",
                (clean(d.id), "bold"),
                " · status ",
                (clean(d.status, 40), "bold green" if d.status == OPEN_QUOTE else "bold yellow"),
                f" · updated {when(d.updated_at)}",
            )
        )
        table = self.query_one(QuoteTable)
        table.display = onramp.quote is not None
        if onramp.quote is not None:
            table.show(onramp.quote, self.history.previous)
            table.move_cursor(row=len(LINES) - 1)  # the row that matters: the rate
        history = self.query_one(QuoteHistoryTable)
        history.display = count > 1
        history.show(self.history)
        self.query_one("#quote-source", FieldTable).show(source_rows(onramp))
        self.query_one("#quote-destination", FieldTable).show(destination_rows(onramp))
        self.tick()
        self.refresh_bindings()
        if onramp.quote is not None:
            table.focus()
        else:
            self.query_one("#quote-source").focus()

    def tick(self) -> None:
        """Repaint the expiry countdown against the app clock."""
        expiry = self.query_one("#quote-expiry", Static)
        if self.onramp is None:
            return
        quote = self.onramp.quote
        if quote is None:
            expiry.update(Text("The server sent no quote information for this onramp.", style="yellow"))
            return
        expiry.update(expiry_text(quote, self.console.now()))

    # --- keys --------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "copy" and self.onramp is None:
            return None
        return True
