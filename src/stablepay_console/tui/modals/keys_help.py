"""F1 (or ?): the keys of the screen in use, then the keys that work everywhere, then what the screen is for.

A dialog over the screen (the screen keeps its width), each key in a column of its own beside what it does; only
the console's own keys (no table's cursor keys), as they work now: the user's keymap applied. Esc, F1 or ? close it.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Markdown, Static

from stablepay_console.tui.keymap import KeyEntry, entries, own_bindings
from stablepay_console.tui.modals.base import ConsoleModal


def screen_title(screen: Screen[object]) -> str:
    """The first heading of the screen's help ("## Batch lookup"), else its class name."""
    for line in str(getattr(screen, "HELP", "") or "").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return type(screen).__name__


class KeysHelp(ConsoleModal[None]):
    """The help of `screen`: its keys, the keys of every screen, its help text."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close", tooltip="Close the help"),
        Binding("f1,question_mark", "dismiss", "Close", show=False, id="help.close_again", tooltip="Close the help"),
    ]

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__()
        self.shown_for = screen

    def compose(self) -> ComposeResult:
        screen, keymap = self.shown_for, self.app._keymap
        title = screen_title(screen)
        with VerticalScroll(classes="modal-box", id="keys-help"):
            yield Static(Text(f"Keys: {title}", style="bold"), classes="modal-title")
            yield Static(self.key_table(entries(own_bindings(screen), keymap)), id="keys-screen")
            yield Static(Text("Everywhere", style="bold"), classes="keys-heading")
            yield Static(self.key_table(entries(own_bindings(self.app), keymap)), id="keys-everywhere")
            help_text = str(getattr(screen, "HELP", "") or "")
            if help_text:
                yield Markdown(help_text, id="keys-about")
            yield Static(Text("Esc, F1 or ? closes this help.", style="dim"))

    def key_table(self, found: list[KeyEntry]) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for entry in found:
            keys = ", ".join(self.app.get_key_display(Binding(key, "")) for key in entry.keys)
            table.add_row(keys, entry.what)
        return table

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
