"""A one-line question in a modal (a bookmark's name, a file to save to): returns the text or None."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from stablepay_console.tui.modals.base import ConsoleModal

Check = Callable[[str], str]
"""Returns the accepted value or raises ValueError with what is wrong."""


class MetricPrompt(ConsoleModal[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="metrics.prompt.cancel", tooltip="Close without saving")]
    HELP = "Type and press Enter to accept; Escape cancels."

    def __init__(self, title: str, value: str = "", *, check: Check | None = None, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.check = check
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box", classes="modal-box"):
            yield Static(Text(self.title_text), id="prompt-title", classes="modal-title")
            yield Input(self.value, id="prompt-input", select_on_focus=False)
            yield Static("", id="prompt-error", classes="modal-error")
            yield Static(Text(self.hint or "Enter to accept, Escape to cancel."), classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            value = self.check(event.value) if self.check is not None else event.value
        except ValueError as exc:
            self.query_one("#prompt-error", Static).update(Text(str(exc)))
            return
        self.dismiss(value)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#prompt-error", Static).update("")

    def action_cancel(self) -> None:
        self.dismiss(None)
