"""What every top-level screen shares: the banner on top, the footer below."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from stablepay_console.tui.widgets.banner import EnvironmentBanner

if TYPE_CHECKING:
    from stablepay_console.tui.app import ConsoleApp


class ConsoleScreen(Screen[None]):
    """Subclasses implement `compose_body`; banner and footer come from here."""

    @property
    def console(self) -> ConsoleApp:
        return cast("ConsoleApp", self.app)

    def compose(self) -> ComposeResult:
        yield EnvironmentBanner()
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_profile_changed(self) -> None:
        """Called by the app after the active profile (and client) changed; reload here."""
