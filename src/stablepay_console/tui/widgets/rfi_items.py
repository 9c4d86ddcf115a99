"""The items of an RFI round, in the server's order, with wrapped label and detail text."""

from __future__ import annotations

from textual.widgets import DataTable

from stablepay_console.api.models import RfiItem
from stablepay_console.tui.formatters.rfi import item_kind, item_type, required_text
from stablepay_console.tui.formatters.text import plain

ITEM_COLUMNS = (
    ("n", "#", 3),
    ("kind", "Kind", 9),
    ("need", "Need", 8),
    ("type", "Document type", 22),
    ("label", "Asked for", 36),
    ("detail", "Detail", 24),
)


class RfiItemsTable(DataTable[object]):
    """One row per item, keyed by item ID; rows grow to fit wrapped text."""

    def __init__(self, items: list[RfiItem], **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.items = list(items)

    def on_mount(self) -> None:
        for key, label, width in ITEM_COLUMNS:
            self.add_column(label, key=key, width=width)
        for n, item in enumerate(self.items, start=1):
            self.add_row(
                plain(n),
                item_kind(item),
                required_text(item),
                item_type(item),
                plain(item.label),
                plain(item.detail or "", style="dim"),
                key=item.id,
                height=None,
            )

    @property
    def highlighted(self) -> RfiItem | None:
        if not self.items or self.row_count == 0:
            return None
        row = self.cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None
