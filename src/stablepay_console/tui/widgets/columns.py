"""Which columns of a table fit its width, by priority (as k9s and gh-dash do).

Each column has a drop rank: 0 is always shown; when the columns do not all fit, the one with the
highest rank goes first, then the next, until the rest fit (or only rank-0 columns are left).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import DataTable

CELL_PADDING = 2
"""DataTable's padding around a cell (one each side)."""
SCROLLBAR = 2
"""Room kept for a vertical scrollbar, so a long table never pushes its last column off."""


def columns_that_fit(widths: Sequence[int], drop: Sequence[int], room: int) -> list[int]:
    """The indexes (in table order) of the columns to show in `room` cells."""
    shown = list(range(len(widths)))
    while sum(widths[i] + CELL_PADDING for i in shown) > room and any(drop[i] for i in shown):
        shown.remove(max((i for i in shown if drop[i]), key=lambda i: drop[i]))
    return shown


def content_widths(header: Sequence[str], rows: Sequence[Sequence[Text | str]]) -> list[int]:
    """Each column's width: its widest cell or its header."""
    widths = [cell_len(label) for label in header]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell.cell_len if isinstance(cell, Text) else cell_len(cell))
    return widths


class FittedTable(DataTable[Text | str]):
    """A table whose columns fit its width: `show(header, drop, rows, keys)`, refitted on every resize."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._header: Sequence[str] = ()
        self._drop: Sequence[int] = ()
        self._rows: Sequence[Sequence[Text | str]] = ()
        self._keys: Sequence[str] = ()
        self.shown_columns: list[int] = []
        """The indexes of the columns shown now."""

    def show(
        self, header: Sequence[str], drop: Sequence[int], rows: Sequence[Sequence[Text | str]], keys: Sequence[str]
    ) -> None:
        self._header, self._drop, self._rows, self._keys = header, drop, rows, keys
        self._fill()

    def on_resize(self, _: events.Resize) -> None:
        if self._header and self._fitting() != self.shown_columns:
            self._fill()

    def _fitting(self) -> list[int]:
        room = self.size.width - SCROLLBAR if self.size.width else 10_000  # not laid out yet: every column
        return columns_that_fit(content_widths(self._header, self._rows), self._drop, room)

    def _fill(self) -> None:
        row = self.cursor_row
        self.shown_columns = self._fitting()
        self.clear(columns=True)
        # Widths given, not left to DataTable: its own measure runs when idle, and rows drawn before that
        # (a screen opened in a running console) kept their headers' widths, cut to "embedde", "san".
        widths = content_widths(self._header, self._rows)
        for i in self.shown_columns:
            self.add_column(self._header[i], width=widths[i])
        for cells, key in zip(self._rows, self._keys, strict=True):
            self.add_row(*(cells[i] for i in self.shown_columns), key=key)
        if self._rows:
            self.move_cursor(row=min(max(row, 0), len(self._rows) - 1))
