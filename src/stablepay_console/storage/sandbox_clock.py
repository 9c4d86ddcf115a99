"""When the built-in sandbox's world was made, kept for a while in the data folder.

The built-in sandbox makes its requests relative to a moment ("issued 3 hours ago"). Made anew at each start,
every request's times moved by the seconds between two starts, and the record (the team's too) kept a new
round entry for each one that changed nothing ("issued 23:12 (was 23:12)"). The moment is kept for KEPT_FOR:
a console started again meanwhile sees the same requests at the same times.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from stablepay_console.storage import locations
from stablepay_console.storage.writing import NotWritten, write_atomically

KEPT_FOR = timedelta(hours=8)
"""After this the sandbox's world is made again at the time of the start (its deadlines stay near)."""


def sandbox_anchor(now: datetime) -> datetime:
    """The kept moment when it is younger than KEPT_FOR, else `now` (kept from here on, where it can be)."""
    path = locations.state_file("sandbox-clock")
    try:
        kept: datetime | None = datetime.fromisoformat(json.loads(path.read_text(encoding="utf-8"))["anchor"])
    except (OSError, ValueError, KeyError, TypeError):
        kept = None
    if kept is not None and kept.tzinfo is not None and timedelta(0) <= now - kept < KEPT_FOR:
        return kept
    anchor = now.replace(microsecond=0)
    try:
        write_atomically(path, json.dumps({"anchor": anchor.isoformat()}), "the built-in sandbox's start time")
    except NotWritten:
        pass  # this run's sandbox is made all the same; the next start makes its own
    return anchor
