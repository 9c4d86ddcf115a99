"""The quote itself: what is sent, the fee, what is received, the rate, and how each moved."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from rich.text import Text
from textual.widgets import DataTable

from stablepay_console.api.models import Money, QuoteInformation
from stablepay_console.tui.formatters.numbers import number
from stablepay_console.tui.formatters.text import clean, money, span, when
from stablepay_console.tui.widgets.quote.changes import TRACKED, change_text, compare

LINES = (
    ("Send gross", "send_gross"),
    ("Send net", "send_net"),
    ("Rail fee", "rail_fee"),
    ("Receive gross", "receive_gross"),
    ("Receive net", "receive_net"),
    ("Rate", "rate"),
)

SOON = timedelta(minutes=1)


def line_value(quote: QuoteInformation, name: str) -> str:
    """The line as shown: an amount with separators and its currency, "unreadable" where it cannot be."""
    value = getattr(quote, name)
    if isinstance(value, Money):
        return clean(money(value.amount, value.currency))
    return clean(number(value)) if isinstance(value, Decimal) else clean(value)


def raw_value(quote: QuoteInformation, name: str) -> str:
    value = getattr(quote, name)
    return str(value.amount) if isinstance(value, Money) else str(value)


def expiry_text(quote: QuoteInformation, now: datetime) -> Text:
    """`Expires 09:40 UTC, in 9m 59s`; `No expiry` for the wire's `N/A`; `Expired` once past."""
    expires = quote.expires_at
    if expires is None:
        return Text.assemble(("No expiry", "bold"), " (the server sends N/A for this quote)")
    left = expires - now
    if left.total_seconds() <= 0:
        return Text.assemble(
            ("Expired", "bold red"), f" at {when(expires)}, {span(left)} ago: refresh for a new quote"
        )
    style = "bold red" if left <= SOON else "bold yellow"
    return Text.assemble("Expires ", (when(expires), "bold"), ", ", (f"in {span(left)}", style))


class QuoteTable(DataTable[Text]):
    """One row per quote line; after a second refresh, the previous value and the change."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._raw: list[str] = []

    def show(self, quote: QuoteInformation, previous: QuoteInformation | None) -> None:
        cursor = self.cursor_row
        self.clear(columns=True)
        now_values = [line_value(quote, name) for _, name in LINES]
        was_values = [line_value(previous, name) if previous else "" for _, name in LINES]
        changes = compare(previous, quote) if previous is not None else {}
        # The table ignores Text.justify: pad so the amounts line up on the right.
        width = max(len(v) for v in [*now_values, "Amount"])
        was_width = max(len(v) for v in [*was_values, "Previous"])
        rows = []
        for (label, name), value, was in zip(LINES, now_values, was_values, strict=True):
            cells = [Text(label, style="bold"), Text(value.rjust(width))]
            if previous is not None:
                change = changes.get(name) if name in TRACKED else None
                cells += [Text(was.rjust(was_width), style="dim"), change_text(change) if change else Text("")]
            rows.append((name, cells))
        # Every column gets its width now: measured later (as DataTable does for a column without one), a frame
        # could show the new rows in the old widths ("Recei", "▼ -0.0").
        headers, keys = ["Quote", "Amount".rjust(width)], ["line", "amount"]
        if previous is not None:
            headers, keys = [*headers, "Previous".rjust(was_width), "Change"], [*keys, "previous", "change"]
        for index, (header, key) in enumerate(zip(headers, keys, strict=True)):
            fits = max([len(header), *(cells[index].cell_len for _, cells in rows)])
            self.add_column(header, key=key, width=fits)
        self._raw = [raw_value(quote, name) for _, name in LINES]
        for name, cells in rows:
            self.add_row(*cells, key=name)
        self.move_cursor(row=min(max(cursor, 0), len(LINES) - 1))

    def copy_target(self) -> tuple[str, str] | None:
        if not self._raw or not 0 <= self.cursor_row < len(self._raw):
            return None
        return self._raw[self.cursor_row], LINES[self.cursor_row][0].lower()
