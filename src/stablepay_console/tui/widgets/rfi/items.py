"""The items of an RFI round, in the server's order, with wrapped label and detail text.

An item listed twice (the same ID) is shown once and the repeat is counted; a round of any
length shows at once, a window of rows at a time (see `WindowedTable`).

The columns fill the table's width: spare room goes to the label and the detail (they wrap less on a
wide terminal); below WIDE_ENOUGH the detail goes under the label, so nothing is cut at the border.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message

from stablepay_console.api.models import RfiItem
from stablepay_console.tui.formatters.lists import first_of_each, hidden_note
from stablepay_console.tui.formatters.rfi import item_kind, item_type, required_text
from stablepay_console.tui.formatters.text import plain, wrapped
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

ITEM_COLUMNS = (
    ("n", "#", 3),
    ("kind", "Kind", 9),
    ("need", "Need", 8),
    ("type", "Document type", 22),
    ("label", "Asked for", 36),
    ("detail", "Detail", 24),
)
WIDE_ENOUGH = sum(width + 2 for _, _, width in ITEM_COLUMNS) + 2
"""The width (cells, with padding and scrollbar) from which the detail has a column of its own."""
NARROW_TYPE = 16
"""The document type's width when the detail shares the label's column."""
MIN_LABEL = 12
MAX_TEXT = 2000
"""A label or detail longer than this is cut: a few screens of text is plenty to read."""


def item_row(n: int, item: RfiItem, *, detail_column: bool = True, type_width: int | None = None) -> TableRow:
    """Row `n` (1-based) of the items table; rows grow to fit the wrapped label and detail.
    Without `detail_column` the detail is written under the label. Given its column's `type_width`,
    the document type breaks at spaces and underscores (`utility_bill_` / `scan`), never mid-word."""
    label = plain(item.label, max_len=MAX_TEXT)
    detail = plain(item.detail or "", style="dim", max_len=MAX_TEXT)
    doc_type = item_type(item) if type_width is None else wrapped(item_type(item), type_width)
    cells = (plain(f"{n:,}"), item_kind(item), required_text(item), doc_type)
    if detail_column:
        return TableRow(cells=(*cells, label, detail), key=item.id, height=None)
    under = Text.assemble(label, "\n", detail) if detail.plain else label
    return TableRow(cells=(*cells, under), key=item.id, height=None)


def item_columns(width: int, count: int) -> list[tuple[str, str, int]]:
    """(key, label, width) of each column for a table `width` cells wide holding `count` items."""
    columns = [(key, label, max(size, len(f"{count:,}")) if key == "n" else size) for key, label, size in ITEM_COLUMNS]
    if width < WIDE_ENOUGH:
        columns = [(k, "Asked for (and detail)" if k == "label" else t, NARROW_TYPE if k == "type" else w)
                   for k, t, w in columns if k != "detail"]
    spare = width - 2 - sum(w + 2 for _, _, w in columns)
    growing = [k for k, _, _ in columns if k in ("label", "detail")]
    return [(k, t, max(MIN_LABEL, w + spare // len(growing)) if k in growing else w) for k, t, w in columns]


class RfiItemsTable(WindowedTable):
    """One row per item, keyed by item ID; rows grow to fit wrapped text.

    Up, PageUp or Home on the first row post `AboveTop`: the detail gives the keys to its body, back at its top."""

    class AboveTop(Message):
        """A key asked to go above the table's first row."""

    def _above_top(self) -> bool:
        if self.position:
            return False
        self.post_message(self.AboveTop())
        return True

    def action_cursor_up(self) -> None:
        if not self._above_top():
            super().action_cursor_up()

    def action_page_up(self) -> None:
        if not self._above_top():
            super().action_page_up()

    def action_scroll_top(self) -> None:
        if not self._above_top():
            super().action_scroll_top()

    def __init__(self, items: list[RfiItem], **kwargs: object) -> None:
        super().__init__(window=200, **kwargs)
        self.items, self.duplicates = first_of_each(items, lambda item: item.id)
        self._columns: list[tuple[str, str, int]] = []

    def on_mount(self) -> None:
        self._fit(WIDE_ENOUGH)
        if self.duplicates:
            self.notify(
                f"The server listed the same item more than once in this round: {hidden_note(self.duplicates)}.",
                title="Duplicate items",
                severity="warning",
                markup=False,
            )

    def on_resize(self, _: events.Resize) -> None:
        self._fit(self.size.width)

    def _fit(self, width: int) -> None:
        columns = item_columns(width, len(self.items))
        if columns == self._columns:
            return
        self._columns = columns
        position = self.position or 0
        self.clear(columns=True)
        for key, label, size in columns:
            self.add_column(label, key=key, width=size)
        detail_column = any(key == "detail" for key, _, _ in columns)
        type_width = next(size for key, _, size in columns if key == "type")
        self.show_rows(
            len(self.items),
            lambda i: item_row(i + 1, self.items[i], detail_column=detail_column, type_width=type_width),
            position,
        )

    @property
    def highlighted(self) -> RfiItem | None:
        at = self.position
        return self.items[at] if at is not None and 0 <= at < len(self.items) else None
