"""The arguments of `sandbox serve`, `web`, `export`, `keys` and the headless commands (`rfis list|due|watch`,
`batch`, `quote`, `metrics`, `ping`): one function a command, which `cli.commands` names in its table.

Import-light on purpose: building the parser, printing `--help` and refusing a bad argument load
nothing but the standard library and the small argument checks.
"""

from __future__ import annotations

import argparse
import textwrap
from datetime import timedelta
from pathlib import Path

from stablepay_console.api.vocabulary import RFI_KINDS, RFI_STATUSES
from stablepay_console.cli import arguments as a
from stablepay_console.cli.export_flags import add_range_flags

EXIT_CODES = (
    "exit codes: 0 success; 1 the server refused or failed (its message on stderr); "
    "2 bad usage or input, nothing sent; 130 interrupted; 141 the reader of the output went away (| head)."
)
WATCH_COSTS = """\
how late each event can be, and what it costs the server:
  deadline within 72h, 24h, 1h, passed: at the first poll after it, with no
    request (from the deadline kept in the data folder)
  new request: within one --interval; each poll reads the newest page (one
    request; more only when over 100 requests arrived since the last poll)
  status change, new round: within one --sweep; a sweep reads every issued
    request (one request per 100), and for each request that left the issued
    list the pages of its user's requests down to it
With --once (cron), the first run at least --sweep after the last sweep sweeps.
With --webhooks, a new request, a new round or a close of a transaction request
  is reported as its delivery arrives (seconds): each delivery reads its
  transfer's user's transaction requests (usually one API request), one delivery
  at a time, through the same limit as the polls; onboarding requests have no
  event and stay with the polls.
"""
DUE_EXIT_CODES = "exit codes: 0 nothing due; 3 something due within the window; 4 something overdue; 1 and 2 as usual."


def profile_option() -> a.Parser:
    """`--profile NAME`, shared by every command (a parent parser)."""
    parent = a.Parser(add_help=False)
    parent.add_argument("--profile", metavar="NAME",
                        help="the profile to use (default: the one the console starts on: "
                        "STABLEPAY_PROFILE, the default profile, or the built-in sandbox)")
    return parent


