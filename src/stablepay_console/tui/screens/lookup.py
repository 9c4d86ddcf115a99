"""What the screens that ask for one thing by ID share: the ID entry, the result state, its status line.

A result carries its provenance (profile, environment, the ID asked, when). A profile switch drops
a result of the old profile; after an error the last result stays greyed and labelled with its own
ID and time; copy and open act on that shown ID, never on what is typed in the field. `r` repeats the
last ask on the ID it named: after a failure, the one that failed (the status line names it), never
the other ID still greyed on screen.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from textual import events, on
from textual.widget import Widget

from stablepay_console.api import APIError
from stablepay_console.api.error_text import error_text
from stablepay_console.services.provenance import Attempt, Loaded, Provenance, ResultState
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.id_entry import IdEntry
from stablepay_console.tui.widgets.result_status import ResultStatus

T = TypeVar("T")


class LookupScreen(ConsoleScreen, Generic[T]):
    """Subclasses name their entry, status and result widgets, and render `self.result.current`.

    The screen opens (and comes back) with the focus on the screen, not in the ID field: the digits switch
    screens (`2 3 4` goes to batch, quote and metrics), and `/` or Enter starts typing (Esc stops). A paste
    goes into the ID field wherever the focus is."""

    AUTO_FOCUS = ""

    ENTRY = "#lookup-entry"
    STATUS = "#lookup-status"
    RESULT = "#lookup-result"

    def __init__(self) -> None:
        super().__init__()
        self.result: ResultState[T] = ResultState()

    @property
    def entry(self) -> IdEntry:
        return self.query_one(self.ENTRY, IdEntry)

    @property
    def shown(self) -> Loaded[T] | None:
        return self.result.current

    @property
    def shown_id(self) -> str | None:
        """The ID of what is on screen: what copy and open act on."""
        return self.result.current.target if self.result.current is not None else None

    @property
    def retry_id(self) -> str | None:
        """The ID `r` acts on: the one that just failed (named in the status line), else the one shown."""
        return self.result.retry_target

    def provenance(self, asked: str) -> Provenance:
        profile = self.console.profile
        name, environment = (profile.name, profile.environment) if profile is not None else ("", "")
        return Provenance(name, environment, asked, self.console.now())

    def load_recent(self) -> None:
        self.entry.load_recent(self.profile_name)

    def render_status(self, extra: Any = None) -> None:
        result: Widget = self.query_one(self.RESULT)
        self.query_one(self.STATUS, ResultStatus).show(self.result, result, extra)

    def begin(self, what: str) -> None:
        self.result.begin(what)
        self.render_status()

    def failed(self, exc: APIError, target: str, asked: str, extra: Any = None) -> None:
        """`target` and `asked` name the ID that failed, so that `r` tries that one again and says so."""
        self.result.fail(error_text(exc, 300, status=True), Attempt(target, asked))
        self.render_status(extra)

    def succeeded(self, value: T, target: str, asked: str) -> Loaded[T]:
        loaded = Loaded(value, self.provenance(asked), target=target)
        self.result.succeed(loaded)
        self.entry.remember(self.profile_name, target)
        return loaded

    def on_profile_changed(self) -> None:
        # Another environment: a result of the old one means nothing here. The typed ID stays.
        self.result.profile_changed(self.profile_name or "")
        self.render_status()
        self.load_recent()
        self.refresh_bindings()

    def action_edit_id(self) -> None:
        # Now, not after this key's handling (`focus()` waits): a digit typed right after `/` is the ID's.
        self.set_focus(self.entry.input)

    @on(events.ScreenResume)
    def _keys_to_the_screen(self) -> None:
        if self.focused is self.entry.input:
            self.set_focus(None)

    def on_paste(self, event: events.Paste) -> None:
        """Pasted with the focus on the screen: the ID field takes it (its first line), as if focused first."""
        field = self.entry.input
        if event.text and self.focused is not field:
            event.stop()
            self.set_focus(field)
            field.insert_text_at_cursor(event.text.splitlines()[0])
