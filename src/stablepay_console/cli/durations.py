"""Durations typed on the command line: `90m`, `24h`, `3d`, `30s`, or combined as `1h30m`."""

from __future__ import annotations

import re
from datetime import timedelta

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DURATION = timedelta(days=366)
_PART = re.compile(r"(\d{1,6})([smhd])")


def parse_duration(text: str) -> timedelta:
    """`90m` -> 90 minutes. ValueError (saying what is accepted) for anything else."""
    value = text.strip().lower()
    if not value:
        raise ValueError("the duration is empty; write it as 90m, 24h or 3d")
    seconds = 0
    position = 0
    for match in _PART.finditer(value):
        if match.start() != position:
            break
        seconds += int(match.group(1)) * UNITS[match.group(2)]
        position = match.end()
    if position != len(value) or position == 0:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"{shown!r} is not a duration; write it as 90m, 24h or 3d (s, m, h, d)")
    duration = timedelta(seconds=seconds)
    if duration > MAX_DURATION:
        raise ValueError(f"{text.strip()!r} is longer than a year")
    return duration


def format_duration(duration: timedelta) -> str:
    """An exact form: `1h30m`, `24h`, `36h`, `3d`, `45s` (days only for whole days from two on; `0s` for nothing)."""
    return format_seconds(int(duration.total_seconds()))


def format_seconds(seconds: int) -> str:
    """`format_duration` of whole seconds."""
    if seconds <= 0:
        return "0s"
    if seconds % UNITS["d"] == 0 and seconds >= 2 * UNITS["d"]:
        return f"{seconds // UNITS['d']}d"
    hours, rest = divmod(seconds, UNITS["h"])
    minutes, secs = divmod(rest, UNITS["m"])
    return (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "") + (f"{secs}s" if secs else "")
