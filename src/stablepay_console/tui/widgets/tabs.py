"""The numbered tabs under the banner: every top-level screen with its key, the one in use highlighted.

The footer then keeps to the screen's own keys, so screen switching is always on screen, whatever
the width. A tab can also be clicked.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from stablepay_console.tui.modes import TOP_LEVEL, ScreenEntry

SHORT_TITLES = {"inbox": "Inbox", "profiles": "Profiles"}
"""A tab's name when the full titles do not fit; otherwise its title's first word."""

GAP = " "


def short_title(entry: ScreenEntry) -> str:
    return SHORT_TITLES.get(entry.mode) or entry.title.split()[0]


def tabs_text(current: str, width: int, entries: list[ScreenEntry] = TOP_LEVEL) -> Text:
    """`1 RFI inbox  2 Batch lookup …`, short names when that does not fit, keys only as a last resort
    (the current screen keeps its name)."""
    namings = (
        [e.title for e in entries],
        [short_title(e) for e in entries],
        [short_title(e) if e.mode == current else "" for e in entries],
    )
    for names in namings:
        text = Text(no_wrap=True, overflow="ellipsis")
        for entry, name in zip(entries, names, strict=True):
            active = entry.mode == current
            label = f" {entry.key} {name} " if name else f" {entry.key} "
            style = Style(bold=True, reverse=True) if active else Style()
            click = Style.from_meta({"@click": f"app.switch_mode({entry.mode!r})"})
            if text:
                text.append(GAP if names[0] else " ")
            text.append(label, style + click)
        if cell_len(text.plain) <= width:
            return text
    return text


class ScreenTabs(Static):
    """One line; the screen that owns it re-renders it when shown (the app's mode is not reactive)."""

    DEFAULT_CSS = """
    ScreenTabs { height: 1; padding: 0 1; background: $boost; color: $text-muted; }
    """

    def render(self) -> Text:
        return tabs_text(self.app.current_mode, self.content_size.width or self.size.width)
