"""`rfis due` from the team watcher: its last sweep answers while it is fresh, and the API is not asked.

`fresh_sweep` says whether it can answer (the team record is in use and its watcher swept the profile's server
within two of its intervals); `watcher_due` then reads only the requests due by the end of the window (the
deadline index: the database filters and sorts them, no model is built), and `watcher_rounds`, for the
breaches, the rounds the watcher saw open with the claims, steps and policy. `--live` reads every issued
request from the API as without a team.
"""

from __future__ import annotations

from concurrent.futures import Future
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.team.swept import ago
from stablepay_console.services.triage.due import HeldTriage, held_triage
from stablepay_console.storage.record import RecordError, team_feed

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.storage.record import Record
    from stablepay_console.storage.record_types import DueIssued, OpenRound, Sweep
    from stablepay_console.storage.record_worker import RecordWorker


def fresh_sweep(team: RecordWorker | None, profile: Profile) -> Sweep | str | None:
    """The team watcher's last sweep of `profile`'s server while it is fresh; else why the API is asked
    instead (a team record in use: `the team watcher has not swept yet`), or None without a team record (`team`:
    the team record's worker, `Services.team_record`)."""
    if team is None:  # no team record chosen: no watcher to ask (and no local file opened to learn it)
        return None
    try:
        sweep = team.call(lambda record: team_feed(record).last_sweep(profile.name))
    except (RecordError, TimeoutError):
        return "the team record could not be read"
    if sweep is None:
        return "the team watcher has not swept yet"
    if not sweep.fresh:
        return f"the team watcher's last sweep is stale ({ago(sweep)})"
    return sweep


def said(sweep: Sweep) -> str:
    """`from the team watcher (walt), swept 40 s ago`"""
    return f"from the team watcher ({sweep.by_role}), swept {ago(sweep)}"


def watcher_due(team: RecordWorker, profile: Profile, by: datetime, *, rounds: bool) -> Future[list[DueIssued]]:
    """What the watcher saw due by `by`, nearest first (with `rounds`, each round's JSON too), read on the record's
    thread. Its result raises RecordError (or TimeoutError) when the record cannot be read."""
    return team.submit(lambda record: team_feed(record).issued_due(profile.name, by, rounds))


def watcher_rounds(team: RecordWorker, profile: Profile) -> Future[tuple[list[OpenRound], HeldTriage]]:
    """What the service levels are reckoned from: the rounds the watcher saw open, and the claims, steps and
    policy. Asked right after `watcher_due`, it is read while the due rows are made."""

    def read(record: Record) -> tuple[list[OpenRound], HeldTriage]:
        return team_feed(record).open_rounds(profile.name), held_triage(record, profile.name)

    return team.submit(read)
