"""Go to request: a full ID, pasted from an email, or the 8 characters the inbox shows.

The dialog resolves what was typed (`services.rfi_lookup.resolve`) among the requests the console already knows
(the pages read, the record's): an unknown or ambiguous prefix, or a malformed ID, is said here and nothing is
sent. Returns the whole ID, or None when cancelled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from stablepay_console.services.rfi_lookup import Resolved
from stablepay_console.tui.modals.base import ConsoleModal

Resolver = Callable[[str], Awaitable[Resolved]]


class GoToDialog(ConsoleModal[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="goto.cancel", tooltip="Close; nothing is opened")]
    HELP = ("Paste a request's whole ID (36 characters), or type the 8 characters the inbox shows, and press Enter "
            "to open it; Escape cancels.")

    def __init__(self, resolve: Resolver) -> None:
        super().__init__()
        self.resolve = resolve

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box", classes="modal-box"):
            yield Static(Text("Go to request", style="bold"), classes="modal-title")
            yield Input(placeholder="request ID, or its first 8 characters", id="goto-id", max_length=200)
            yield Static("", id="goto-error", classes="modal-error")
            yield Static(Text("Enter: open   Esc: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.look_up(event.value)

    @work(exclusive=True, group="goto-resolve")
    async def look_up(self, text: str) -> None:
        found = await self.resolve(text)
        if found.rfi_id is None:
            self.query_one("#goto-error", Static).update(Text(found.problem))
        else:
            self.dismiss(found.rfi_id)

    def on_input_changed(self, _: Input.Changed) -> None:
        self.query_one("#goto-error", Static).update("")

    def action_cancel(self) -> None:
        self.dismiss(None)
