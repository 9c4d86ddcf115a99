"""The recipients of a batch: who got how much, with the count and the exact total."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from stablepay_console.api.models import BatchTransfer
from stablepay_console.tui.formatters.text import clean, money, plain


def summary(batch: BatchTransfer) -> Text:
    """`50 recipients, total 123,456.78 USDC` (the total is the exact sum of the amounts)."""
    count = len(batch.details.destination.batch)
    noun = "recipient" if count == 1 else "recipients"
    return Text.assemble(
        (f"{count} {noun}", "bold"),
        ", total ",
        (clean(money(batch.total, batch.details.currency)), "bold"),
    )


class RecipientsTable(DataTable[Text]):
    """One row per recipient: position, user ID, amount (right-aligned, exact)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._users: list[str] = []

    def show(self, batch: BatchTransfer) -> None:
        self.clear(columns=True)
        recipients = batch.details.destination.batch
        amounts = [clean(money(r.amount, batch.details.currency)) for r in recipients]
        # The table ignores Text.justify, so amounts are padded to line up their decimals.
        width = max([len("Amount"), *(len(a) for a in amounts)])
        count_width = max(1, len(str(len(recipients))))
        self.add_column("#".rjust(count_width), key="n")
        self.add_column("User", key="user")
        self.add_column("Amount".rjust(width), key="amount")
        self._users = [r.user_id for r in recipients]
        for n, (recipient, amount) in enumerate(zip(recipients, amounts, strict=True), start=1):
            self.add_row(
                Text(str(n).rjust(count_width)),
                plain(recipient.user_id),
                Text(amount.rjust(width)),
                key=str(n),
            )

    def copy_target(self) -> tuple[str, str] | None:
        if not self._users or not 0 <= self.cursor_row < len(self._users):
            return None
        return self._users[self.cursor_row], f"recipient {self.cursor_row + 1}'s user ID"
