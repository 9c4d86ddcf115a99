"""Who to assign a request to: the team's analysts, as the database lists them. Returns the name, or None."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from stablepay_console.storage.record_types import TeamMember
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.base import ConsoleModal


class AssignPicker(ConsoleModal[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="assign.cancel", tooltip="Close; nothing is assigned")]
    HELP = "Up and Down choose an analyst, Enter assigns the request to them; Escape cancels."

    def __init__(self, rfi_id: str, analysts: list[TeamMember], holder: str | None) -> None:
        super().__init__()
        self.rfi_id = rfi_id
        self.analysts = analysts
        self.holder = holder

    def compose(self) -> ComposeResult:
        with Vertical(id="assign-box", classes="modal-box"):
            yield Static(Text.assemble(("Assign to… ", "bold"), clean(self.rfi_id, 60)), classes="modal-title")
            held = f"Held by {clean(self.holder, 40)} now." if self.holder else "Nobody holds it now."
            yield Static(Text(f"{held} The analyst chosen holds its claim, assigned by you."), id="assign-held")
            yield OptionList(*(Option(self._line(m), id=m.name) for m in self.analysts), id="assign-list")
            yield Static(Text("Enter: assign   Esc: cancel"), classes="hint")

    def _line(self, member: TeamMember) -> Text:
        line = Text(clean(member.name, 60))
        if member.lead:
            line.append("  lead", style="dim")
        if member.name == self.holder:
            line.append("  holds it", style="yellow")
        return line

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
