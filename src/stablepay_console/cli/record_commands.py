"""The local record's commands as the shell types them: `rfis history|note|claim|release|evidence` and
`audit verify|log` (their arguments, help and exit codes; `record_runs` runs them).

None of these talk to the API: they read and write the record in the data folder. Exit codes:
0 done; 1 failed (nothing recorded about the request, a claim held by someone else, a broken audit
chain, a record that cannot be used); 2 bad usage or input (nothing written).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime, timezone

from stablepay_console.cli import arguments as a

EXIT_CODES = "exit codes: 0 done; 1 failed (the message says why); 2 bad usage or input, nothing written."
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


def _request() -> Callable[[str], str]:
    return a.uuid_of("request ID")


WHO = {"dest": "author", "metavar": "NAME", "help": "who is writing (default: the profile's author, else your OS user "
       "name)"}


def add_history(sub: a.Commands, common: a.Parser) -> a.Parser:
    history = sub.add_parser("history", parents=[common], epilog=EXIT_CODES,
                             help="the rounds and statuses this console has seen of a request")
    history.add_argument("rfi_id", type=_request(), metavar="RFI_ID")
    _json_flag(history)
    return history


def add_note(sub: a.Commands, common: a.Parser) -> a.Parser:
    note = sub.add_parser("note", parents=[common], epilog=EXIT_CODES, help="add a note to a request")
    note.add_argument("rfi_id", type=_request(), metavar="RFI_ID")
    note.add_argument("text", help="the note (quote it)")
    note.add_argument("--as", **WHO)
    return note


def add_claim(sub: a.Commands, common: a.Parser) -> a.Parser:
    claim = sub.add_parser("claim", parents=[common], epilog=EXIT_CODES,
                           help="claim a request (\"I'm on it\"); refused while someone else holds it")
    claim.add_argument("rfi_id", type=_request(), metavar="RFI_ID")
    claim.add_argument("--as", **WHO)
    claim.add_argument("--for", dest="lapse", type=a.duration, metavar="DURATION",
                       help="the claim lapses after DURATION (4h, 90m), then anyone may take it (team record)")
    return claim


def add_release(sub: a.Commands, common: a.Parser) -> a.Parser:
    release = sub.add_parser("release", parents=[common], epilog=EXIT_CODES, help="release your claim")
    release.add_argument("rfi_id", type=_request(), metavar="RFI_ID")
    release.add_argument("--as", **WHO)
    release.add_argument("--force", action="store_true", help="release it even if someone else holds it")
    return release


def add_evidence(sub: a.Commands, common: a.Parser) -> a.Parser:
    evidence = sub.add_parser(
        "evidence", parents=[common], epilog=EXIT_CODES,
        help="write an evidence pack (a folder an auditor can read without tools)",
        description="Write rfi.json, rounds.json, notes.json, audit.json and README.md about one request. "
        "DIR is created; if it is an existing folder, a dated folder is made inside it. Nothing is overwritten.",
    )
    evidence.add_argument("rfi_id", type=_request(), metavar="RFI_ID")
    evidence.add_argument("--output", "-o", required=True, metavar="DIR", help="the folder to write")
    return evidence


AUDIT = ("the audit log (this machine's, or the team's with a team record): print it, verify its hash chain")
"""The `audit` group's help; its description is the same as a sentence."""


def add_audit_verify(sub: a.Commands, common: a.Parser) -> a.Parser:
    verify = sub.add_parser("verify", epilog=VERIFY_EXIT_CODES, help="check that no entry was changed, removed or "
                            "reordered")
    _json_flag(verify)
    return verify


def add_audit_log(sub: a.Commands, common: a.Parser) -> a.Parser:
    log = sub.add_parser("log", epilog=EXIT_CODES, help="print the audit log, oldest first")
    log.add_argument("--since", type=since_arg, metavar="DATE",
                     help="only entries from DATE on: 2026-11-01, a date-time, or 7d / 24h back from now")
    log.add_argument("--profile", metavar="NAME", help="only entries of this profile")
    log.add_argument("--limit", type=a.positive, metavar="N", help="only the latest N entries")
    _json_flag(log)
    return log
