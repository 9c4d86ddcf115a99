"""Named metric bookmarks, kept per profile in its preferences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stablepay_console.api.sanitize import clean, has_control
from stablepay_console.api.validation import parse_uuid
from stablepay_console.storage.prefs import Prefs
from stablepay_console.storage.writing import NotWritten

PREFS_KEY = "metric_bookmarks"
MAX_NAME = 60


@dataclass(frozen=True)
class Bookmark:
    name: str
    id: str


class BookmarkStore:
    """Read and write one profile's bookmarks (a list of {"name", "id"} in its prefs)."""

    def __init__(self, profile_name: str, defaults: Sequence[tuple[str, str]] = ()) -> None:
        """`defaults` (name, metric ID) are what a profile that never saved bookmarks starts with."""
        self.prefs = Prefs(profile_name)
        self.not_saved: str | None = None
        stored = self.prefs.get(PREFS_KEY)
        if stored is None:
            self.items = [Bookmark(name, mid) for name, mid in defaults]
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
        """Keep the bookmarks; when the disk refuses, they stay for this run and `not_saved` says why."""
        try:
            self.prefs.set(PREFS_KEY, [{"name": b.name, "id": b.id} for b in self.items])
        except NotWritten as exc:
            self.not_saved = f"{exc} The bookmarks are kept for this run only."

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