def add_format(parser: argparse.ArgumentParser, *, csv: bool = False) -> None:
    """--json (the API's own field names), and --csv (the export's columns) where it applies."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", dest="format", action="store_const", const="json",
                       help="print JSON with the API's own field names (camelCase)")
    if csv:
        group.add_argument("--csv", dest="format", action="store_const", const="csv",
                           help="print CSV with the same columns as the export")
    parser.set_defaults(format="text")


def add_sandbox_serve(sub: a.Commands, common: a.Parser) -> a.Parser:
    serve = sub.add_parser("serve", help="serve the sandbox over HTTP on loopback")
    serve.add_argument("--host", type=a.host, default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    serve.add_argument("--port", type=a.port, default=8787, help="port (default 8787)")
    serve.add_argument("--seed", type=a.positive, default=7, help="data seed (default 7)")
    serve.add_argument("--rfis", type=a.positive, default=240, help="number of RFIs (default 240)")
    serve.add_argument("--latency", type=a.seconds, default=0.0, help="added latency per request, seconds")
    serve.add_argument("--error-rate", type=a.rate, default=0.0, help="share of requests answered 500")
    serve.add_argument("--rate-limit-rate", type=a.rate, default=0.0, help="share of requests answered 429")
    serve.add_argument("--malformed-rate", type=a.rate, default=0.0, help="share of requests given a broken body")
    serve.add_argument("--ping-path", choices=("/ping", "/v2/ping"), default="/ping",
                       help="where the key check answers (default /ping; the other one is a 404)")
    serve.add_argument("--webhook-url", type=webhook_url, metavar="URL",
                       help="deliver the provider's RFI events here (POST) for every transaction request raised, "
                       "asked again, answered or closed through /_sandbox; a failed delivery (no answer or a "
                       "5xx) is tried 5 times in all, after 1, 2, 4 and 8 s; a 4xx is not retried")
    serve.add_argument("--webhook-signing-key", type=Path, metavar="FILE",
                       help="the PEM RSA private key the deliveries are signed with (RS256; claims iat, exp 5 "
                       "minutes later, bodySha256); without both flags nothing is sent")
    return serve


def add_filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--status", choices=RFI_STATUSES, help="only requests in this status")
    parser.add_argument("--kind", choices=RFI_KINDS, help="only requests of this kind")
    parser.add_argument("--user-id", type=a.uuid_of("user ID"), metavar="UUID", help="only requests of this user")


def add_list(sub: a.Commands, common: a.Parser) -> a.Parser:
    listing = sub.add_parser("list", parents=[common], help="one page of requests, or every page with --all",
                             epilog=EXIT_CODES)
    add_filters(listing)
    listing.add_argument("--limit", type=a.page_size, metavar="N", help="page size, 1 to 100 (default 20)")
    listing.add_argument("--offset", type=a.positive, metavar="N", help="requests to skip (default 0)")
    listing.add_argument("--all", action="store_true", help="every page (the export's paging and columns)")
    add_format(listing, csv=True)
    return listing


def add_show(sub: a.Commands, common: a.Parser) -> a.Parser:
    show = sub.add_parser(
        "show", parents=[common], epilog=EXIT_CODES, help="one request by its full ID, as the server has it now",
        description="One request by its full ID, as the server has it now. The API has no read of one request: "
        "what the record last saw of it narrows the list (its user and kind); otherwise the account's pages are "
        "read, newest first, until it is found. A request in none of them: exit 1.",
    )
    show.add_argument("rfi_id", type=a.uuid_of("request ID"), metavar="RFI_ID", help="the whole ID (36 characters)")
    add_format(show)
    return show


def add_due(sub: a.Commands, common: a.Parser) -> a.Parser:
    due = sub.add_parser(
        "due", parents=[common], epilog=DUE_EXIT_CODES,
        help="issued requests whose deadline falls within DURATION, and those overdue",
        description="Issued requests whose reply deadline falls within DURATION (90m, 24h, 3d), and those "
        "already overdue, nearest deadline first. For cron: it exits non-zero when something is due.",
    )
    due.add_argument("--within", type=a.duration, default=timedelta(hours=24), metavar="DURATION",
                     help="how far ahead to look: 90m, 24h, 3d (default 24h)")
    due.add_argument("--live", action="store_true",
                     help="ask the API even when a team watcher's sweep is fresh (team record only)")
    due.add_argument("--breaches", type=a.how_many, default=BREACHES_LISTED, metavar="N|all",
                     help=f"list the N service levels breached longest ago (default {BREACHES_LISTED}; all: every "
                     "one; text only, the count is always said)")
    add_format(due)
    return due


BREACHES_LISTED = 50
"""How many breached service levels `rfis due` lists by default (it counts them all): tens of thousands of lines
after the deadlines help nobody; `--breaches all` lists every one."""


def webhook_url(text: str) -> str:
    if not text.startswith(("http://", "https://")) or len(text) > 2000:
        raise argparse.ArgumentTypeError(f"{a.quoted(text)} is not an http:// or https:// URL")
    return text


def webhook_address(text: str) -> object:
    from stablepay_console.cli.webhooks import listen_address

    return listen_address(text)


def add_watch(sub: a.Commands, common: a.Parser) -> a.Parser:
    watch = sub.add_parser(
        "watch", parents=[common], epilog=WATCH_COSTS + "\n" + textwrap.fill(EXIT_CODES, 79),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        help="poll and print a line per event: new request, new round, status change, deadline marks",
        description=textwrap.fill(
            "Print one line (one JSON object with --json) per event: a new request, a new round, a status "
            "change, a deadline within 72h, 24h and 1h, a deadline passed. What was seen, and when the last "
            "sweep was, is remembered in the data folder, so a restart (or the next --once) does not repeat "
            "old events or sweep early.", 79),
    )
    watch.add_argument("--interval", type=a.interval, default=None, metavar="DURATION",
                       help="time between polls, at least 30s (default 5m; 10m with --webhooks)")
    watch.add_argument("--sweep", type=a.interval, default=timedelta(minutes=15), metavar="DURATION",
                       help="how often every issued request is read, at least 30s and never more often than "
                       "--interval (default 15m)")
    watch.add_argument("--once", action="store_true", help="poll once and exit (for cron)")
    watch.add_argument("--webhooks", type=webhook_address, metavar="HOST:PORT",
                       help="also receive the provider's deliveries on POST /webhooks here (team record only; "
                       "plain HTTP behind your TLS proxy, loopback by default: PORT alone is 127.0.0.1:PORT)")
    watch.add_argument("--webhook-key", type=Path, metavar="FILE",
                       help="the webhook public key (PEM) the dashboard shows: each delivery's RS256 signature "
                       "is checked with it before the body is read")
    add_format(watch)
    return watch


def add_batch_get(sub: a.Commands, common: a.Parser) -> a.Parser:
    get = sub.add_parser("get", parents=[common], help="a batch transfer: recipients and total", epilog=EXIT_CODES)
    get.add_argument("transfer_id", type=a.uuid_of("transfer ID"), metavar="TRANSFER_ID")
    add_format(get)
    return get


def add_quote_refresh(sub: a.Commands, common: a.Parser) -> a.Parser:
    refresh = sub.add_parser(
        "refresh", parents=[common], epilog=EXIT_CODES, help="refresh an onramp's quote (OPEN_QUOTE only)",
        description="Refresh an onramp's conversion-rate quote. On a production profile it asks first, "
        "and refuses without --yes when standard input is not a terminal.",
    )
    refresh.add_argument("onramp_id", type=a.uuid_of("onramp ID"), metavar="ONRAMP_ID")
    refresh.add_argument("--yes", action="store_true", help="do not ask, even on a production profile")
    add_format(refresh)
    return refresh


def add_metrics_run(sub: a.Commands, common: a.Parser) -> a.Parser:
    run = sub.add_parser("run", parents=[common], help="run a saved metric and print its dataset", epilog=EXIT_CODES)
    run.add_argument("metric_id", type=a.uuid_of("metric ID"), metavar="METRIC_ID")
    add_format(run, csv=True)
    return run


def add_ping(sub: a.Commands, common: a.Parser) -> a.Parser:
    ping = sub.add_parser("ping", parents=[common], help="check the profile's key with /ping", epilog=EXIT_CODES)
    add_format(ping)
    return ping


def add_keys(sub: a.Commands, common: a.Parser) -> a.Parser:
    keys = sub.add_parser("keys", help="every key binding: its id, screen, default and current keys (keymap.toml)")
    keys.add_argument("--json", action="store_true", help="print JSON")
    return keys


def add_export(sub: a.Commands, common: a.Parser) -> a.Parser:
    export = sub.add_parser(
        "export",
        parents=[common],
        help="export every RFI matching the filters to CSV or JSON (all pages), without the console",
    )
    add_filters(export)
    export.add_argument("--format", choices=("csv", "json"), default="csv", help="file format (default csv)")
    export.add_argument("--output", "-o", default="", metavar="PATH",
                        help="file or folder to write (default: a dated name in the current folder); "
                        "an existing file is never overwritten")
    add_range_flags(export)
    return export


def check_combinations(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What argparse cannot say on its own; exits 2 like any usage error."""
    if getattr(args, "rfis_command", None) == "list" and args.all and (args.limit, args.offset) != (None, None):
        parser.error("rfis list: --all lists every page; leave out --limit and --offset")


