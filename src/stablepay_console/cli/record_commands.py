"""The local record's commands as the shell types them: `rfis history|note|claim|release|evidence` and
`audit verify|log` (their arguments, help and exit codes; `record_runs` runs them).

None of these talk to the API: they read and write the record in the data folder. Exit codes:
0 done; 1 failed (nothing recorded about the request, a claim held by someone else, a broken audit
chain, a record that cannot be used); 2 bad usage or input (nothing written).
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from typing import Any

from stablepay_console.cli import arguments as a
from stablepay_console.cli.record_team import TEAM_COMMANDS, add_team_commands

EXIT_CODES = "exit codes: 0 done; 1 failed (the message says why); 2 bad usage or input, nothing written."
TEAM_KEYS = tuple(("record", f"record.{name}") for name in TEAM_COMMANDS)
"""The `record` group's (command, sub-command) keys, as `main.headless` looks them up."""
VERIFY_EXIT_CODES = (
    "exit codes: 0 the chain holds and still holds what this machine saw of it; 1 it is broken (the first broken "
    "entry is named), or an entry this machine saw is gone or re-hashed; 2 bad usage."
)


def since_arg(text: str) -> datetime:
    """`2026-11-01` (midnight UTC), an ISO date-time with its offset, or a span back from now (`7d`, `24h`)."""
    value = text.strip()
    try:
        if len(value) == 10:
            return datetime.fromisoformat(value).replace(tzinfo=timezone.utc)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    except ValueError:
        pass
    try:
        return datetime.now(timezone.utc) - a.duration(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"{a.quoted(text)} is not a date (2026-11-01), a date-time (2026-11-01T09:00:00+00:00) "
            "or a span back from now (7d, 24h)"
        ) from None


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="print JSON")
    parser.set_defaults(format="text")


def add_record_commands(rfis_sub: argparse._SubParsersAction[Any], common: argparse.ArgumentParser) -> None:
    """`rfis history|note|claim|release|evidence` into the `rfis` group's sub-commands."""
    request = a.uuid_of("request ID")
    who = {"dest": "author", "metavar": "NAME", "help": "who is writing (default: the profile's author, "
           "else your OS user name)"}

    history = rfis_sub.add_parser("history", parents=[common], epilog=EXIT_CODES,
                                  help="the rounds and statuses this console has seen of a request")
    history.add_argument("rfi_id", type=request, metavar="RFI_ID")
    _json_flag(history)

    note = rfis_sub.add_parser("note", parents=[common], epilog=EXIT_CODES, help="add a note to a request")
    note.add_argument("rfi_id", type=request, metavar="RFI_ID")
    note.add_argument("text", help="the note (quote it)")
    note.add_argument("--as", **who)

    claim = rfis_sub.add_parser("claim", parents=[common], epilog=EXIT_CODES,
                                help="claim a request (\"I'm on it\"); refused while someone else holds it")
    claim.add_argument("rfi_id", type=request, metavar="RFI_ID")
    claim.add_argument("--as", **who)
    claim.add_argument("--for", dest="lapse", type=a.duration, metavar="DURATION",
                       help="the claim lapses after DURATION (4h, 90m), then anyone may take it (team record)")

    release = rfis_sub.add_parser("release", parents=[common], epilog=EXIT_CODES, help="release your claim")
    release.add_argument("rfi_id", type=request, metavar="RFI_ID")
    release.add_argument("--as", **who)
    release.add_argument("--force", action="store_true", help="release it even if someone else holds it")

    evidence = rfis_sub.add_parser(
        "evidence", parents=[common], epilog=EXIT_CODES,
        help="write an evidence pack (a folder an auditor can read without tools)",
        description="Write rfi.json, rounds.json, notes.json, audit.json and README.md about one request. "
        "DIR is created; if it is an existing folder, a dated folder is made inside it. Nothing is overwritten.",
    )
    evidence.add_argument("rfi_id", type=request, metavar="RFI_ID")
    evidence.add_argument("--output", "-o", required=True, metavar="DIR", help="the folder to write")
    for parser, name in ((history, "history"), (note, "note"), (claim, "claim"), (release, "release"),
                         (evidence, "evidence")):
        parser.set_defaults(record_command=name)


def add_audit_commands(sub: argparse._SubParsersAction[Any]) -> None:
    """`audit verify` and `audit log` as a top-level group."""
    about = ("the audit log (this machine's, or the team's with a team record): print it, verify its hash "
             "chain")
    audit = sub.add_parser("audit", help=about, description=about[0].upper() + about[1:] + ".")
    audit_sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = audit_sub.add_parser("verify", epilog=VERIFY_EXIT_CODES,
                                  help="check that no entry was changed, removed or reordered")
    _json_flag(verify)
    verify.set_defaults(record_command="verify")
    log = audit_sub.add_parser("log", epilog=EXIT_CODES, help="print the audit log, oldest first")
    log.add_argument("--since", type=since_arg, metavar="DATE",
                     help="only entries from DATE on: 2026-11-01, a date-time, or 7d / 24h back from now")
    log.add_argument("--profile", metavar="NAME", help="only entries of this profile")
    log.add_argument("--limit", type=a.positive, metavar="N", help="only the latest N entries")
    _json_flag(log)
    log.set_defaults(record_command="log")
    add_team_commands(sub)
