"""`rfis due`: the issued requests due within a window and those overdue, then the service levels breached.

One pipeline, whatever answers. The source is chosen once (`source_for`): the team watcher's fresh sweep, or
the API. Each issued request it hands on goes through one tally of what is due (`DueTally`), kept as what will
be printed (its row, or with `--json` its JSON text), and, for the text, through one tally of the breaches
(`BreachTally`). Then the rows, the breaches longest past their level (`--breaches`, 50 by default; all are counted)
and the summary; the exit code says what was found (0 nothing due, 3 due, 4 overdue).

- the API: every issued request, page by page; the record's claims, steps and policy are read on its thread
  while the pages come. A request is kept as it passes: no model is rebuilt to print it.
- the team watcher: only the requests due by the window's end (the deadline index, nearest first), kept
  straight from the JSON the record holds: no model is built; the breaches from the rounds it saw open.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.session import DUE, FAILED, OK, OVERDUE, USAGE, Session, open_session
from stablepay_console.services.watch.due import DueTally

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.services.triage.due import BreachTally
    from stablepay_console.storage.record_types import DueIssued, Sweep

DUE_COLUMNS = ("id", "kind", "user", "round", "deadline", "left")


def run_due(args: argparse.Namespace) -> int:
    """Exit 0 when nothing is due, 3 when something is due within the window, 4 when something is overdue."""
    from stablepay_console.services.gc_pause import gc_paused

    # One bounded run: a garbage collection while the rows are printed walked every request's leftovers
    # for the few cycles a command makes.
    with gc_paused(whole_command=True):
        return _due(args)


@dataclass(frozen=True)
class Keep:
    """What is kept of a due request, from either source: the row it prints, or its JSON text (`--json`)."""

    request: Callable[[Rfi], Any]
    """From a request the API sent."""
    stored: Callable[[DueIssued, datetime], Any]
    """From a request as the team record holds it (`Record.issued_due`), with its deadline."""
    rounds: bool
    """Whether `stored` needs the round's JSON (the request's own JSON and the round's number are always there)."""


class DueRows(DueTally[Any]):
    """The due tally of this run: what it keeps of a request is what will be printed, from either source."""

    def __init__(self, now: datetime, within: timedelta, keep: Keep) -> None:
        super().__init__(now, within, keep.request)
        self._stored = keep.stored
        self.keep_rounds = keep.rounds

    def add_stored(self, issued: DueIssued, deadline: datetime) -> None:
        """An issued request as the team record holds it, with its deadline."""
        self.add_kept(deadline, self._stored(issued, deadline))


def _due(args: argparse.Namespace) -> int:
    from stablepay_console.services.triage.due import BreachTally

    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    now = session.services.clock()
    source = source_for(session, args.live, breaches=out.is_text)
    keep = _keep_rows(now) if out.is_text else _keep_json()
    rows = DueRows(now, args.within, keep)
    breaches = BreachTally(source.held, now, ready=source.held_ready) if out.is_text else None
    checked = source.read(rows, breaches)
    if isinstance(checked, int):
        return checked
    if breaches is not None and breaches.problem:
        note(f"Service levels not checked: {breaches.problem}")
    overdue, due = rows.nearest()
    if out.is_text:
        if overdue or due:
            out.table(DUE_COLUMNS, [*overdue, *due])
    else:
        out.json_texts([*overdue, *due])
    return _said_due(out, breaches, args.breaches, len(overdue), len(due), format_duration(args.within),
                     f"{checked}; {session.where}")


def source_for(session: Session, live: bool, breaches: bool) -> Api | Watcher:
    """The team watcher while its last sweep is fresh (unless `--live`), else the API: chosen once. `breaches`:
    the service levels are reckoned too (the text)."""
    from stablepay_console.services.team.due import fresh_sweep

    sweep = None if live else fresh_sweep(session.services.team_record, session.profile)
    if sweep is None or isinstance(sweep, str):
        return Api(session, breaches, "asked live" if live and session.services.team is not None else sweep)
    return Watcher(session, sweep)


class Api:
    """Every issued request, page by page; the record's triage is read on its thread while the pages come."""

    def __init__(self, session: Session, breaches: bool, why: str | None = None) -> None:
        from stablepay_console.services.triage.due import held_triage

        self.session = session
        self.why = why
        """Why the API and not the team watcher (None: no team record)."""
        name = session.profile.name
        self._held = session.services.record.submit(lambda record: held_triage(record, name)) if breaches else None
        self.held_ready = self._held.done if self._held is not None else None

    def held(self) -> Any:
        return self._held.result(60) if self._held is not None else None

    def read(self, rows: DueRows, breaches: BreachTally | None) -> str | int:
        from stablepay_console.services.watch import walk

        pages = [rows.add_page, *([breaches.add_page] if breaches else [])]
        walked = self.session.ask(lambda client: walk.walk_issued(client, *pages))
        if isinstance(walked, int):
            return walked
        said = f"from the API, {rows.checked} issued requests checked"
        return f"{said}: {self.why}" if self.why else said


class Watcher:
    """The team watcher's sweep: the requests due by the window's end, and the rounds it saw open."""

    held_ready = None

    def __init__(self, session: Session, sweep: Sweep) -> None:
        self.session, self.sweep = session, sweep
        self._held: Any = None

    def held(self) -> Any:
        return self._held

    def read(self, rows: DueRows, breaches: BreachTally | None) -> str | int:
        from stablepay_console.services.team.due import said, watcher_due, watcher_rounds
        from stablepay_console.storage.record import RecordError
        from stablepay_console.storage.record_types import parse_stamp

        team, profile = self.session.services.record, self.session.profile  # the team record: its sweep is fresh
        due = watcher_due(team, profile, rows.now + rows.within, rounds=rows.keep_rounds)
        rounds = watcher_rounds(team, profile) if breaches is not None else None  # read while rows are made
        try:
            moments: dict[str, datetime] = {}  # a few hundred deadlines among thousands of due requests
            for issued in due.result(60):  # the database filtered and sorted them
                moment = moments.get(issued[4])
                if moment is None:
                    moment = moments[issued[4]] = parse_stamp(issued[4])
                rows.add_stored(issued, moment)
            if rounds is not None and breaches is not None:
                opened, self._held = rounds.result(60)
                breaches.add_open_rounds(opened)
        except (RecordError, TimeoutError) as exc:
            fail(f"the team watcher's sweep could not be read: {exc or type(exc).__name__}")
            return FAILED
        return said(self.sweep)


def _keep_rows(now: datetime) -> Keep:
    from stablepay_console.cli.rfis import row_of, stored_row_of

    return Keep(row_of(DUE_COLUMNS, now), stored_row_of(DUE_COLUMNS, now), rounds=False)


def _keep_json() -> Keep:
    from stablepay_console.services.kept import keep
    from stablepay_console.storage.record_types import kept_text

    return Keep(keep, lambda issued, deadline: kept_text(issued[1], issued[3]), rounds=True)


def _said_due(out: Output, breaches: BreachTally | None, most: int | None, overdue: int, due: int, window: str,
              checked: str) -> int:
    """The breaches after the rows, then the summary and the exit code."""
    from stablepay_console.cli.breaches import print_breaches

    if breaches is not None:
        print_breaches(out, breaches.found(most), breaches.count, bool(overdue or due))
    if not (overdue or due):
        note(f"Nothing due within {window}: {checked}.")
        return OK
    note(f"{overdue} overdue, {due} due within {window} ({checked}).")
    return OVERDUE if overdue else DUE
