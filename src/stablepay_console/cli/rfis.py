"""`rfis list` and `rfis due`: the inbox and the deadline check, from the shell."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.output import Output, note
from stablepay_console.cli.session import DUE, OK, OVERDUE, USAGE, Session, open_session

if TYPE_CHECKING:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.models import Rfi
    from stablepay_console.cli.breaches import BreachRow

LIST_COLUMNS = ("id", "status", "kind", "user", "round", "deadline", "left", "created")
DUE_COLUMNS = ("id", "kind", "user", "round", "deadline", "left")


def filters_of(args: argparse.Namespace) -> RfiFilters:
    from stablepay_console.api.filters import RfiFilters

    return RfiFilters(status=args.status, kind=args.kind, user_id=args.user_id)


def row_of(columns: tuple[str, ...], now: datetime) -> Callable[[Rfi], list[str]]:
    """What makes the row of `columns` for one request (`rfis due` prints thousands: each column's
    way of reading a request is picked once, not once a cell)."""
    from stablepay_console.services.watch.events import deadline_words, stamp

    def deadline(rfi: Rfi) -> str:
        return "" if rfi.deadline is None else stamp(rfi.deadline)

    def left(rfi: Rfi) -> str:
        moment = rfi.deadline
        if moment is None or rfi.status != "issued":
            return ""
        return deadline_words(moment, now).removeprefix("deadline ")

    ways: dict[str, Callable[[Rfi], str]] = {
        "id": lambda rfi: str(rfi.id),
        "status": lambda rfi: str(rfi.status),
        "kind": lambda rfi: str(rfi.kind),
        "user": lambda rfi: rfi.user_id or "",
        "round": lambda rfi: str(rfi.round.round) if rfi.round is not None else "",
        "deadline": deadline,
        "left": left,
        "created": lambda rfi: stamp(rfi.created_at),
    }
    picked = [ways[column] for column in columns]
    return lambda rfi: [way(rfi) for way in picked]


def print_rfis(out: Output, rfis: Iterable[Rfi], now: datetime, columns: tuple[str, ...] = LIST_COLUMNS) -> None:
    """A list of requests as every format shows it; CSV exactly as the export writes it."""
    if out.fmt == "json":
        out.json(list(rfis))
    elif out.fmt == "csv":
        out.write(export_text(rfis, "csv"))
    else:
        row = row_of(columns, now)
        rows = [row(rfi) for rfi in rfis]  # one request at a time: only the cells are kept
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
    from stablepay_console.services.gc_pause import gc_paused

    # One bounded run: a garbage collection while the rows are printed walked every request's leftovers
    # (a tenth of a second at 100,000 requests) for the few cycles a command makes.
    with gc_paused(whole_command=True):
        return _due(args)


def _due(args: argparse.Namespace) -> int:
    from stablepay_console.cli.breaches import recorded_breaches
    from stablepay_console.services.team.due import due_from_team
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
    elif out.is_text:
        return _due_rows_from_api(session, out, now, args.within)
    else:  # `--json`: the API's own requests, as they came
        asked = session.ask(lambda client: due_now(client, now, args.within))
        if isinstance(asked, int):
            return asked
        report, breaches = asked, None
        checked = f"{report.checked} issued requests checked; {session.where}"
    print_rfis(out, report.nearest(), report.at, DUE_COLUMNS)
    return _said_due(out, breaches, len(report.overdue), len(report.due), window, checked)


def _due_rows_from_api(session: Session, out: Output, now: datetime, within: timedelta) -> int:
    """Every issued request, page by page: only the rows due and the breaches are kept (however many
    requests the account holds), and a row is made as its request passes (no model rebuilt to print it)."""
    from stablepay_console.cli.breaches import breach_row
    from stablepay_console.services.triage.due import BreachTally, held_triage
    from stablepay_console.services.watch.radar import DueTally, walk_issued

    profile = session.profile
    # The record's claims, steps and policy are read on its thread while the pages come: the walk does not
    # wait for them (the record's first open checks the file), the rounds wait in the tally instead.
    held = session.services.record.submit(lambda record: held_triage(record, profile.name))
    breaches = BreachTally(lambda: held.result(60), now, ready=held.done, keep=breach_row)
    rows = DueTally(now, within, row_of(DUE_COLUMNS, now))
    walked = session.ask(lambda client: walk_issued(client, rows, breaches.add_page))
    if isinstance(walked, int):
        return walked
    if breaches.problem:
        note(f"Service levels not checked: {breaches.problem}")
    overdue, due = rows.nearest()
    if overdue or due:
        out.table(DUE_COLUMNS, [*overdue, *due])
    checked = f"{rows.checked} issued requests checked; {session.where}"
    return _said_due(out, breaches.found(), len(overdue), len(due), format_duration(within), checked)


def _said_due(out: Output, breaches: Sequence[BreachRow] | None, overdue: int, due: int, window: str,
              checked: str) -> int:
    """The breaches after the rows, then the summary and the exit code."""
    from stablepay_console.cli.breaches import print_breaches

    print_breaches(out, breaches or (), bool(overdue or due))
    if not (overdue or due):
        note(f"Nothing due within {window}: {checked}.")
        return OK
    note(f"{overdue} overdue, {due} due within {window} ({checked}).")
    return OVERDUE if overdue else DUE
