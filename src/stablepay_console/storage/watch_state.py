"""What `rfis watch` has already seen, per profile, so a restart does not repeat old events.

One JSON file per profile in the data folder (`watch-<profile>.json`). It names the base URL it was
made against: pointed somewhere else, the profile starts from a clean memory. Written atomically
(a temporary file, then a rename), so a watch stopped mid-write leaves the previous state intact.
Never a secret: request IDs, statuses, round IDs and deadlines only, cleaned by the caller.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from stablepay_console.storage import locations
from stablepay_console.storage.writing import write_atomically

VERSION = 1


def state_path(profile: str) -> Path:
    return locations.state_file("watch-" + re.sub(r"[^A-Za-z0-9_.-]", "_", profile))


def load(profile: str, base_url: str) -> dict[str, Any] | None:
    """The saved memory of `profile` against `base_url`, or None (none yet, unreadable, or another URL)."""
    try:
        data = json.loads(state_path(profile).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("version") != VERSION or data.get("baseUrl") != base_url:
        return None
    memory = data.get("memory")
    return memory if isinstance(memory, dict) else None


def save(profile: str, base_url: str, memory: dict[str, Any]) -> Path:
    """Keep the watch's memory; NotWritten (one line: what, where, why) when the disk refuses it."""
    path = state_path(profile)
    body = {"version": VERSION, "profile": profile, "baseUrl": base_url, "memory": memory}
    write_atomically(path, json.dumps(body, ensure_ascii=True, separators=(",", ":")), "the watch's state")
    return path


# --- the console's radar setting ---------------------------------------------------------

RADAR_CHOICES = (0, 30, 60, 300)
"""Seconds between the console's radar polls; 0 is off."""
RADAR_DEFAULT = 60


def radar_seconds() -> int:
    """The console's radar interval, as last chosen (the default when never chosen or unreadable)."""
    try:
        value = json.loads(locations.state_file("radar").read_text(encoding="utf-8")).get("seconds")
    except (OSError, ValueError, AttributeError):
        return RADAR_DEFAULT
    return value if value in RADAR_CHOICES and not isinstance(value, bool) else RADAR_DEFAULT


def save_radar_seconds(seconds: int) -> None:
    if seconds not in RADAR_CHOICES:
        raise ValueError(f"The radar polls every {', '.join(map(str, RADAR_CHOICES))} seconds (0 is off).")
    write_atomically(locations.state_file("radar"), json.dumps({"seconds": seconds}), "the radar setting")
