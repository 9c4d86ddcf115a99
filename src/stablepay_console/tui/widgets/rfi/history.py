"""What this console has seen of one request: each round (earlier ones' items and deadlines, what
changed from one to the next) and the status timeline. The API returns only the current round."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from stablepay_console.services.history_view import changes_per_round, round_lines, status_lines
from stablepay_console.storage.record_types import RfiHistory


def history_text(history: RfiHistory) -> Text:
    """Rounds seen and the status timeline as rich text (every string already cleaned)."""
    text = Text()
    if not history.rounds:
        text.append("No round seen yet.", style="dim")
    for r, changes in zip(history.rounds, changes_per_round(history), strict=True):
        first, *rest = round_lines(r, changes)
        latest = r.entry == len(history.rounds)
        text.append(first + ("  (as now)" if latest else ""), style="bold" if latest else "bold dim")
        for line in rest:
            text.append("\n")
            text.append(line, style="yellow" if line.lstrip().startswith("Changed:") else "")
        text.append("\n")
    text.append("\nStatus timeline\n", style="bold")
    lines = status_lines(history)
    text.append("\n".join("  " + line for line in lines) if lines else "  none seen", style="")
    return text


class RfiHistoryView(Vertical):
    """`show(history)` once the record answered; `show_problem` when it cannot."""

    DEFAULT_CSS = """
    RfiHistoryView { height: auto; }
    RfiHistoryView > #history-title { text-style: bold; }
    RfiHistoryView > #history-body { height: auto; padding: 0 0 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text("Rounds seen"), id="history-title")
        yield Static(Text("Reading the record…", style="dim italic"), id="history-body")

    def _seen_by(self) -> str:
        """Whose sightings the rounds are: the team's (a team record) or this console's (the local record)."""
        services = getattr(self.app, "services", None)
        return "the team" if getattr(services, "team", None) is not None else "this console"

    def show(self, history: RfiHistory) -> None:
        count = len(history.rounds)
        by = self._seen_by()
        title = f"Rounds seen by {by} ({count})" if history.seen else f"Rounds seen by {by}"
        self.query_one("#history-title", Static).update(Text(title))
        consoles = "the team's consoles receive" if by == "the team" else "this console receives"
        body = history_text(history) if history.seen else Text(
            f"Nothing recorded yet: the record keeps each request as {consoles} it.", style="dim"
        )
        self.query_one("#history-body", Static).update(body)

    def show_problem(self, problem: str) -> None:
        self.query_one("#history-body", Static).update(Text(f"The record cannot be read: {problem}", "red"))

    @property
    def text(self) -> str:
        return str(self.query_one("#history-body", Static).render())
