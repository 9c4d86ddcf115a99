"""`rfis due` in team mode: the team watcher's last sweep answers while it is fresh, and the API is not asked.

Only the requests whose deadline falls within the window are read from the record (the query sorts and
filters them); `--live` reads every issued request from the API as without a team.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.services.kept import keep
from stablepay_console.services.team.radar import ago
from stablepay_console.services.watch.radar import DueReport, DueTally
from stablepay_console.storage.record import RecordError, team_feed
from stablepay_console.storage.record_types import kept_text, parse_stamp

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.storage.record_types import Sweep
    from stablepay_console.wiring import Services


@dataclass(frozen=True)
class TeamDue:
    report: DueReport
    sweep: Sweep

    @property
    def said(self) -> str:
        """`from the team watcher (walt), swept 40 s ago`"""
        return f"from the team watcher ({self.sweep.by_role}), swept {ago(self.sweep)}"


def due_from_team(services: Services, profile: Profile, now: datetime, within: timedelta) -> TeamDue | None:
    """The due report from a fresh team watcher's sweep of `profile`'s server; None: ask the API."""
    if services.team is None:
        return None
    record = services.record
    try:
        sweep = record.submit(lambda r: team_feed(r).last_sweep(profile.name)).result(60)
        if sweep is None or not sweep.fresh:
            return None
        rows = record.submit(lambda r: team_feed(r).issued(profile.name, now + within)).result(60)
    except RecordError:
        return None
    tally: DueTally[str] = DueTally(now, within, keep)
    for wire, round_wire, deadline in rows:  # the database filtered and sorted them: no model is built
        if deadline is not None:
            tally.add_kept(parse_stamp(deadline), kept_text(wire, round_wire))
    return TeamDue(tally.report(), sweep)
