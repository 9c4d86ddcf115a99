"""`rfis list`: the inbox from the shell; `rfis show ID`: one request by its ID; and the rows a list of requests
prints (`rfis due` prints them too)."""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.cli.arguments import filters_of
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.session import FAILED, OK, USAGE, Session, open_session
from stablepay_console.storage import record_json

if TYPE_CHECKING:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.models import Rfi
    from stablepay_console.storage.record_types import DueIssued

LIST_COLUMNS = ("id", "status", "kind", "user", "round", "deadline", "left", "created")


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


def stored_row_of(columns: tuple[str, ...], now: datetime) -> Callable[[DueIssued, datetime], list[str]]:
    """The row `row_of` makes, from an issued request as the team record holds it (`Record.issued_due`) and its
    deadline: `rfis due` from the team watcher prints thousands, and builds no model. A request whose JSON does not
    parse keeps its ID."""

    from stablepay_console.services.watch.events import deadline_words, stamp
    from stablepay_console.storage.record_types import parse_stamp

    worded: dict[datetime, tuple[str, str]] = {}
    """Each deadline's cells (its stamp, the time left): thousands of due requests share a few hundred deadlines,
    so each is worded once."""

    def cells(deadline: datetime) -> tuple[str, str]:
        found = worded.get(deadline)
        if found is None:  # issued, all of them: the time left is worded as for any issued request
            found = worded[deadline] = (stamp(deadline), deadline_words(deadline, now).removeprefix("deadline "))
        return found

    Wire = dict[str, Any]
    ways: dict[str, Callable[[DueIssued, Wire, datetime], str]] = {
        "id": lambda issued, _, __: issued[0],
        "status": lambda _, rfi, __: str(rfi.get("status", "")),
        "kind": lambda _, rfi, __: str(rfi.get("kind", "")),
        "user": lambda _, rfi, __: rfi.get("userId") or "",
        "round": lambda issued, _, __: "" if issued[2] is None else str(issued[2]),
        "deadline": lambda _, __, deadline: cells(deadline)[0],
        "left": lambda _, __, deadline: cells(deadline)[1],
        "created": lambda _, rfi, __: stamp(parse_stamp(rfi["createdAt"])) if "createdAt" in rfi else "",
    }
    picked = [ways[column] for column in columns]
    loads = record_json.loads

    def row(issued: DueIssued, deadline: datetime) -> list[str]:
        try:
            rfi = loads(issued[1])
        except ValueError:
            rfi = {}
        if not isinstance(rfi, dict):
            rfi = {}
        return [way(issued, rfi, deadline) for way in picked]

    return row


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

    page = session.ask(
        lambda client: client.list_rfis(filters, limit=args.limit or 20, offset=args.offset or 0)
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


def run_show(args: argparse.Namespace) -> int:
    """The record's last sight of the request narrows the list; else the account's pages, to the first match."""
    from stablepay_console.services.rfi_lookup import find_one, wanted_from
    from stablepay_console.storage.record import RecordError

    session = open_session(args)
    if session is None:
        return USAGE
    rfi_id, profile = args.rfi_id, session.profile.name
    try:
        seen = wanted_from(session.services.record.call(lambda record: record.history(profile, rfi_id)))
    except RecordError:
        seen = None  # the record being unusable never stops the API work
    found = session.ask(lambda client: find_one(client, rfi_id, seen))
    if isinstance(found, int):
        return found
    pages = f"{found.pages} page{'s' if found.pages != 1 else ''} read"
    if found.rfi is None:
        fail(f"No request {rfi_id} in the account ({pages}); {session.where}.")
        return FAILED
    out = Output(args.format)
    if out.fmt == "json":
        out.json(found.rfi)  # the request as the API sent it
    else:
        print_rfis(out, [found.rfi], session.services.clock())
    note(f"Request {rfi_id} ({pages}); {session.where}.")
    return OK


def _list_all(session: Session, out: Output, filters: RfiFilters) -> int:
    """Every page, walked as the export walks them; printed only once complete (nothing on stdout on an error)."""
    from stablepay_console.api.paging import PagingReport
    from stablepay_console.services.watch.walk import every_rfi

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
