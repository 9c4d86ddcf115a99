"""What every top-level screen shares: the banner on top, the footer below."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input

from stablepay_console.tui.widgets.banner import EnvironmentBanner

if TYPE_CHECKING:
    from stablepay_console.tui.app import ConsoleApp


class ConsoleScreen(Screen[None]):
    """Subclasses implement `compose_body`; banner and footer come from here."""

    BINDINGS = [
        Binding(
            "escape",
            "leave_input",
            "Leave field",
            show=False,
            id="screen.leave_input",
            tooltip="Leave the text field, so 1-5 and the screen's keys work again",
        )
    ]

    @property
    def console(self) -> ConsoleApp:
        return cast("ConsoleApp", self.app)

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

    def compose(self) -> ComposeResult:
        yield EnvironmentBanner()
        yield from self.compose_body()
        yield Footer()

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
