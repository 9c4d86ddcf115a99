"""The inbox's triage cells: the step a request is at, and the time left to its next service level."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from stablepay_console.services.triage.due import RowTriage
from stablepay_console.services.triage.state import APPROVED, CLOSED, READY, WAITING

if TYPE_CHECKING:
    from datetime import timedelta

STEP_STYLES = {READY: "bold cyan", APPROVED: "bold green", WAITING: "yellow", "unclaimed": "dim",
               **{status: "dim" for status in CLOSED}}


def short_span(left: timedelta) -> str:
    """`3h12m`, `2d4h`, `45m`: the two largest units, for a narrow column."""
    minutes = int(abs(left.total_seconds()) // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days}d{hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h{mins:02d}m" if mins else f"{hours}h"
    return f"{mins}m"


def step_cell(row: RowTriage | None) -> Text:
    if row is None:
        return Text("")
    cell = Text(row.step, style=STEP_STYLES.get(row.step, ""))
    if row.by:
        cell.append(f" ·{row.by}", style="dim")
    return cell


def sla_cell(row: RowTriage | None) -> Text:
    """The time left to the next level (`3h12m`; the step says which: claim, ready or approve), `-2h05m`
    in red once breached, `paused` while waiting on the user."""
    if row is None or row.left is None:
        return Text("")
    if row.left.paused:
        return Text("paused", style="yellow")
    left = row.left.left
    if left is None:
        return Text("")
    if left.total_seconds() < 0:
        return Text(f"-{short_span(left)}", style="bold red")
    return Text(short_span(left))
