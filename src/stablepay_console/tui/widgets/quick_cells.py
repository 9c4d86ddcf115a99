"""A quicker way for a DataTable to draw its cells, with the same result.

DataTable draws every cell through Rich's general layout (a padded, styled renderable laid out by
`Console.render_lines`): painting a fresh page of the inbox (some 250 cells) that way was most of a
page switch (its figure: `benchmarks/in_process.py`). A one-line row of `Text` that fits its column needs none of
that layout: its segments, the column's padding and the row's styles are the whole result. This
draws those cells directly and leaves every other cell (headers, wrapped rows, text wider than its
column, tabs, centred text) to DataTable. Nor does it measure every new cell when every column has
its width already (DataTable measures them for auto-width columns only), nor work out the table's
style (a walk up every ancestor) again for every line of one frame.
`tests/test_quick_cells.py` compares the two, cell by cell.

It reads DataTable internals of Textual 8 (`_render_cell` and the caches it fills); the pin in
pyproject keeps Textual below 9, and the comparison test fails if a release changes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual._types import SegmentLines
from textual.cache import LRUCache
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey


class QuickCells(DataTable[Text]):
    """A DataTable whose one-line `Text` cells are drawn without Rich's layout."""

    def _clear_caches(self) -> None:
        # Textual's LRUCache links its entries in a ring, so a cleared cache is a cycle that only the
        # garbage collector frees: a page's worth of drawn cells each time, and full collections in the
        # middle of paging. Emptying the links lets them go at once.
        for cache in (self._row_render_cache, self._cell_render_cache, self._row_renderable_cache, self._line_cache):
            unlink(cache)
        super()._clear_caches()

    _frame: Frame | None = None

    def _frame_now(self) -> Frame:
        return Frame(
            super().rich_style,
            max(0, self.fixed_rows),
            max(0, self.fixed_columns),
            self.cell_padding,
            self.show_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
            self.app.console,
        )

    @property
    def rich_style(self) -> Style:
        # Asked again for every line drawn (a walk up every ancestor's styles); one frame needs it once.
        return self._frame.style if self._frame is not None else super().rich_style

    def render_lines(self, crop: Region) -> list[Strip]:
        self._frame = self._frame_now()
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        # New rows are measured cell by cell for the widths of auto-width columns; with every column
        # given its width, only rows with a label or an automatic height still need it.
        if any(column.auto_width for column in self.columns.values()):
            super()._update_dimensions(new_rows)
            return
        needed = [key for key in new_rows if (row := self.rows.get(key)) is not None and (row.label or row.auto_height)]
        super()._update_dimensions(needed)

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> SegmentLines:
        quick = self._quick_cell(row_index, column_index, base_style, width, cursor, hover)
        if quick is None:
            return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
        return quick

    def _quick_cell(
        self, row_index: int, column_index: int, base_style: Style, width: int, cursor: bool, hover: bool
    ) -> SegmentLines | None:
        frame = self._frame or self._frame_now()
        if row_index < frame.fixed_rows or column_index < frame.fixed_columns:
            return None  # headers, row labels and fixed cells keep DataTable's own drawing
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        row = self.rows.get(row_key) if row_key is not None else None
        if row is None or row_key is None or column_key is None or row.height != 1:
            return None
        hover_cursor = self._show_hover_cursor
        key = (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )
        cache = self._cell_render_cache
        if key in cache:
            return cache[key]
        cells = self._get_row_renderables(row_index).cells
        cell = cells[column_index] if column_index < len(cells) else None
        pad = frame.padding
        room = width - 2 * pad
        if not isinstance(cell, Text) or room < 0 or cell.cell_len > room or not plain_line(cell):
            return None
        component_style, post_style = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, frame.show_cursor, hover_cursor, frame.css_color, frame.css_background
        )
        pre_style = base_style + Style.from_meta({"row": row_index, "column": column_index}) + component_style
        line = cell_segments(cell, room, frame.console)
        if pad:
            line = [Segment(" " * pad), *line, Segment(" " * pad)]
        lines = [list(Segment.apply_style(line, pre_style, post_style))]
        cache[key] = lines
        return lines


@dataclass(frozen=True)
class Frame:
    """What every cell of one frame shares (each is a reactive or a style worked out from the ancestors)."""

    style: Style
    fixed_rows: int
    fixed_columns: int
    padding: int
    show_cursor: bool
    css_color: bool
    css_background: bool
    console: Console


def unlink(cache: LRUCache[Any, Any]) -> None:
    """Empty every link of the cache's ring (the cache is cleared right after)."""
    for link in cache._cache.values():
        link.clear()


def plain_line(cell: Text) -> bool:
    """One line that Rich would lay out as it is: no line breaks, no tabs, not centred or spread."""
    plain = cell.plain
    return "\n" not in plain and "\t" not in plain and cell.justify in (None, "default", "left", "right")


def cell_segments(cell: Text, room: int, console: Console) -> list[Segment]:
    """The cell's text in `room` cells, padded as Rich pads it (with the text's own style when justified)."""
    base = console.get_style(cell.style)
    if cell.spans:
        segments = [segment for segment in cell.render(console) if segment.text]
    else:  # Rich's own layout gives the text its base style even when it has no spans
        segments = [Segment(cell.plain, base)] if cell.plain else []
    gap = room - cell.cell_len
    if gap <= 0:
        return segments
    if cell.justify == "right":
        return [Segment(" " * gap, base), *segments]
    if cell.justify == "left":
        return [*segments, Segment(" " * gap, base)]
    return [*segments, Segment(" " * gap)]
