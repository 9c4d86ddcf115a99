"""Hearing the team while a console runs: the team record's announcements of notes, claims and steps, as hints.

The listening itself is the store's (`storage/postgres/listen.py`: LISTEN on a connection of its own, reconnecting
with backoff, at most one hint per 2 s); this is the one door the screens use to it, so they never reach a
store's module."""

from __future__ import annotations

from collections.abc import Callable

from stablepay_console.services.team.scope import Team
from stablepay_console.storage.postgres.listen import Change, TeamListener

__all__ = ["Change", "TeamListener", "listen"]


def listen(team: Team, on_change: Callable[[Change], None],
           on_state: Callable[[bool, str], None]) -> TeamListener | None:
    """A started listener for the team record (None when there is no usable URL: the caller says why)."""
    if team.problem or team.url is None:
        return None
    return TeamListener(team.url, on_change, on_state).start()
