"""Where a result came from, and the one loading/result/error state every API screen shows.

A result carries its provenance: the profile and environment it was fetched under, what was asked
(an ID, filters) and when. That decides what may stay on screen:

- a result of another profile is never current: after a switch it is dropped;
- after an error the last good result may stay, but only as *stale*, labelled with its own
  ID/filters and time; actions act on what is shown, never on what is typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from stablepay_console.api.sanitize import clean

T = TypeVar("T")


def clock_text(at: datetime) -> str:
    """`09:30:12 UTC` (the date too when it is not today's in UTC is not needed: results are fresh)."""
    if at.utcoffset() == timedelta(0):
        return at.strftime("%H:%M:%S UTC")
    return at.isoformat(timespec="seconds")


@dataclass(frozen=True)
class Provenance:
    profile: str
    environment: str
    asked: str
    """What was asked for, in words: `transfer 0b6c…`, `status issued · page 2`."""
    at: datetime
    origin: str = ""
    """Where the result came from when not the API itself: `from the team watcher's sweep, 40 s ago`."""

    def describe(self) -> str:
        where = f"profile {clean(self.profile, 40)} ({self.environment})"
        origin = f" · {clean(self.origin, 80)}" if self.origin else ""
        return f"{clean(self.asked, 120)}{origin} · {where} · {clock_text(self.at)}"


@dataclass(frozen=True)
class Loaded(Generic[T]):
    value: T
    provenance: Provenance
    target: str = ""
    """The ID this result is about (what `r`, copy and open act on); empty for a list."""


class ResultState(Generic[T]):
    """Loading, result or error, for one screen. UI-free: the screen renders what this says."""

    def __init__(self) -> None:
        self.current: Loaded[T] | None = None
        self.loading: str | None = None
        self.error: str | None = None
        """The last failure's message (already sanitised), or None after a success."""

    @property
    def stale(self) -> bool:
        """A result is shown, but the last attempt failed: show it greyed, labelled as old."""
        return self.current is not None and self.error is not None

    def begin(self, what: str) -> None:
        self.loading = what

    def succeed(self, loaded: Loaded[T]) -> None:
        self.current, self.loading, self.error = loaded, None, None

    def partial(self, loaded: Loaded[T], still: str) -> None:
        """Part of the result, shown while the rest loads (`still` says so)."""
        self.current, self.loading, self.error = loaded, still, None

    def fail(self, message: str) -> None:
        self.loading = None
        self.error = clean(message)

    def cancel(self) -> None:
        self.loading = None

    def profile_changed(self, profile: str) -> bool:
        """Drop a result fetched under another profile. True when something was dropped."""
        self.loading = None
        self.error = None
        if self.current is not None and self.current.provenance.profile != profile:
            self.current = None
            return True
        return False

    def status_line(self) -> tuple[str, str]:
        """(kind, text): kind is "loading", "error", "stale", "result" or "empty"."""
        if self.loading is not None:
            return "loading", self.loading
        if self.error is not None:
            if self.current is not None:
                shown = self.current.provenance
                return "stale", f"{self.error}\nStill showing {shown.describe()}; r tries again."
            return "error", self.error
        if self.current is not None:
            return "result", self.current.provenance.describe()
        return "empty", ""
