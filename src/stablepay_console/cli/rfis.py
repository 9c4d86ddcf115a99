"""`rfis list` and `rfis due`: the inbox and the deadline check, from the shell."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.output import Output, note
from stablepay_console.cli.session import DUE, OK, OVERDUE, USAGE, Session, open_session

if TYPE_CHECKING:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.models import Rfi

LIST_COLUMNS = ("id", "status", "kind", "user", "round", "deadline", "left", "created")
DUE_COLUMNS = ("id", "kind", "user", "round", "deadline", "left")


def filters_of(args: argparse.Namespace) -> RfiFilters:
    from stablepay_console.api.filters import RfiFilters

    return RfiFilters(status=args.status, kind=args.kind, user_id=args.user_id)


def cells(rfi: Rfi, now: datetime, columns: tuple[str, ...]) -> list[str]:
    """The row of `columns`, each worked out only when asked for (`rfis due` prints thousands of rows)."""
    return [_cell(rfi, now, column) for column in columns]


def _cell(rfi: Rfi, now: datetime, column: str) -> str:
    from stablepay_console.services.watch.events import deadline_words, stamp

    if column in ("deadline", "left"):
        deadline = rfi.deadline
        if deadline is None:
            return ""
        if column == "deadline":
            return stamp(deadline)
        return deadline_words(deadline, now).removeprefix("deadline ") if rfi.status == "issued" else ""
    if column == "round":
        return str(rfi.round.round) if rfi.round is not None else ""
    if column == "user":
        return rfi.user_id or ""
    if column == "created":
        return stamp(rfi.created_at)
    return str(getattr(rfi, column))  # id, status, kind


def print_rfis(out: Output, rfis: Iterable[Rfi], now: datetime, columns: tuple[str, ...] = LIST_COLUMNS) -> None:
    """A list of requests as every format shows it; CSV exactly as the export writes it."""
    if out.fmt == "json":
        out.json(list(rfis))
    elif out.fmt == "csv":
        out.write(export_text(rfis, "csv"))
    else:
        rows = [cells(rfi, now, columns) for rfi in rfis]  # one request at a time: only the cells are kept
        if rows:
            out.table(columns, rows)


def export_text(rfis: Iterable[Rfi], fmt: str) -> str:
    """The export's own rows (its writer, its columns, its cell guard), as text."""
    from stablepay_console.services.export.rows import RowWriter

    buffer = io.StringIO()
    writer = RowWriter(buffer, fmt)
    writer.start()
    for rfi in rfis:
        writer.write(rfi)
    writer.finish()
    return buffer.getvalue()


def run_list(args: argparse.Namespace) -> int:
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    filters = filters_of(args)
    if args.all:
        return _list_all(session, out, filters)

    f = filters
    page = session.ask(
        lambda client: client.list_rfis(f.status, f.kind, f.user_id, limit=args.limit or 20, offset=args.offset or 0)
    )
    if isinstance(page, int):
        return page
    p = page.pagination
    if out.fmt == "json":
        out.json(page)  # the envelope as the API sent it: data and pagination
    else:
        print_rfis(out, list(page.data), session.services.clock())
    first = p.offset + 1 if page.data else p.offset
    note(f"Requests {first}-{p.offset + len(page.data)} of {p.total} ({filters.describe()}); {session.where}.")
    return OK


def _list_all(session: Session, out: Output, filters: RfiFilters) -> int:
    """Every page, walked as the export walks them; printed only once complete (nothing on stdout on an error)."""
    from stablepay_console.api.paging import PagingReport
    from stablepay_console.services.watch.radar import every_rfi

    paging = PagingReport()
    found = session.ask(lambda client: every_rfi(client, filters, report=paging))
    if isinstance(found, int):
        return found
    if out.fmt == "json":
        out.write(export_text(found, "json"))
    else:
        print_rfis(out, found, session.services.clock())
    note(f"{len(found)} requests ({filters.describe()}), every page; {paging.duplicates} duplicates skipped, "
         f"{paging.reread_pages} pages re-read; {session.where}.")
    if paging.capped or paging.total_differs:
        note(f"Warning: the server's total says {paging.total} but {paging.delivered} distinct requests came "
             f"(paging stopped: {paging.stopped or 'the end'}).")
    return OK


def run_due(args: argparse.Namespace) -> int:
    """Exit 0 when nothing is due, 3 when something is due within the window, 4 when something is overdue."""
    from stablepay_console.cli.triage_runs import print_breaches, recorded_breaches
    from stablepay_console.services.team.due import due_from_team
    from stablepay_console.services.triage.due import BreachTally, held_triage
    from stablepay_console.services.watch.radar import due_now

    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    services, profile = session.services, session.profile
    now = services.clock()

    window = format_duration(args.within)
    team = None if args.live else due_from_team(services, profile, now, args.within)
    if team is not None:  # the team watcher's fresh sweep: the API is not asked
        report = team.report
        checked = f"{team.said}; {session.where}"
        breaches = recorded_breaches(services, profile, report.at) if out.is_text else None
    else:  # page by page: only what is due or breached is kept, however many requests the account holds
        # The record's claims, steps and policy are read on its thread while the first page is on its way.
        tally = None
        if out.is_text:  # the `--json` list stays the API's requests
            held = services.record.submit(lambda record: held_triage(record, profile.name))
            tally = BreachTally(lambda: held.result(60), now)
        asked = session.ask(lambda client: due_now(client, now, args.within, tally.add if tally else None))
        if isinstance(asked, int):
            return asked
        report = asked
        checked = f"{report.checked} issued requests checked; {session.where}"
        breaches = tally.found() if tally else None
        if tally and tally.problem:
            note(f"Service levels not checked: {tally.problem}")
    print_rfis(out, report.nearest(), report.at, DUE_COLUMNS)
    print_breaches(out, breaches or (), bool(report.overdue or report.due))
    if not (report.overdue or report.due):
        note(f"Nothing due within {window}: {checked}.")
        return OK
    note(f"{len(report.overdue)} overdue, {len(report.due)} due within {window} ({checked}).")
    return OVERDUE if report.overdue else DUE
