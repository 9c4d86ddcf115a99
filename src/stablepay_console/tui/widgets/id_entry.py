"""Typing or picking an ID: an input checked inline, a list of recent lookups (and samples), an error line.

Shared by batch lookup, quote refresh and metrics. Nothing leaves this widget unless it is a
valid UUID: a bad one gets its message under the input and no request is made.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static

from stablepay_console.api.validation import parse_uuid
from stablepay_console.storage.prefs import Prefs
from stablepay_console.storage.writing import NotWritten
from stablepay_console.tui.formatters.text import plain


def _is_uuid(value: str) -> bool:
    try:
        return parse_uuid(value) == value
    except ValueError:
        return False


class IdEntry(Vertical):
    """An ID input with inline validation and a "recent lookups" picker."""

    DEFAULT_CSS = """
    IdEntry { height: auto; }
    IdEntry > #id-row { height: auto; }
    IdEntry #id-input { width: 1fr; }
    IdEntry #id-recent { width: 46; }
    IdEntry #id-error { height: auto; min-height: 1; padding: 0 1; }
    """

    class Requested(Message):
        """A valid ID was entered (Enter in the input, or a pick from the recent list)."""

        def __init__(self, entry: IdEntry, value: str) -> None:
            super().__init__()
            self.entry = entry
            self.value = value
            """The canonical lower-case UUID."""

        @property
        def control(self) -> IdEntry:
            return self.entry

    def __init__(
        self, what: str, recent_key: str | None, *, id: str | None = None, input_id: str = "id-input"
    ) -> None:
        super().__init__(id=id)
        self.what = what
        self.recent_key = recent_key
        """The per-profile preference that keeps this entry's recent lookups; None keeps none."""
        self.input_id = input_id
        self.samples: list[tuple[str, str]] = []
        """(label, ID) pairs the sandbox offers to try, listed after the recent lookups."""
        self._recent: list[str] = []

    def compose(self) -> ComposeResult:
        with Horizontal(id="id-row"):
            yield Input(placeholder=f"{self.what[0].upper()}{self.what[1:]} (UUID), then Enter", id=self.input_id)
            if self.recent_key is not None:
                yield Select[str]([], prompt="Recent lookups (none yet)", id="id-recent", disabled=True)
        yield Static("", id="id-error")

    @property
    def input(self) -> Input:
        return self.query_one(f"#{self.input_id}", Input)

    @property
    def value(self) -> str:
        return self.input.value

    def load_recent(self, profile: str | None, samples: list[tuple[str, str]] | None = None) -> None:
        """Show the recent lookups of `profile` (none without a profile), then `samples` when given."""
        if samples is not None:
            self.samples = samples
        if self.recent_key is not None:
            self.set_recent(Prefs(profile).recent(self.recent_key) if profile is not None else [])

    def remember(self, profile: str | None, value: str) -> None:
        """Put `value` first among the recent lookups of `profile`."""
        if profile is not None and self.recent_key is not None:
            try:
                recent = Prefs(profile).remember(self.recent_key, value)
            except NotWritten as exc:  # kept for this run: the lookup itself goes on
                recent = [value, *(v for v in self._recent if v != value)]
                self.notify(f"{exc} Recent IDs are kept for this run only.", severity="warning", markup=False)
            self.set_recent(recent)

    def set_recent(self, ids: list[str]) -> None:
        # The prefs file is the user's to edit: anything in it that is not a UUID is left out.
        self._recent = [value for value in ids if _is_uuid(value)]
        select: Select[str] = self.query_one("#id-recent", Select)
        options = [(Text(value), value) for value in self._recent]
        options += [(Text.assemble(("sample ", "dim"), label), value) for label, value in self.samples]
        select.set_options(options)
        if self._recent:
            select.prompt = "Recent lookups" + (" and samples" if self.samples else "")
        else:
            select.prompt = "Samples to try" if self.samples else "Recent lookups (none yet)"
        select.disabled = not options

    def show_error(self, message: str) -> None:
        self.query_one("#id-error", Static).update(plain(message, style="bold red"))

    def clear_error(self) -> None:
        self.query_one("#id-error", Static).update("")

    def checked(self) -> str:
        """What is typed, as a canonical UUID; ValueError says what is wrong with it."""
        return parse_uuid(self.value, self.what)

    def submit(self) -> None:
        """Check what is typed; ask for it if it is a UUID, say what is wrong if not."""
        try:
            value = self.checked()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.clear_error()
        self.post_message(self.Requested(self, value))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.clear_error()

    @on(Select.Changed, "#id-recent")
    def _picked(self, event: Select.Changed) -> None:
        event.stop()
        if not isinstance(event.value, str):
            return
        self.input.value = event.value
        event.select.clear()
        self.submit()
