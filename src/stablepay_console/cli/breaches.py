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
    """The row of a breach, as `rfis due` lists it."""
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


def print_breaches(out: Output, breaches: Sequence[Breach], count: int, after_rows: bool = True) -> None:
    """After the deadlines: the open requests whose next service level is breached, the latest first (`breaches`,
    of `count` found: `rfis due` lists the 50 latest unless asked for more)."""
    if not count or not out.is_text:
        return
    if breaches:
        if after_rows:
            out.blank()
        out.table(("id", "round", "step", "level", "late by"), [breach_row(b) for b in breaches],
                  title="Service levels breached")
    said = f"{count} service level{'s' if count != 1 else ''} breached (the levels `record policy` set)"
    if len(breaches) < count:
        said += f"; the {len(breaches)} breached longest ago are listed (`--breaches all` lists every one)"
    note(said + ".")
