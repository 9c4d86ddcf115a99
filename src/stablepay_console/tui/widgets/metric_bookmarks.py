"""Named metric bookmarks, kept per profile, and the list that shows them."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from stablepay_console.api.validation import parse_uuid
from stablepay_console.prefs import Prefs
from stablepay_console.profiles.model import Profile
from stablepay_console.tui.text import clean, has_control, short_id

PREFS_KEY = "metric_bookmarks"
MAX_NAME = 60


@dataclass(frozen=True)
class Bookmark:
    name: str
    id: str


def sandbox_defaults() -> list[Bookmark]:
    """Helpful starting points on the embedded sandbox, whose metrics are well known."""
    from stablepay_console.sandbox import data

    return [
        Bookmark("daily gross volume", data.METRIC_DAILY_VOLUME_ID),
        Bookmark("transaction count by type and status", data.METRIC_TX_COUNT_ID),
        Bookmark("monthly gross volume", data.METRIC_MONTHLY_VOLUME_ID),
        Bookmark("hourly gross volume", data.METRIC_HOURLY_VOLUME_ID),
    ]


class BookmarkStore:
    """Read and write one profile's bookmarks (a list of {"name", "id"} in its prefs)."""

    def __init__(self, profile: Profile) -> None:
        self.prefs = Prefs(profile.name)
        stored = self.prefs.get(PREFS_KEY)
        if stored is None and profile.embedded:
            self.items = sandbox_defaults()
        else:
            self.items = self._parse(stored)

    @staticmethod
    def _parse(stored: object) -> list[Bookmark]:
        items: list[Bookmark] = []
        for entry in stored if isinstance(stored, list) else []:
            if not isinstance(entry, dict):
                continue
            name, mid = entry.get("name"), entry.get("id")
            try:
                items.append(Bookmark(str(name or "unnamed"), parse_uuid(str(mid))))
            except ValueError:
                continue  # a hand-edited file with a broken ID: skip it rather than fail
        return items

    def save(self) -> None:
        self.prefs.set(PREFS_KEY, [{"name": b.name, "id": b.id} for b in self.items])

    def find(self, metric_id: str) -> Bookmark | None:
        return next((b for b in self.items if b.id == metric_id), None)

    def add(self, name: str, metric_id: str) -> Bookmark:
        bookmark = Bookmark(name, metric_id)
        self.items.append(bookmark)
        self.save()
        return bookmark

    def rename(self, index: int, name: str) -> Bookmark:
        bookmark = Bookmark(name, self.items[index].id)
        self.items[index] = bookmark
        self.save()
        return bookmark

    def remove(self, index: int) -> Bookmark:
        bookmark = self.items.pop(index)
        self.save()
        return bookmark


def bookmark_name(text: str) -> str:
    """A name typed by a person, or ValueError."""
    name = " ".join(text.split())
    if has_control(name):
        raise ValueError(f"A bookmark name cannot hold control characters or escape sequences: {clean(name, 40)}")
    if not name:
        raise ValueError("A bookmark needs a name.")
    if len(name) > MAX_NAME:
        raise ValueError(f"Keep the name under {MAX_NAME} characters.")
    return name


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
