"""A yes/no question in a modal: `push_screen(ConfirmScreen(...), callback)` gets True or False.

The safe answer is the default: "No" has the focus, so a stray Enter cancels.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from stablepay_console.tui.modals.base import ConsoleModal


class ConfirmScreen(ConsoleModal[bool]):
    """Ask before doing something that matters. `y` confirms; `n` or Escape cancels."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no", tooltip="Cancel; nothing is sent"),
    ]

    HELP = "Confirm: `y` for yes; `n` or Escape to cancel; Enter presses the focused button."

    def __init__(
        self,
        question: str | Text,
        *,
        title: str = "Please confirm",
        yes_label: str = "Yes",
        no_label: str = "No",
        danger: bool = False,
    ) -> None:
        super().__init__(classes="-danger" if danger else None)
        self.danger = danger
        # A str is the caller's own wording; server text must arrive as a Text already.
        self.question = question if isinstance(question, Text) else Text(question)
        self.title_text = title
        self.yes_label = yes_label
        self.no_label = no_label

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="modal-box"):
            yield Static(Text(self.title_text), id="confirm-title", classes="modal-title")
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons", classes="modal-buttons"):
                yield Button(self.yes_label, id="confirm-yes", variant="error" if self.danger else "primary")
                yield Button(self.no_label, id="confirm-no", variant="default")
            yield Static(Text(f"y: {self.yes_label}   n or Esc: {self.no_label}"), id="confirm-keys")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
