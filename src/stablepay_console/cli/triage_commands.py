"""Triage from the shell: `rfis ready|approve|reject|wait|resume|assign`, `record policy` and `rfis report`.

None of these talk to the API: they read and write the record. Exit codes: 0 done; 1 refused or failed
(the reason on standard error: a step out of order, your own answer to approve, an analyst changing
the policy, a record that cannot be used); 2 bad usage or input (`approve` on the local record: four
eyes need the team record).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import timedelta

from stablepay_console.cli import arguments as a
from stablepay_console.storage.triage_steps import BY_NAME, STEPS

OK, FAILED, USAGE = 0, 1, 2
EXIT_CODES = ("exit codes: 0 done; 1 refused or failed (the reason on stderr); 2 bad usage or input "
              "(approve on the local record: four eyes need the team record).")
STEP_HELP = {step.name: step.help for step in STEPS}


def _json_flag(parser: argparse.ArgumentParser, csv: bool = False) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--json", dest="format", action="store_const", const="json", help="print JSON (camelCase keys)")
    if csv:
        group.add_argument("--csv", dest="format", action="store_const", const="csv",
                           help="print CSV: section, key, measure, value")
    parser.set_defaults(format="text")


def add_step(step: str) -> Callable[[a.Commands, a.Parser], a.Parser]:
    """The builder of a step's command (`rfis ready`, …), from the step table."""

    def add(sub: a.Commands, common: a.Parser) -> a.Parser:
        parser = sub.add_parser(step, parents=[common], epilog=EXIT_CODES, help=STEP_HELP[step])
        parser.add_argument("rfi_id", type=a.uuid_of("request ID"), metavar="RFI_ID")
        required = BY_NAME[step].note_required
        parser.add_argument("--note", default="", required=required, metavar="TEXT",
                            help="why (required)" if required else "a note kept with the step")
        _json_flag(parser)
        parser.set_defaults(triage_step=step)
        return parser

    return add


def add_assign(sub: a.Commands, common: a.Parser) -> a.Parser:
    assign = sub.add_parser(
        "assign", parents=[common],
        help="a lead gives a request to an analyst (team record): the analyst holds its claim",
        epilog="exit codes: 0 assigned; 1 refused (not a lead, not an analyst of the team, closed, or held by someone "
               "else without --reassign) or the record failed; 2 bad usage (no team record).",
    )
    assign.add_argument("rfi_id", type=a.uuid_of("request ID"), metavar="RFI_ID")
    assign.add_argument("--to", dest="analyst", required=True, metavar="NAME", help="the analyst (a database login)")
    assign.add_argument("--reassign", action="store_true", help="take it from whoever holds it now")
    _json_flag(assign)
    return assign


def add_report(sub: a.Commands, common: a.Parser) -> a.Parser:
    report = sub.add_parser(
        "report", parents=[common], epilog="exit codes: 0 done; 1 the record cannot be read; 2 bad usage.",
        help="the team's report: per week, durations (median, 90th percentile), breaches, per analyst",
    )
    report.add_argument("--since", type=a.duration, default=timedelta(days=30), metavar="DURATION",
                        help="rounds issued in the last DURATION (default 30d)")
    _json_flag(report, csv=True)
    return report


def add_policy(sub: a.Commands, common: a.Parser) -> a.Parser:
    policy = sub.add_parser(
        "policy", epilog=EXIT_CODES.replace(" (approve on the local record: four eyes need the team record)", ""),
        help="the team's service levels; a lead (or the owner) changes them",
        description="Print the service levels, or change those given. Claim and make ready within a span of "
        "the round's issuedAt; approve a span before its expiresAt. Time waiting on the user does not count.",
    )
    policy.add_argument("--claim-within", type=a.duration, metavar="DURATION", help="e.g. 4h")
    policy.add_argument("--ready-within", type=a.duration, metavar="DURATION", help="e.g. 24h")
    policy.add_argument("--approve-before", type=a.duration, metavar="DURATION", help="e.g. 12h")
    _json_flag(policy)
    return policy
