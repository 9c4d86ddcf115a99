"""The inbox's auto-refresh: an interval the user cycles with `t` (off, 15 s, 30 s, 60 s)."""

from __future__ import annotations

from collections.abc import Callable

from textual.dom import DOMNode
from textual.timer import Timer

CHOICES = (0, 15, 30, 60)
"""Seconds between automatic reloads; 0 is off."""


class AutoRefresh:
    """Calls `reload` every `seconds` while on; pauses with the screen that owns it."""

    def __init__(self, owner: DOMNode, reload: Callable[[], None]) -> None:
        self.owner, self.reload = owner, reload
        self.seconds = 0
        self._timer: Timer | None = None

    def cycle(self) -> str:
        """The next interval; returns what to tell the user."""
        self.seconds = CHOICES[(CHOICES.index(self.seconds) + 1) % len(CHOICES)]
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.seconds:
            self._timer = self.owner.set_interval(self.seconds, self.reload)
        return f"Auto-refresh every {self.seconds}s." if self.seconds else "Auto-refresh off."

    def pause(self) -> None:
        if self._timer is not None:
            self._timer.pause()

    def resume(self) -> None:
        if self._timer is not None:
            self._timer.resume()
