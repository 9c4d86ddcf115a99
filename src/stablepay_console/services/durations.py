"""Durations in words for people: `3d 4h`, `5h 12m`, `7m 09s`."""

from __future__ import annotations

from datetime import timedelta


def span(delta: timedelta, *, seconds: bool = True) -> str:
    """The two largest units, rounded down; under an hour, minutes and seconds (or minutes alone)."""
    total = int(abs(delta.total_seconds()))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if seconds:
        return f"{minutes}m {secs:02d}s"
    return f"{minutes}m" if minutes else f"{secs}s"
