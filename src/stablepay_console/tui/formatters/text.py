"""Turning values into safe, readable text for the screen.

Server-sent text is data, never markup: everything goes through `Text` and
`clean`, which also makes control characters and escape sequences visible
instead of letting them reach the terminal.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from decimal import Decimal

from rich.cells import cell_len, chop_cells
from rich.text import Text

from stablepay_console.api.sanitize import clean, has_control
from stablepay_console.services.durations import span
from stablepay_console.tui.formatters.numbers import money as safe_money

MAX_TYPED_PATH = 4096


def typed_path(text: str) -> str:
    """A file path typed by a person, stripped; ValueError if it cannot be a sensible file name."""
    value = text.strip()
    if has_control(value):
        raise ValueError(f"The file name holds control characters or escape sequences: {clean(value, 60)}")
    if len(value) > MAX_TYPED_PATH:
        raise ValueError(f"The path is {len(value):,} characters long; keep it under {MAX_TYPED_PATH:,}.")
    return value


def plain(value: object, style: str = "", max_len: int | None = None) -> Text:
    """A Rich Text of `value` that is never parsed as markup."""
    return Text(clean(value, max_len), style=style)


def short_id(value: str | None) -> str:
    return "" if not value else value[:8]


def when(value: datetime | date | None) -> str:
    """Absolute time in UTC, to the minute."""
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC") if value.utcoffset() == timedelta(0) else value.isoformat(
            timespec="minutes"
        )
    return value.isoformat()



def ago(value: datetime | None, now: datetime) -> str:
    if value is None:
        return ""
    delta = now - value
    if delta.total_seconds() < 0:
        return "in " + span(delta)
    if delta < timedelta(minutes=1):
        return "just now"
    return span(delta) + " ago"


URGENT = timedelta(hours=24)


NO_DEADLINE = "no deadline"
"""An open round whose `expiresAt` is missing: no reply is due by a date."""


def countdown(deadline: datetime | None, now: datetime) -> Text:
    """`in 5h 12m` (red under 24 hours), `overdue` once past (the banner's word: `expired` is a status's), blank
    without a deadline. As narrow as the status words: a column of them keeps its width."""
    if deadline is None:
        return Text("")
    left = deadline - now
    if left.total_seconds() <= 0:
        return Text("overdue", style="bold red")
    style = "bold red" if left < URGENT else ""
    return Text("in " + span(left), style=style)


def money(amount: Decimal | None, currency: str | None = None) -> str:
    """`1,234.50 USDC`; an amount that cannot be shown reads "unreadable" (see formatters.numbers)."""
    return safe_money(amount, currency)


TOAST_PATH = 36
"""A notification's text is 36 cells wide in an 80-column terminal (half the screen, less its border and
padding): a longer line would be broken by the notification, wherever it falls."""
TOAST_LINES = 4
"""A path is shown whole on up to this many lines of a notification, broken only after `/`, `-` or `_`."""


def toast_path(path: object, width: int = TOAST_PATH) -> str:
    """A path for a notification: `~` for home, then the whole path on as many lines as it needs (up to
    TOAST_LINES), each broken after `/`, `-` or `_`; a longer one keeps `…/folder/name` (the name whole
    when it fits, else cut in its middle)."""
    import os

    text = clean(path)
    home = os.path.expanduser("~")
    if home and home != "/" and text.startswith(home + os.sep):
        text = "~" + text[len(home):]
    lines = path_lines(text, width)
    if lines is not None and len(lines) <= TOAST_LINES:
        return "\n".join(lines)
    parts = text.split(os.sep)
    name = parts[-1]
    if len(name) + 2 > width:
        keep = width - 3
        return "…" + os.sep + name[: keep // 2] + "…" + name[-(keep - keep // 2) + 1 :]
    shown = name
    for folder in reversed(parts[:-1]):
        if len(folder) + len(shown) + 3 > width:
            break
        shown = folder + os.sep + shown
    return "…" + os.sep + shown


def path_lines(text: str, width: int) -> list[str] | None:
    """The path in lines of at most `width`, each ending just after `/`, `-` or `_` (None: a piece
    between two of those is wider than `width`)."""
    import os
    import re

    breaks = re.escape(os.sep + "-_")
    lines, line = [], ""
    for piece in re.findall(f"[^{breaks}]*[{breaks}]|[^{breaks}]+", text):
        if len(piece) > width:
            return None
        if len(line) + len(piece) > width:
            lines.append(line)
            line = ""
        line += piece
    return [*lines, line]


WORD_PIECES = re.compile(r"\s+|[^\s_-]*[_-]+|[^\s_-]+")
"""Spaces, or a word up to and with its `_` or `-` (a line may end after one), or the rest of a word."""


def word_lines(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` cells, broken at spaces or just after `_` or `-`
    (`utility_bill_` / `scan`), so a document type like `utility_bill_scan` never splits inside a
    word; only a piece wider than a whole line is cut, where the line ends."""
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for piece in WORD_PIECES.findall(text):
        if piece.isspace():
            line += " " if line else ""
        elif cell_len(line + piece) <= width:
            line += piece
        else:
            if line:
                lines.append(line.rstrip())
            *whole, line = chop_cells(piece, width)
            lines += whole
    if line or not lines:
        lines.append(line.rstrip())
    return lines


def wrapped(text: Text, width: int) -> Text:
    """A one-style `text` (a table cell) broken by `word_lines`, in the same style."""
    return Text("\n".join(word_lines(text.plain, width)), style=text.style)
