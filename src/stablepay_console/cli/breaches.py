"""`rfis due`'s service levels breached: their rows, and the table printed after the deadlines (text only: the
`--json` list stays the API's requests). Only where someone set a policy (`record policy`; a team's `record
init` sets one): without one there is no level, so no row and no word of one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from stablepay_console.cli.output import Output, note

if TYPE_CHECKING:
    from stablepay_console.services.triage.due import Breach

BreachRow = tuple[str, str, str, str, str]
"""id, round, step, level, late by."""


def breach_row(breach: Breach) -> BreachRow:
    """The row of a breach. `rfis due` makes it as the breach is found, while the pages come."""
    return breach.rfi_id, str(breach.round_no), breach.step, breach.level, late_words(breach.late_seconds)


def late_words(seconds: float) -> str:
    """`2 days 3 h`, `4 h 10 min`, `5 min` (at least a minute)."""
    minutes = int(seconds // 60)
    if minutes >= _DAY:  # most breaches `rfis due` words: a day or more late, worded to the hour
        days, rest = divmod(minutes, _DAY)
        return f"{days} day{'s' if days != 1 else ''} {rest // 60} h"
    hours, mins = divmod(max(1, minutes), 60)
    return f"{hours} h {mins} min" if hours else f"{mins} min"


_DAY = 24 * 60


def print_breaches(out: Output, rows: Sequence[BreachRow], after_rows: bool = True) -> None:
    """After the deadlines: the open requests whose next service level is breached, the latest first."""
    if not rows or not out.is_text:
        return
    if after_rows:
        out.blank()
    out.table(("id", "round", "step", "level", "late by"), rows, title="Service levels breached")
    note(f"{len(rows)} service level{'s' if len(rows) != 1 else ''} breached (the levels `record policy` set).")
