"""The banner's deadline count ("2 due < 24h · 1 overdue"), as text: light enough for the first frame."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from stablepay_console.api.sanitize import clean

NEEDS_ACTION_ACTION = "app.radar_needs_action"
"""What a click on the count does: open the inbox's needs-action view."""
SEPARATOR = " · "


def urgency(part: str) -> int:
    """Which count a narrow banner keeps longest: the review queue's (yours to act on), then the overdue one."""
    return 0 if part.endswith(" to review") else 1 if "overdue" in part else 2


def compact(label: str, room: int | None = None) -> str:
    """`2 due < 24h · 1 overdue` -> `1 overdue · 2 due`: the most urgent first, for a narrow banner.

    Given `room` (cells), only the parts that fit whole are kept (the most urgent one always), so the
    count is never cut in the middle: `1 overdue` where `1 overdue · 2 due` would not fit.
    """
    parts = sorted((part.replace(" < 24h", "") for part in label.split(" · ")), key=urgency)
    kept = parts[:1]
    for part in parts[1:]:
        if room is not None and len(" · ".join([*kept, part])) > room:
            break
        kept.append(part)
    return " · ".join(kept)


def radar_text(label: str, narrow: bool = False, room: int | None = None) -> Text:
    """The banner's count (with its separator): reversed, and a click on it opens needs action.

    Empty when nothing is due. The separator is a visible " · " at every width: reversed colours alone
    are lost where styles are (copied text, a screen reader), and "pong 4 overdue" read as one answer.
    `narrow`: the most urgent first, in as few cells as it takes (and what fits in `room` cells, the
    separator included), so that at 80 columns "4 overdue" still shows after the ping.
    """
    if not label:
        return Text("")
    style = Style(bold=True, reverse=True, meta={"@click": NEEDS_ACTION_ACTION})
    if narrow:
        fits = None if room is None else room - len(SEPARATOR)
        return Text.assemble(SEPARATOR, (clean(compact(label, fits), 60), style))
    return Text.assemble(SEPARATOR, (f" {clean(label, 60)} ", style))
