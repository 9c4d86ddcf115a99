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


# --- the console's radar settings ------------------------------------------------------

RADAR_CHOICES = (0, 30, 60, 300)
"""Seconds between the console's radar polls; 0 is off."""
RADAR_DEFAULT = 60
SWEEP_CHOICES = (5, 15, 60)
"""Minutes between the radar's sweeps (reading every issued request)."""
SWEEP_DEFAULT = 15


def _chosen(name: str, key: str, choices: tuple[int, ...], default: int) -> int:
    """A setting as last chosen: the default when never chosen, unreadable, or not one of `choices`."""
    try:
        value = json.loads(locations.state_file(name).read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return default
    return value if value in choices and not isinstance(value, bool) else default


def _choose(name: str, key: str, value: int, choices: tuple[int, ...], what: str) -> None:
    if value not in choices:
        raise ValueError(f"{what} is one of {', '.join(map(str, choices))}.")
    write_atomically(locations.state_file(name), json.dumps({key: value}), what)


def radar_seconds() -> int:
    """The console's radar interval in seconds (0: off)."""
    return _chosen("radar", "seconds", RADAR_CHOICES, RADAR_DEFAULT)


def save_radar_seconds(seconds: int) -> None:
    _choose("radar", "seconds", seconds, RADAR_CHOICES, "the radar setting")


def sweep_minutes() -> int:
    """The radar's sweep interval in minutes."""
    return _chosen("radar-sweep", "minutes", SWEEP_CHOICES, SWEEP_DEFAULT)


def save_sweep_minutes(minutes: int) -> None:
    _choose("radar-sweep", "minutes", minutes, SWEEP_CHOICES, "the radar's sweep setting")
