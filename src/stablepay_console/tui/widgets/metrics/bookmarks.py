"""The list that shows a profile's metric bookmarks."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from stablepay_console.storage.bookmarks import Bookmark
from stablepay_console.tui.formatters.text import clean, short_id


class BookmarkList(OptionList):
    """The bookmarks: Enter runs one, `n` renames it, Delete removes it."""

    BINDINGS = [
        Binding("n", "rename", "Rename", id="metrics.bookmark.rename", tooltip="Rename the highlighted bookmark"),
        Binding(
            "delete,x", "remove", "Remove", id="metrics.bookmark.remove", tooltip="Remove the highlighted bookmark"
        ),
    ]

    class Rename(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class Remove(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def show(self, items: list[Bookmark], highlight: int | None = None) -> None:
        self.clear_options()
        self.add_options(
            Option(Text.assemble((clean(b.name, 40), "bold"), "\n", (short_id(b.id) + "…", "dim")), id=str(i))
            for i, b in enumerate(items)
        )
        if items:
            self.highlighted = min(highlight if highlight is not None else 0, len(items) - 1)

    def action_rename(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Rename(self.highlighted))

    def action_remove(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.Remove(self.highlighted))
