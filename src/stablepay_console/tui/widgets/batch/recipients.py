"""The recipients of a batch: who got how much, with the count and the exact total.

A batch can list any number of recipients: the table holds a window of them (see
`WindowedTable`), so 100,000 recipients show at once and the keys keep answering. A user ID
listed twice is two payments: recipients have no ID of their own, so rows are keyed by position and
every one is shown.
"""

from __future__ import annotations

from rich.text import Text

from stablepay_console.api.models import BatchRecipient, BatchTransfer
from stablepay_console.tui.formatters.numbers import money, usable
from stablepay_console.tui.formatters.text import clean, plain
from stablepay_console.tui.widgets.batch.fields import scroll_sign
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable


def _recipients(batch: BatchTransfer) -> list[BatchRecipient]:
    return list(batch.details.destination.batch)


def total_text(batch: BatchTransfer) -> Text:
    """The exact sum of the amounts with the currency, or why there is none."""
    total = batch.total
    if total is None:
        bad = batch.unreadable_amounts
        noun = "amount is" if bad == 1 else "amounts are"
        return Text(f"total unknown: {bad:,} {noun} unreadable", style="bold yellow")
    return Text.assemble("total ", (money(total, batch.details.currency), "bold"))


def summary(batch: BatchTransfer) -> Text:
    """`50 recipients, total 123,456.78 USDC` (the total is the exact sum of the amounts)."""
    count = len(_recipients(batch))
    noun = "recipient" if count == 1 else "recipients"
    return Text.assemble((f"{count:,} {noun}", "bold"), ", ", total_text(batch))


def recipient_row(index: int, recipient: BatchRecipient, currency: str | None) -> TableRow:
    """Row `index` (0-based) of the recipients table: position, user ID, amount."""
    amount = money(recipient.amount, currency)
    style = "yellow" if not usable(recipient.amount) else ""
    return TableRow(
        cells=(
            Text(f"{index + 1:,}", justify="right"),
            plain(recipient.user_id),
            Text(clean(amount), style=style, justify="right"),
        ),
        key=str(index + 1),
    )


class RecipientsTable(WindowedTable):
    """One row per recipient: position, user ID, amount (right-aligned, exact)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, window=500)
        self._batch: BatchTransfer | None = None
        self._recipients: list[BatchRecipient] = []

    def show(self, batch: BatchTransfer) -> None:
        self.clear(columns=True)
        self._batch = batch
        self._recipients = _recipients(batch)
        count_width = max(1, len(f"{len(self._recipients):,}"))
        self.add_column(Text("#", justify="right"), key="n", width=count_width)
        self.add_column("User", key="user")
        self.add_column(Text("Amount", justify="right"), key="amount")
        self.show_rows(len(self._recipients), self._row)

    def _row(self, index: int) -> TableRow:
        currency = self._batch.details.currency if self._batch is not None else None
        return recipient_row(index, self._recipients[index], currency)

    def window_changed(self) -> None:
        self._say_scroll()

    def on_resize(self) -> None:
        self._say_scroll()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._say_scroll()

    def _say_scroll(self) -> None:
        """The window's rows (`rows 1–500 of 100,000`) and whether more are below the ones in view."""
        shown = self.scrollable_content_region.height - self.header_height
        sign = scroll_sign(round(self.scroll_y), shown, self.row_count)
        below = sign.split(" · ")[-1] if sign else ""
        window = self.window_label()
        self.border_subtitle = " · ".join(part for part in (window, below) if part) if window else sign

    def copy_target(self) -> tuple[str, str] | None:
        at = self.position
        if at is None or not 0 <= at < len(self._recipients):
            return None
        return self._recipients[at].user_id, f"recipient {at + 1:,}'s user ID"
