"""The banner's deadline count ("2 due < 24h · 1 overdue"), as text: light enough for the first frame."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from stablepay_console.api.sanitize import clean

NEEDS_ACTION_ACTION = "app.radar_needs_action"
"""What a click on the count does: open the inbox's needs-action view."""


def compact(label: str) -> str:
    """`2 due < 24h · 1 overdue` -> `1 overdue · 2 due`: the most urgent first, for a narrow banner."""
    parts = [part.replace(" < 24h", "") for part in label.split(" · ")]
    return " · ".join(sorted(parts, key=lambda part: "overdue" not in part))


def radar_text(label: str, narrow: bool = False) -> Text:
    """The banner's count (with its separator): reversed, and a click on it opens needs action.

    Empty when nothing is due. `narrow`: the most urgent first, in as few cells as it takes, so that
    at 80 columns "4 overdue" still shows after the ping.
    """
    if not label:
        return Text("")
    style = Style(bold=True, reverse=True, meta={"@click": NEEDS_ACTION_ACTION})
    if narrow:
        return Text.assemble(" ", (clean(compact(label), 60), style))
    return Text.assemble(" · ", (f" {clean(label, 60)} ", style))
