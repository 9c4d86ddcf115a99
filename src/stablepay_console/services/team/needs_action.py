"""The needs-action view from the team record while a team watcher is fresh (UI-free).

A console in team mode whose server a watcher swept within the last two of its intervals takes the
view's rows from the team record (every request of the server last seen as issued) instead of reading
every issued request from the API; otherwise (no team record, a stale watcher, the record failing)
it reads the API as without a team.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from stablepay_console.api.models import Rfi, RfiRound
from stablepay_console.services.kept import Kept
from stablepay_console.services.needs_action import PAGE, NeedsActionRows, Partial, Shown
from stablepay_console.services.team.swept import ago

if TYPE_CHECKING:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.profiles.model import Profile
    from stablepay_console.storage.record import Record
    from stablepay_console.storage.record_types import Issued, Sweep
    from stablepay_console.storage.record_worker import RecordWorker


@dataclass(frozen=True)
class TeamRows:
    """The needs-action rows from the team record, in needs-action order, and the sweep they rest on."""

    rows: Kept
    overdue: set[str]
    sweep: Sweep

    @property
    def found(self) -> tuple[Kept, set[str]]:
        return self.rows, self.overdue

    @property
    def said(self) -> str:
        """`from the team watcher's sweep, 40 s ago`"""
        return f"from the team watcher's sweep, {ago(self.sweep)}"


FIRST_ROWS = PAGE
"""How many rows the view paints from the team record before it reads the rest."""

TeamRead = Callable[["RfiFilters", datetime, "Shown | None"], Awaitable["TeamRows | None"]]
"""What the needs-action view asks first: the team record's rows for these filters (the first of them given to
`shown` before the rest are read), or None (read the API)."""


def parsed(wire: str, round_wire: str | None) -> Rfi | None:
    """A request as the record keeps it (its current round apart), or None when it does not parse."""
    try:
        rfi = Rfi.model_validate_json(wire)
        if round_wire is not None:
            rfi = rfi.model_copy(update={"round": RfiRound.model_validate_json(round_wire)})
    except ValidationError:
        return None
    return rfi


def wanted(found: list[Issued], filters: RfiFilters) -> list[Rfi]:
    """The issued requests among `found` that match the kind and user filters."""
    return [
        rfi for rfi in (parsed(wire, round_wire) for wire, round_wire, _ in found)
        if rfi is not None and rfi.status == "issued" and (filters.kind is None or rfi.kind == filters.kind)
        and (filters.user_id is None or rfi.user_id == filters.user_id)
    ]


def team_rows(found: list[Issued], filters: RfiFilters, now: datetime) -> tuple[Kept, set[str]]:
    """The issued requests among `found` matching the kind and user filters, in needs-action order (taken
    newest first, as the API lists them, so that equal deadlines fall in the same order as from the API)."""
    rows = NeedsActionRows()
    for rfi in sorted(wanted(found, filters), key=lambda r: r.created_at, reverse=True):
        rows.add(rfi)
    return rows.ordered(now)


async def needs_action_from_team(
    team: RecordWorker | None, profile: Profile, filters: RfiFilters, now: datetime, shown: Shown | None = None
) -> TeamRows | None:
    """The needs-action rows of a fresh team watcher of `profile`'s server; None: read the API yourself.

    The first rows (the nearest deadlines ahead) are read and given to `shown` first, by a query that needs
    no more than them; then every issued request is read for the whole view."""
    from stablepay_console.storage.record import RecordError, team_feed

    if team is None:
        return None

    def first(record: Record) -> tuple[Sweep, tuple[list[Issued], int] | None] | None:
        """The sweep while it is fresh, with the first rows: one call on the record's thread, no radar read."""
        feed = team_feed(record)
        sweep = feed.last_sweep(profile.name, radar=False)
        if sweep is None or not sweep.fresh:
            return None
        return sweep, feed.issued_first(profile.name, now, FIRST_ROWS) if shown is not None else None

    try:
        fresh = await team.run(first)
    except RecordError:
        return None
    if fresh is None:
        return None
    sweep, nearest_total = fresh
    try:
        if shown is not None and nearest_total is not None:
            nearest, total = nearest_total
            ahead = NeedsActionRows()
            for rfi in wanted(nearest, filters):
                ahead.add(rfi)
            ordered, _ = ahead.ordered(now)
            shown(Partial(ordered, set(), len(nearest), max(total, len(nearest))))
        found: list[Issued] = await team.run(lambda record: team_feed(record).issued(profile.name))
    except RecordError:
        return None
    rows, overdue = team_rows(found, filters, now)
    return TeamRows(rows, overdue, sweep)


def team_reader(team: RecordWorker | None, profile: Profile | None) -> TeamRead | None:
    """The needs-action view's team read for `profile` (None without a team record: read the API)."""
    if team is None or profile is None:
        return None
    return lambda filters, now, shown: needs_action_from_team(team, profile, filters, now, shown)
