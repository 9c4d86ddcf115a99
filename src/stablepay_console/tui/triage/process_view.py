"""A request's process in its detail: one line under the deadline (the step, who holds it, the time left to the
next service level) and the step history (who, when, step, note). They render what `services.triage.process`
decides; the detail reads the record and ticks the countdown."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from stablepay_console.services.triage.process import Process
from stablepay_console.services.triage.state import AFTER, APPROVED, READY, WAITING, ready_at
from stablepay_console.tui.formatters.text import clean, plain, when
from stablepay_console.tui.formatters.triage import STEP_STYLES, short_span

LEVEL_WORDS = {"claim": "claim it", "ready": "make it ready", "approve": "approve it"}


def process_line(found: Process | None, problem: str = "") -> Text:
    """`Triage: ready · made ready by alice · held by alice (assigned by carol) · approve it within 3h12m`."""
    line = Text.assemble(("Triage: ", "bold"))
    if found is None:
        line.append(problem or "reading the record…", style="dim")
        return line
    line.append(found.said, style=STEP_STYLES.get(found.step, "bold"))
    made = ready_at(found.history)
    if made is not None and found.step in (READY, APPROVED):
        line.append(f" · made ready by {clean(made.actor, 40)}")
    approved = [s for s in found.history if s.step == "approve"]
    if found.step == APPROVED and approved:
        line.append(f" · approved by {clean(approved[-1].actor, 40)}", style="bold green")
    if found.holder:
        line.append(f" · held by {clean(found.holder, 40)}")
        if found.assigned_by:
            line.append(f" (assigned by {clean(found.assigned_by, 40)})", style="dim")
    elif found.step not in ("submitted", "resolved", "expired"):
        line.append(" · nobody holds it", style="dim")
    left = found.due.left
    if left is not None and (left.paused or found.step == WAITING):
        line.append(" · paused", style="yellow")
        line.append(" (waiting on the user: the team's clock is stopped)", style="dim")
    elif left is not None and left.left is not None:
        words = LEVEL_WORDS.get(left.level, left.level)
        if left.breached:
            line.append(f" · {words}: breached {short_span(left.left)} ago", style="bold red")
        else:
            line.append(f" · {words} within {short_span(left.left)}")
    return line


class ProcessLine(Static):
    DEFAULT_CSS = "ProcessLine { height: auto; padding: 0 1; }"


class StepHistory(Static):
    """The steps of the request's current round, oldest first; "No triage step yet." before the first."""

    DEFAULT_CSS = "StepHistory { height: auto; padding: 0 1; margin: 1 0 0 0; }"

    def show(self, found: Process | None) -> None:
        if found is None or not found.history:
            self.update(Text.assemble(("Steps: ", "bold"), ("no triage step yet on this round.", "dim")))
            return
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(overflow="fold")
        for step in found.history:
            grid.add_row(plain(when(step.at)), plain(step.actor, max_len=30),
                         Text(step.step, style=STEP_STYLES.get(AFTER.get(step.step, ""), "")),
                         plain(step.note, max_len=300) if step.note else Text(""))
        title = Text.assemble((f"Steps ({len(found.history)})", "bold"), (" on this round, oldest first", "dim"))
        table = Table.grid()
        table.add_row(title)
        table.add_row(grid)
        self.update(table)
