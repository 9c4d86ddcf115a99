"""`batch get`, `quote refresh`, `metrics run` and `ping`: one request each, the answer on stdout."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from stablepay_console.cli.output import Output, fail, note, to_stderr
from stablepay_console.cli.session import OK, USAGE, open_session

if TYPE_CHECKING:
    from stablepay_console.api.models import Money


def _money(money: Money | None) -> str:
    return f"{money.amount} {money.currency.upper()}" if money is not None else ""


def run_batch(args: argparse.Namespace) -> int:
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    batch = session.ask(lambda client: client.get_batch_transfer(args.transfer_id))
    if isinstance(batch, int):
        return batch
    if out.fmt == "json":
        out.json(batch)
        return OK
    d = batch.details
    recipients = d.destination.batch
    currency = d.currency.upper()
    out.fields([
        ("Transfer", d.id), ("Type", batch.transfer_type), ("Status", d.status), ("Chain", d.chain),
        ("Currency", currency), ("Created", d.created_at.isoformat()), ("Updated", d.updated_at.isoformat()),
        ("Contract", d.contract_address), ("From user", d.source.user_id), ("From wallet", d.source.wallet_address),
        ("Wallet type", d.source.wallet_type), ("Transaction hash", d.receipt.transaction_hash),
        ("UserOp hash", d.receipt.user_op_hash), ("Recipients", len(recipients)),
        ("Total", f"{batch.total} {currency}"),
    ])
    out.blank()
    out.table(("#", "user", "amount"), ([str(n), r.user_id, f"{r.amount} {currency}"]
                                        for n, r in enumerate(recipients, 1)), right=("#", "amount"))
    note(f"Batch transfer {d.id}; {session.where}.")
    return OK


def confirmed(stdin: TextIO, what: str) -> bool:
    """Asks on the terminal (the question on stderr); True only for yes."""
    to_stderr(f"{what} Type yes to go on: ", end="")
    answer = stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def run_quote(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    profile = session.profile
    if profile.is_production and not args.yes:
        question = (f"This refreshes the quote of onramp {args.onramp_id} on {profile.name}: PRODUCTION, real money.")
        if not stdin.isatty():
            fail(f"{profile.name} is a production profile: refreshing a quote there needs --yes when standard input "
                 "is not a terminal. Nothing was sent.")
            return USAGE
        if not confirmed(stdin, question):
            fail("not confirmed; nothing was sent.")
            return USAGE

    onramp = session.ask(lambda client: client.refresh_onramp_quote(args.onramp_id))
    refreshed = None if isinstance(onramp, int) else onramp
    session.services.audit.quote_refreshed(profile, args.onramp_id, None, refreshed, "" if refreshed else "failed")
    if isinstance(onramp, int):
        return onramp
    if out.fmt == "json":
        out.json(onramp)
        return OK
    d = onramp.details
    q = onramp.quote
    rows: list[tuple[str, Any]] = [("Onramp", d.id), ("Status", d.status), ("Updated", d.updated_at.isoformat())]
    if q is None:
        rows.append(("Quote", "the server sent no quote information"))
    else:
        expires = q.expires_at.isoformat() if q.expires_at is not None else "no expiry (N/A)"
        rows += [("Rate", q.rate), ("Send (gross)", _money(q.send_gross)), ("Send (net)", _money(q.send_net)),
                 ("Rail fee", _money(q.rail_fee)), ("Receive (gross)", _money(q.receive_gross)),
                 ("Receive (net)", _money(q.receive_net)), ("Quote expires", expires)]
    out.fields(rows)
    note(f"Quote refreshed; {session.where}.")
    return OK


def run_metric(args: argparse.Namespace) -> int:
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    result = session.ask(lambda client: client.run_metric(args.metric_id))
    if isinstance(result, int):
        return result
    if out.fmt == "json":
        out.json(result)
    else:
        import csv
        import io

        from stablepay_console.services.metrics.series import to_csv

        header, *rows = list(csv.reader(io.StringIO(to_csv(result))))  # the export's columns and cells
        if out.fmt == "csv":
            out.csv(header, rows)
        elif rows:
            out.table(header, rows, right=header[1:])
    meta = result.metadata
    span = f"{meta.date_range.start} to {meta.date_range.end}" if meta.date_range is not None else "no date range"
    note(f"{meta.template or 'metric'}, {meta.calculation_interval or 'no'} interval, {span}, "
         f"{len(result.data)} rows; {session.where}.")
    return OK


def run_ping(args: argparse.Namespace) -> int:
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output(args.format)
    pong = session.ask(lambda client: client.ping())
    session.services.audit.append("ping", session.profile, outcome="failed" if isinstance(pong, int) else "✓ pong")
    if isinstance(pong, int):
        return pong
    if out.fmt == "json":
        out.json(pong)
    else:
        out.write(out_text(pong.message) + "\n")
    note(f"The key of {session.where} works.")
    return OK


def out_text(value: object) -> str:
    from stablepay_console.api.sanitize import clean

    return clean(value, 200)
