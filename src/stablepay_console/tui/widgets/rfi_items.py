"""The items of an RFI round, in the server's order, with wrapped label and detail text.

An item listed twice (the same ID) is shown once and the repeat is counted; a round of any
length shows at once, a window of rows at a time (see `WindowedTable`).
"""

from __future__ import annotations

from stablepay_console.api.models import RfiItem
from stablepay_console.tui.formatters.lists import first_of_each, hidden_note
from stablepay_console.tui.formatters.rfi import item_kind, item_type, required_text
from stablepay_console.tui.formatters.text import plain
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

ITEM_COLUMNS = (
    ("n", "#", 3),
    ("kind", "Kind", 9),
    ("need", "Need", 8),
    ("type", "Document type", 22),
    ("label", "Asked for", 36),
    ("detail", "Detail", 24),
)
MAX_TEXT = 2000
"""A label or detail longer than this is cut: a few screens of text is plenty to read."""


def item_row(n: int, item: RfiItem) -> TableRow:
    """Row `n` (1-based) of the items table; rows grow to fit the wrapped label and detail."""
    return TableRow(
        cells=(
            plain(f"{n:,}"),
            item_kind(item),
            required_text(item),
            item_type(item),
            plain(item.label, max_len=MAX_TEXT),
            plain(item.detail or "", style="dim", max_len=MAX_TEXT),
        ),
        key=item.id,
        height=None,
    )


class RfiItemsTable(WindowedTable):
    """One row per item, keyed by item ID; rows grow to fit wrapped text."""

    def __init__(self, items: list[RfiItem], **kwargs: object) -> None:
        super().__init__(window=200, **kwargs)
        self.items, self.duplicates = first_of_each(items, lambda item: item.id)

    def on_mount(self) -> None:
        for key, label, width in ITEM_COLUMNS:
            if key == "n":
                width = max(width, len(f"{len(self.items):,}"))
            self.add_column(label, key=key, width=width)
        self.show_rows(len(self.items), lambda i: item_row(i + 1, self.items[i]))
        if self.duplicates:
            self.notify(
                f"The server listed the same item more than once in this round: {hidden_note(self.duplicates)}.",
                title="Duplicate items",
                severity="warning",
                markup=False,
            )

    @property
    def highlighted(self) -> RfiItem | None:
        at = self.position
        return self.items[at] if at is not None and 0 <= at < len(self.items) else None
