"""One poller per team: `rfis watch` in team mode marks each sweep in the team record, with the deadlines
it saw; a console in team mode takes its radar count from there while that watcher is fresh.

A watcher is fresh when it swept within the last two of its intervals; otherwise each console polls
the API on its own, as without a team record. Ten analysts then cost the API one sweep, not ten.
What is kept is small: the issued requests whose deadline is passed or within `KEPT_AHEAD` (a
console counts them by its own clock, so the count moves on between sweeps as deadlines come near).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.services.team.swept import ago
from stablepay_console.services.watch.events import ISSUED, Tracker
from stablepay_console.services.watch.radar import DUE_WITHIN, RadarUpdate
from stablepay_console.storage import record_json
from stablepay_console.storage.record import team_feed
from stablepay_console.storage.record_types import parse_stamp, stamp

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.storage.record_types import Sweep
    from stablepay_console.storage.record_worker import RecordWorker

KEPT_AHEAD = timedelta(hours=72)


def snapshot(tracker: Tracker, now: datetime) -> str:
    """The watcher's radar as JSON text: [id, deadline] of each issued request due within KEPT_AHEAD or overdue."""
    issued = [
        [key, stamp(seen.expires_at)]
        for key, seen in tracker.seen.items()
        if seen.status == ISSUED and seen.expires_at is not None and seen.expires_at - now <= KEPT_AHEAD
    ]
    return json.dumps({"issued": issued}, ensure_ascii=True)


def publish(team: RecordWorker | None, profile: Profile, tracker: Tracker, now: datetime, interval: timedelta) -> None:
    """After a poll of `rfis watch`: mark the sweep in the team record (nothing without one: `team` is None).
    Never waits."""
    if team is None:
        return
    radar, seconds = snapshot(tracker, now), max(1, int(interval.total_seconds()))
    team.fire(lambda record: team_feed(record).mark_sweep(profile.name, seconds, radar),
                         "mark the team watcher's sweep")


def deadlines(radar: str) -> list[datetime]:
    try:
        issued = record_json.loads(radar).get("issued", [])
        return [parse_stamp(deadline) for _, deadline in issued]
    except (ValueError, TypeError, AttributeError):
        return []


def counted(found: Iterable[datetime], now: datetime) -> RadarUpdate:
    due = overdue = 0
    for deadline in found:
        if deadline <= now:
            overdue += 1
        elif deadline - now <= DUE_WITHIN:
            due += 1
    return RadarUpdate(due, overdue, [], now)


@dataclass(frozen=True)
class TeamRadar:
    update: RadarUpdate
    sweep: Sweep

    @property
    def said(self) -> str:
        """`radar from the team watcher, 40 s ago`"""
        return f"radar from the team watcher ({self.sweep.by_role}), {ago(self.sweep)}"


async def from_team(team: RecordWorker | None, profile: Profile, now: datetime) -> TeamRadar | None:
    """The radar of a fresh team watcher of `profile`'s server; None: poll the API yourself (or no team record)."""
    from stablepay_console.storage.record import RecordError

    if team is None:
        return None
    try:
        sweep: Sweep | None = await team.run(
            lambda record: team_feed(record).last_sweep(profile.name))
    except RecordError:
        return None
    if sweep is None or not sweep.fresh:
        return None
    return TeamRadar(counted(deadlines(sweep.radar), now), sweep)
