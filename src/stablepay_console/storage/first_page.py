"""The inbox's first page as it was last shown, per profile: what a repeat start paints at once.

One JSON file per profile in the data folder (`inbox-<profile>.json`): the base URL and filters it was
fetched with, when, the page size and total, and the rows as the API sent them (its own field names),
made safe to print (`json_safe`) before they are written. The console shows them only for the same
profile, base URL and filters, greyed and labelled with their time, until the server's page replaces
them. Written atomically (`storage.writing`). stdlib only: a start reads it before the client stack
(httpx, pydantic) is loaded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from stablepay_console.api.sanitize import json_safe
from stablepay_console.storage import locations
from stablepay_console.storage.writing import write_atomically

VERSION = 1
MAX_ROWS = 100


def page_path(profile: str) -> Path:
    return locations.state_file("inbox-" + re.sub(r"[^A-Za-z0-9_.-]", "_", profile))


@dataclass(frozen=True)
class FirstPage:
    """A first page as last shown: rows are the API's JSON objects (dicts)."""

    profile: str
    base_url: str
    filters: dict[str, str | None]
    at: datetime
    limit: int
    total: int
    rows: list[dict[str, Any]]


def load(profile: str, base_url: str) -> FirstPage | None:
    """The first page kept for `profile` against `base_url`, or None (none yet, unreadable, another URL)."""
    try:
        data = json.loads(page_path(profile).read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("profile") != profile or data.get("baseUrl") != base_url:
            return None
        at = datetime.fromisoformat(data["at"])
        filters, limit, total, rows = data["filters"], data["limit"], data["total"], data["rows"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    if at.tzinfo is None or not isinstance(filters, dict) or not isinstance(rows, list):
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (limit, total)):
        return None
    kept = [row for row in rows[:MAX_ROWS] if isinstance(row, dict)]
    return FirstPage(profile, base_url, filters, at, limit, total, kept)


def save(page: FirstPage) -> Path:
    """Keep `page` (NotWritten, an OSError, when the disk refuses)."""
    path = page_path(page.profile)
    body = {
        "version": VERSION, "profile": page.profile, "baseUrl": page.base_url, "filters": page.filters,
        "at": page.at.isoformat(), "limit": page.limit, "total": page.total, "rows": page.rows[:MAX_ROWS],
    }
    write_atomically(path, json_safe(json.dumps(body, ensure_ascii=False)), "the inbox's first page")
    return path
