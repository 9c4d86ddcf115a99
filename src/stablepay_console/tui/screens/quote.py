"""Placeholder until issue #4 builds this screen."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from stablepay_console.tui.screens.base import ConsoleScreen


class QuoteScreen(ConsoleScreen):
    def compose_body(self) -> ComposeResult:
        yield Static("This screen is not built yet (issue #4).", classes="hint")
