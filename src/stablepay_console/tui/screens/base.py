"""What every console screen shares: the banner and the tabs on top, the footer below, breakpoints.

The banner and the tabs are docked on top and the footer at the bottom, so a screen whose body
scrolls (the RFI detail at 80x24) never scrolls the environment away. The screen gets a class for
its width (`-narrow` below 100 columns, `-wide` from 160) and height (`-short` below 32 rows) that
the .tcss files use to drop, narrow or move things, rather than size maths in Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import events, on
from textual._context import active_app
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from stablepay_console.tui.widgets.banner import EnvironmentBanner
from stablepay_console.tui.widgets.footer import ConsoleFooter
from stablepay_console.tui.widgets.tabs import ScreenTabs

if TYPE_CHECKING:
    from stablepay_console.tui.console import Console


class ConsoleScreen(Screen[None]):
    """Subclasses implement `compose_body`; banner, tabs and footer come from here."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (160, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    BINDINGS = [
        Binding(
            "escape",
            "leave_input",
            "Leave field",
            show=False,
            id="screen.leave_input",
            tooltip="Leave the text field, so the tabs (1-7), ?, q and the screen's keys work again",
        )
    ]

    _resume_queued: events.ScreenResume | None = None
    """A resume posted to the screen and not yet handled (see `post_message`)."""

    def __init__(self, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name, id, classes)
        self._fit_breakpoints_now()

    def _fit_breakpoints_now(self) -> None:
        """The width and height classes for the terminal's size now, before any of the screen is styled.

        Textual gives them on the screen's first resize, after every widget was mounted and styled without
        them: styling the whole screen again. Given here, that resize finds them set and changes nothing (a
        later resize still changes them)."""
        try:
            width, height = active_app.get().size
        except LookupError:  # a screen made outside a running console: the resize gives them
            return
        self.add_class(
            *self._get_breakpoint_classes(width, self.HORIZONTAL_BREAKPOINTS),
            *self._get_breakpoint_classes(height, self.VERTICAL_BREAKPOINTS),
            update=False,
        )

    @property
    def console(self) -> Console:
        return cast("Console", self.app)

    @property
    def profile_name(self) -> str | None:
        """The active profile's name (what per-profile preferences are kept under)."""
        profile = self.console.profile
        return profile.name if profile is not None else None

    @on(events.Mount)
    def _follow_profile(self) -> None:
        # Every screen learns of a profile switch from the app's reactive, shown or not.
        self.watch(self.app, "profile", self._profile_switched, init=False)

    def _profile_switched(self) -> None:
        self.on_profile_changed()

    def post_message(self, message: Message) -> bool:
        """One resume for a screen made current, not two.

        Textual's `switch_mode` to a mode not shown before queues two resumes one after the other (one as it
        makes the mode's screen, one as it switches), and each restyles the whole screen and runs the screen's
        own resume work again. A resume queued while one is still waiting, with no suspend between them, is that
        second one: the waiting resume does everything it would. (The flag is cleared by `_show_tabs`, which
        every resume reaches: no screen's handler stops a resume's default handling.)"""
        if isinstance(message, events.ScreenResume):
            queued = self._resume_queued
            if queued is not None:
                queued.refresh_styles = queued.refresh_styles or message.refresh_styles
                return True
            self._resume_queued = message
        elif isinstance(message, events.ScreenSuspend):
            self._resume_queued = None
        return super().post_message(message)

    @on(events.ScreenResume)
    def _show_tabs(self, event: events.ScreenResume) -> None:
        if self._resume_queued is event:
            self._resume_queued = None
        self.query_one(ScreenTabs).refresh()

    def compose(self) -> ComposeResult:
        with Vertical(id="chrome"):
            yield EnvironmentBanner()
            yield ScreenTabs()
        yield from self.compose_body()
        yield ConsoleFooter()

    def compose_body(self) -> ComposeResult:
        yield from ()

    COPY_HINT = "Select a row with a value first."

    def action_copy(self) -> None:
        """The one copy action: the focused widget says what its selected row holds (`copy_target`)."""
        provider = getattr(self.focused, "copy_target", None)
        target = provider() if callable(provider) else None
        if target is None:
            self.notify(self.COPY_HINT, severity="warning", timeout=3)
            return
        value, what = target
        self.console.copy_with_notice(value, what)

    def action_leave_input(self) -> None:
        """Escape in a text field gives the keys back to the screen (what is typed stays)."""
        if isinstance(self.focused, Input):
            self.set_focus(None)

    def on_profile_changed(self) -> None:
        """Called after the active profile (and client) changed: drop other-profile results, reload."""
