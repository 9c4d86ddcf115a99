"""A two-column table of labelled values where the selected row can be copied with one key.

Shared by batch lookup and quote refresh for their detail panels. A value wider than the table is
shortened to fit, never cut at the border: a copyable one (a hash, an address, an ID, a link) keeps
its start and end around an ellipsis, and the copy key still copies it whole.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.widgets import DataTable

from stablepay_console.tui.formatters.text import plain


@dataclass(frozen=True)
class FieldRow:
    label: str
    shown: Text
    """What the row displays (already safe: built with `plain`)."""
    copy: str | None = None
    """The raw value the copy key puts on the clipboard; None when there is nothing to copy."""


def field(label: str, value: object, *, copy: bool = False, style: str = "") -> FieldRow:
    """A row showing `value` as plain text; `copy=True` makes the value copyable."""
    text = "" if value is None else str(value)
    return FieldRow(label, plain(text or "—", style=style), text if copy and text else None)


CELL_PADDING = 2
"""DataTable's padding around a cell (one each side)."""
SCROLLBAR = 2


def middle_ellipsis(text: Text, width: int) -> Text:
    """`0x85b86ce5…a99286c0d7`: the start and the end of `text` in `width` cells (single-cell text)."""
    if text.cell_len <= width:
        return text
    keep = max(width - 1, 2)
    head, tail = keep - keep // 2, keep // 2
    start, _, end = text.divide([head, len(text) - tail])
    return Text.assemble(start, "…", end)


def scroll_sign(top: int, shown: int, total: int) -> str:
    """`1–3 of 14 · ↓ more below`: which rows of a box are in view, when not all of them are ("" when all are).
    Written in the box's border, so a terminal that shows no scrollbar's colours (a capture, a screen reader)
    still says that the box scrolls."""
    if shown <= 0 or total <= shown:
        return ""
    top = max(0, min(top, total - shown))
    last = top + shown
    more = "↓ more below" if last < total else "↑ more above"
    return f"{top + 1:,}–{last:,} of {total:,} · {more}"


def fitted(row: FieldRow, width: int | None) -> Text:
    """The row's value in `width` cells (None: as wide as it is)."""
    shown = row.shown
    if width is None or shown.cell_len <= width:
        return shown
    if row.copy is not None and "\n" not in shown.plain:
        return middle_ellipsis(shown, width)
    cut = shown.copy()
    cut.no_wrap, cut.overflow = True, "ellipsis"
    return cut


class FieldTable(DataTable[Text]):
    """Label / value rows; `copy_target()` names the selected row's value."""

    def __init__(self, *, label_width: int = 18, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_header=False)
        self._rows: list[FieldRow] = []
        self.label_width = label_width

    def on_mount(self) -> None:
        self.add_column("Field", key="label", width=self.label_width)
        self.add_column("Value", key="value")

    def on_resize(self, _: events.Resize) -> None:
        if self._rows:
            self.show(self._rows)
        self._say_scroll()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._say_scroll()

    def _say_scroll(self) -> None:
        self.border_subtitle = scroll_sign(round(self.scroll_y), self.scrollable_content_region.height,
                                           len(self._rows))

    def value_width(self, rows: int) -> int | None:
        """The value column's width for `rows` rows: what is left of the table (None before layout)."""
        region = self.scrollable_content_region
        if not region.width:
            return None
        scrollbar = SCROLLBAR if rows > region.height else 0
        return max(8, region.width - self.label_width - 2 * CELL_PADDING - scrollbar)

    def show(self, rows: list[FieldRow]) -> None:
        selected = self.cursor_row
        self._rows = list(rows)
        width = self.value_width(len(rows))
        self.clear(columns=True)
        self.add_column("Field", key="label", width=self.label_width)
        self.add_column("Value", key="value", width=width)
        for n, row in enumerate(rows):
            self.add_row(Text(row.label, style="bold"), fitted(row, width), key=str(n))
        if rows:
            self.move_cursor(row=min(max(selected, 0), len(rows) - 1))
        self._say_scroll()

    def copy_target(self) -> tuple[str, str] | None:
        """(value, what) of the selected row, or None if it holds nothing to copy."""
        if not self._rows or not 0 <= self.cursor_row < len(self._rows):
            return None
        row = self._rows[self.cursor_row]
        return (row.copy, row.label.lower()) if row.copy else None
