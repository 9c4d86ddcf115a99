"""The team's notes on one request and who has claimed it, with a field to add a note."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from stablepay_console.api.sanitize import clean
from stablepay_console.services.history_view import moment
from stablepay_console.services.notes import MAX_NOTE
from stablepay_console.storage.record_types import Claim, Note


def claim_text(claim: Claim | None, me: str) -> Text:
    if claim is None:
        return Text.assemble(("Not claimed. ", "bold"), ("m claims it (\"I'm on it\").", "dim"))
    who = "you" if claim.claimant == me else clean(claim.claimant, 80)
    line = Text.assemble(("Claimed by ", "bold"), (who, "bold green" if who == "you" else "bold yellow"),
                         f" since {moment(claim.at)}. ")
    line.append("m releases it." if who == "you" else "They can release it.", style="dim")
    return line


def notes_text(notes: list[Note]) -> Text:
    if not notes:
        return Text("No notes yet.", style="dim")
    text = Text()
    for n, note in enumerate(notes):
        if n:
            text.append("\n")
        text.append(f"{moment(note.at)} ", style="dim")
        text.append(clean(note.author, 80), style="bold")
        if note.imported is not None:
            text.append(f" ({clean(note.imported.describe(), 200)})", style="italic")
        text.append(": ")
        text.append("\n  ".join(clean(line) for line in note.text.splitlines()))
    return text


class RfiNotesView(Vertical):
    """Posts `NoteTyped` when Enter is pressed in the field; the screen keeps it and calls `show`."""

    DEFAULT_CSS = """
    RfiNotesView { height: auto; }
    RfiNotesView > #notes-title { text-style: bold; }
    RfiNotesView > #notes-list, RfiNotesView > #notes-claim { height: auto; padding: 0 0 0 1; }
    RfiNotesView > #notes-error { color: $error; height: auto; padding: 0 0 0 1; }
    """

    BINDINGS = [Binding("escape", "leave", "Leave field", show=False, id="notes.leave",
                        tooltip="Leave the note field (what is typed stays)")]

    class NoteTyped(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def compose(self) -> ComposeResult:
        yield Static(Text("Claim and notes"), id="notes-title")
        yield Static(Text("Reading the local record…", style="dim italic"), id="notes-claim")
        yield Static("", id="notes-list")
        yield Input(placeholder="Add a note: type, then Enter (n gets here, Esc leaves)", id="note-input",
                    max_length=MAX_NOTE)
        yield Static("", id="notes-error")

    def on_mount(self) -> None:
        self.query_one("#notes-error").display = False

    def show(self, notes: list[Note], claim: Claim | None, me: str) -> None:
        self.query_one("#notes-title", Static).update(Text(f"Claim and notes ({len(notes)})"))
        self.query_one("#notes-claim", Static).update(claim_text(claim, me))
        self.query_one("#notes-list", Static).update(notes_text(notes))

    def say(self, problem: str | None) -> None:
        error = self.query_one("#notes-error", Static)
        error.update(Text(clean(problem or "")))
        error.display = bool(problem)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.NoteTyped(event.value))

    def action_leave(self) -> None:
        self.screen.set_focus(None)

    def kept(self) -> None:
        """The note was kept: empty the field."""
        self.query_one("#note-input", Input).value = ""
        self.say(None)

    @property
    def text(self) -> str:
        return "\n".join(str(self.query_one(f"#{w}", Static).render()) for w in ("notes-claim", "notes-list"))