def add_web(sub: a.Commands, common: a.Parser) -> a.Parser:
    web = sub.add_parser(
        "web", help="serve the console to browsers (one console per tab, on this server, behind a sign-in)",
        description="Serve the console to browsers with textual-serve: each tab gets its own console on this "
        "server, where the API key and the team record's connection stay. Prints the sign-in URL (with a fresh "
        "token) on standard output; or, behind an authenticating reverse proxy, takes the user from "
        "--trusted-header when the connection comes from a --trusted-proxy address. Needs the `web` extra.",
    )
    web.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    web.add_argument("--port", type=a.port, default=8000, help="port (default 8000)")
    web.add_argument("--public-url", default="", metavar="URL",
                     help="the address browsers use, e.g. https://console.example.com behind a proxy "
                     "(default http://HOST:PORT); /ws accepts this origin only")
    web.add_argument("--trusted-header", default="", metavar="NAME",
                     help="sign people in by this header of an authenticating proxy (e.g. X-Forwarded-User) "
                     "instead of the token")
    web.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                     help="an address or network (127.0.0.1, 10.0.0.0/8) the header is trusted from; repeatable")
    web.add_argument("--socket", default="", metavar="PATH",
                     help="listen on this Unix socket (mode 0660) instead of --host/--port: put it in a folder "
                     "only the proxy's group can reach; the header then counts only through it")
    web.add_argument("--trusted-header-secret-file", default="", metavar="FILE",
                     help="a secret the proxy must send in X-Stablepay-Proxy-Secret with the header, read from "
                     "this file (readable by the server's account only)")
    web.add_argument("--max-sessions-per-user", type=a.positive, default=4, metavar="N",
                     help="consoles one user may have open at once (default 4)")
    web.add_argument("--max-sessions", type=a.positive, default=32, metavar="N",
                     help="consoles the server runs at once (default 32)")
    web.add_argument("--idle-minutes", type=minutes, default=30.0, metavar="MINUTES",
                     help="a console with no keystroke for this long ends (default 30)")
    web.add_argument("--unclaimed-seconds", type=unclaimed, default=20.0, metavar="SECONDS",
                     help="a console started as its page is served ends if no tab attaches within this (default 20)")
    web.add_argument("--no-spare", action="store_true",
                     help="keep no console process started ahead for the next tab (saves its memory, about 50 MB)")
    web.add_argument("--profile", default="", metavar="NAME", help="the profile every console starts on")
    return web


def unclaimed(text: str) -> float:
    return a.bounded_number(text, 0.5, 3600.0, "seconds")


def minutes(text: str) -> float:
    return a.bounded_number(text, 0.01, 7 * 24 * 60.0, "minutes")
