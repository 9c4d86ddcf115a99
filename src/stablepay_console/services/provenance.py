"""Where a result came from, and the one loading/result/error state every API screen shows.

A result carries its provenance: the profile and environment it was fetched under, what was asked
(an ID, filters) and when. That decides what may stay on screen:

- a result of another profile is never current: after a switch it is dropped;
- after an error the last good result may stay, but only as *stale*, labelled with its own
  ID/filters and time; copy and open act on what is shown, never on what is typed;
- a key that repeats the last ask (`r`) repeats it on the ID that ask named: after a failure, the
  one that failed (what was typed and confirmed), never the other one still greyed on screen; the
  status line names it.
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
class Attempt:
    """An ask that failed: the ID it was about and what it asked, in words (`onramp 2b7d…`)."""

    target: str
    asked: str


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
        self.failed: Attempt | None = None
        """What the last failure asked for, when it was about one ID; None after a success."""

    @property
    def stale(self) -> bool:
        """A result is shown, but the last attempt failed: show it greyed, labelled as old."""
        return self.current is not None and self.error is not None

    @property
    def retry_target(self) -> str | None:
        """The ID a repeat (`r`) acts on: the one that just failed, else the one shown."""
        if self.error is not None and self.failed is not None:
            return self.failed.target
        return self.current.target if self.current is not None and self.current.target else None

    def begin(self, what: str) -> None:
        self.loading = what

    def succeed(self, loaded: Loaded[T]) -> None:
        self.current, self.loading, self.error, self.failed = loaded, None, None, None

    def partial(self, loaded: Loaded[T], still: str) -> None:
        """Part of the result, shown while the rest loads (`still` says so)."""
        self.current, self.loading, self.error, self.failed = loaded, still, None, None

    def fail(self, message: str, attempt: Attempt | None = None) -> None:
        self.loading = None
        self.error = clean(message)
        self.failed = attempt

    def cancel(self) -> None:
        self.loading = None

    def profile_changed(self, profile: str) -> bool:
        """Drop a result fetched under another profile. True when something was dropped."""
        self.loading = None
        self.error = None
        self.failed = None
        if self.current is not None and self.current.provenance.profile != profile:
            self.current = None
            return True
        return False

    def status_line(self) -> tuple[str, str]:
        """(kind, text): kind is "loading", "error", "stale", "result" or "empty"."""
        if self.loading is not None:
            return "loading", self.loading
        if self.error is not None:
            again = f"r tries {clean(self.failed.asked, 120)} again" if self.failed is not None else "r tries again"
            if self.current is not None:
                shown = self.current.provenance
                return "stale", f"{self.error}\nStill showing {shown.describe()}; {again}."
            if self.failed is not None:
                return "error", f"{self.error}\n{again}."  # the key's name: lower case
            return "error", self.error
        if self.current is not None:
            return "result", self.current.provenance.describe()
        return "empty", ""
