"""Small per-profile preferences kept between runs: recent lookups, bookmarks.

Never a secret: only IDs and names the user chose. One JSON file per profile.
"""

from __future__ import annotations

import json
import re
from typing import Any

from stablepay_console.storage import locations
from stablepay_console.storage.writing import write_atomically

RECENT_LIMIT = 10


def _file_name(profile: str) -> str:
    return "prefs-" + re.sub(r"[^A-Za-z0-9_.-]", "_", profile)


class Prefs:
    """Read-modify-write access to one profile's preferences."""

    def __init__(self, profile: str) -> None:
        self.profile = profile
        self.path = locations.state_file(_file_name(profile))
        self._data: dict[str, Any] = self._load()

    def _load(self) -> dict[str, Any]:
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return loaded if isinstance(loaded, dict) else {}

    def save(self) -> None:
        """Write the file; NotWritten (what, where, why) when the disk refuses: the values stay in memory."""
        write_atomically(self.path, json.dumps(self._data, indent=2, sort_keys=True), "the preferences")

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self._data[key] = value
        self.save()

    def recent(self, key: str) -> list[str]:
        values = self._data.get(key)
        return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []

    def remember(self, key: str, value: str) -> list[str]:
        """Put `value` first in the recent list `key` (deduplicated, bounded)."""
        values = [value, *(v for v in self.recent(key) if v != value)][:RECENT_LIMIT]
        self.set(key, values)
        return values
