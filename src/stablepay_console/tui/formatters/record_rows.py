"""The line over rows painted from the record on a repeat start: never read as current (light: no client stack)."""

from __future__ import annotations

from datetime import datetime, timezone

from rich.text import Text


def as_of(at: datetime, now: datetime) -> str:
    """`14:02 UTC`, with the date when it was another day."""
    at = at.astimezone(timezone.utc)
    same_day = at.date() == now.astimezone(timezone.utc).date()
    return at.strftime("%H:%M UTC" if same_day else "%Y-%m-%d %H:%M UTC")


def record_line(at: datetime, now: datetime, refreshing: bool = True) -> Text:
    """`From the record, as of 14:02 UTC · refreshing…`"""
    line = Text.assemble(("From the record", "bold yellow"), f", as of {as_of(at, now)}")
    if refreshing:
        line.append(" · refreshing…", style="italic")
    return line
