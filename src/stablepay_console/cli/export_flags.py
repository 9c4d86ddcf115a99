"""The date range of `export`: `--created-after` / `--created-before` (YYYY-MM-DD, UTC days). Standard library only.

The range is half-open: `--created-after 2026-11-01 --created-before 2026-12-01` is November
(on or after the first day, before the second). The API has no date filter and lists newest
first, so the export pages until it is past the range's start and says so.
"""

from __future__ import annotations

import argparse
from datetime import datetime

from stablepay_console.cli.arguments import quoted, say


def day_arg(text: str) -> datetime:
    """`2026-11-01` -> 2026-11-01T00:00:00Z (the parser the export dialog uses too)."""
    from stablepay_console.api.validation import parse_day

    try:
        day = parse_day(text)
    except ValueError:
        day = None
    if day is None:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a day (YYYY-MM-DD, for example 2026-11-01)")
    return day


def add_range_flags(export: argparse.ArgumentParser) -> None:
    export.add_argument("--created-after", type=day_arg, metavar="YYYY-MM-DD",
                        help="only requests created on or after this day (UTC); paging stops once past it")
    export.add_argument("--created-before", type=day_arg, metavar="YYYY-MM-DD",
                        help="only requests created before this day (UTC)")


def range_of(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """The range asked for; an empty one ends the command with a usage error (exit 2)."""
    after: datetime | None = getattr(args, "created_after", None)
    before: datetime | None = getattr(args, "created_before", None)
    if after is not None and before is not None and after >= before:
        message = (f"--created-after {after:%Y-%m-%d} is not before --created-before {before:%Y-%m-%d}: "
                   "the range is empty (the end day itself is left out).")
        from stablepay_console.cli.output import to_stderr

        to_stderr(f"stablepay-console: {say(message)}")
        raise SystemExit(2)
    return after, before
