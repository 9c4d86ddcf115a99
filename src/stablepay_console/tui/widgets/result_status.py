"""The one status line every API screen shows: loading (and what), the result's provenance, or the error.

It renders a `ResultState`: after an error with a result still on screen, the result's container
gets the `-stale` class (greyed by app.tcss) and the line says what is still shown, from when.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from stablepay_console.services.provenance import ResultState

STYLES = {
    "loading": "italic",
    "error": "bold red",
    "stale": "yellow",
    "result": "dim",
    "empty": "dim",
}


class ResultStatus(Static):
    DEFAULT_CSS = """
    ResultStatus { height: auto; padding: 0 1; }
    """

    def __init__(self, hint: str = "", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.hint = hint
        """What to say before anything was asked."""

    def show(self, state: ResultState[Any], result: Widget | None = None, extra: Text | None = None) -> None:
        kind, text = state.status_line()
        line = Text(text or self.hint, style=STYLES[kind])
        if kind == "stale":  # the error in red, then what is still shown
            error, _, still = text.partition("\n")
            line = Text.assemble((error, STYLES["error"]), "\n", (still, STYLES["stale"]))
        if kind == "result":
            line = Text.assemble(("From ", "dim"), line)
        if extra is not None and extra.plain:
            line.append("\n")
            line.append_text(extra)
        self.update(line)
        self.set_class(kind in ("error", "stale"), "-problem")
        if result is not None:
            result.set_class(kind == "stale", "-stale")
            result.display = state.current is not None
