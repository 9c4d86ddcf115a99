"""A DataTable over a list of any length: it holds a window of rows and slides it as the cursor moves.

DataTable measures every row it is given and rebuilds its list of line offsets whole after each
change, so 100,000 rows took tens of seconds and froze the console. This table materialises at
most `window` rows of the list (built on demand by a row function); moving the cursor past either
end of the window re-centres it on the new position, so the cost of showing a list does not grow
with its length and a key press is answered at once whatever the server sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self

from rich.text import Text

from stablepay_console.tui.widgets.quick_cells import QuickCells


@dataclass(frozen=True)
class TableRow:
    cells: Sequence[Text]
    key: str
    height: int | None = 1
    """None lets the row grow to fit wrapped text."""


RowOf = Callable[[int], TableRow]


class WindowedTable(QuickCells):
    """Rows `0..count-1` of a list, `window` of them at a time; `position` is the index in the whole list."""

    def __init__(self, *, window: int = 500, **kwargs: object) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", True)
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.window = max(2, window)
        self.total_rows = 0
        self.window_start = 0
        self._row_of: RowOf | None = None

    def show_rows(self, count: int, row_of: RowOf, position: int = 0) -> None:
        """Show a list of `count` rows (`row_of(i)` builds row i), the cursor on `position`."""
        self.clear()
        self.total_rows = max(0, count)
        self._row_of = row_of
        self._load_around(min(max(position, 0), max(self.total_rows - 1, 0)))

    def clear(self, columns: bool = False) -> Self:
        """Forget the list as well as the rows (a cleared table never slides back to old rows)."""
        self.total_rows = 0
        self.window_start = 0
        self._row_of = None
        super().clear(columns)
        self.window_changed()
        return self

    @property
    def window_end(self) -> int:
        return self.window_start + self.row_count

    @property
    def position(self) -> int | None:
        """The cursor's index in the whole list; None when the list is empty."""
        if not self.row_count or not 0 <= self.cursor_row < self.row_count:
            return None
        return self.window_start + self.cursor_row

    def go_to(self, index: int) -> None:
        """Put the cursor on row `index` of the whole list, sliding the window when it is outside."""
        if not self.total_rows:
            return
        index = min(max(index, 0), self.total_rows - 1)
        if self.window_start <= index < self.window_end:
            self.move_cursor(row=index - self.window_start)
        else:
            self._load_around(index)

    def _load_around(self, index: int) -> None:
        start = min(max(index - self.window // 2, 0), max(self.total_rows - self.window, 0))
        self.window_start = start
        super().clear()
        row_of = self._row_of
        if row_of is not None:
            for i in range(start, min(self.total_rows, start + self.window)):
                row = row_of(i)
                self.add_row(*row.cells, key=row.key, height=row.height)
        if self.row_count:
            self.move_cursor(row=index - start, animate=False)
        self.window_changed()

    def window_changed(self) -> None:
        """Called after the window moved or the list changed (subclasses say which rows are shown)."""

    def window_label(self) -> str:
        """`rows 1-500 of 100,000`, or "" when the whole list is in the window."""
        if self.total_rows <= self.row_count:
            return ""
        return f"rows {self.window_start + 1:,}–{self.window_end:,} of {self.total_rows:,}"

    # --- keys that reach past the window -------------------------------------------------

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - (self.header_height if self.show_header else 0))

    def action_cursor_down(self) -> None:
        at = self.position
        if at is not None and self.cursor_row == self.row_count - 1 and self.window_end < self.total_rows:
            self.go_to(at + 1)
        else:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        at = self.position
        if at is not None and self.cursor_row == 0 and self.window_start > 0:
            self.go_to(at - 1)
        else:
            super().action_cursor_up()

    def action_page_down(self) -> None:
        at = self.position
        if at is not None and at + self._page() >= self.window_end and self.window_end < self.total_rows:
            self.go_to(at + self._page())
        else:
            super().action_page_down()

    def action_page_up(self) -> None:
        at = self.position
        if at is not None and at - self._page() < self.window_start and self.window_start > 0:
            self.go_to(at - self._page())
        else:
            super().action_page_up()

    def action_scroll_top(self) -> None:
        if self.window_start > 0:
            self.go_to(0)
        else:
            super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        if self.window_end < self.total_rows:
            self.go_to(self.total_rows - 1)
        else:
            super().action_scroll_bottom()
