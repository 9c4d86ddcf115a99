"""How often the console's deadline radar reads every issued request (its sweep), as last chosen.

One small JSON file in the data folder (`radar-sweep.json`: `{"minutes": 15}`), set from the command
palette. Between sweeps the radar reads only the newest page; deadlines are counted by the clock.
"""

from __future__ import annotations

import json

from stablepay_console.storage import locations
from stablepay_console.storage.writing import write_atomically

SWEEP_CHOICES = (5, 15, 60)
"""Minutes between the radar's sweeps."""
SWEEP_DEFAULT = 15


def sweep_minutes() -> int:
    """The radar's sweep interval in minutes (the default when never chosen or unreadable)."""
    try:
        value = json.loads(locations.state_file("radar-sweep").read_text(encoding="utf-8")).get("minutes")
    except (OSError, ValueError, AttributeError):
        return SWEEP_DEFAULT
    return value if value in SWEEP_CHOICES and not isinstance(value, bool) else SWEEP_DEFAULT


def save_sweep_minutes(minutes: int) -> None:
    if minutes not in SWEEP_CHOICES:
        raise ValueError(f"The radar sweeps every {', '.join(map(str, SWEEP_CHOICES))} minutes.")
    write_atomically(locations.state_file("radar-sweep"), json.dumps({"minutes": minutes}), "the radar's sweep setting")
