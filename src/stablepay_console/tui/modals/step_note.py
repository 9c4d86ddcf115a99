"""The note of a triage step, asked before it is taken: required for a rejection, optional otherwise.

Returns the note ("" for none) or None when cancelled: nothing is sent until Enter.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from stablepay_console.services.notes import MAX_NOTE, check_note
from stablepay_console.storage.triage_steps import Step
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.base import ConsoleModal


class StepNoteDialog(ConsoleModal[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="triage.note.cancel", tooltip="Close; no step is taken")]
    HELP = "Type the step's note and press Enter to take the step (a rejection needs one); Escape cancels."

    def __init__(self, rfi_id: str, step: Step) -> None:
        super().__init__()
        self.rfi_id = rfi_id
        self.step = step

    def compose(self) -> ComposeResult:
        step = self.step
        need = "a note saying why (required)" if step.note_required else "a note (optional)"
        with Vertical(id="step-box", classes="modal-box"):
            yield Static(Text.assemble((step.label, "bold"), " · ", clean(self.rfi_id, 60)), classes="modal-title")
            yield Static(Text(step.help.capitalize() + "."), id="step-help")
            yield Input(placeholder=need, id="step-note", max_length=MAX_NOTE, select_on_focus=False)
            yield Static("", id="step-error", classes="modal-error")
            yield Static(Text(f"Enter: {step.label}   Esc: cancel"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        if not text.strip():
            if self.step.note_required:
                self.query_one("#step-error", Static).update(Text("A rejection needs a note saying why."))
                return
            self.dismiss("")
            return
        try:
            self.dismiss(check_note(text))
        except ValueError as exc:
            self.query_one("#step-error", Static).update(Text(str(exc)))

    def on_input_changed(self, _: Input.Changed) -> None:
        self.query_one("#step-error", Static).update("")

    def action_cancel(self) -> None:
        self.dismiss(None)
