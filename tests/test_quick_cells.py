"""The quick cell drawing gives exactly what DataTable's own drawing gives, and leaves it the rest."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import DataTable

from stablepay_console.tui.widgets.quick_cells import QuickCells

CELLS = [
    Text("plain"),
    Text("bold red", style="bold red"),
    Text.assemble(("issued", "yellow"), " · ", ("2 it", "dim")),
    Text("1,000.00 USD", justify="right"),
    Text("left pad", style="on blue", justify="left"),
    Text("default pad", style="on green"),
    Text(""),
    Text("日本語の名前"),
    Text("ellipsis wanted", no_wrap=True, overflow="ellipsis"),
]
WIDTH = 14


class Table(QuickCells):
    pass


def same_look(lines: list[list[Segment]]) -> list[list[Segment]]:
    """The lines with neighbouring segments of one style joined: what the terminal shows."""
    return [list(Segment.simplify(line)) for line in lines]


def fill(table: DataTable[Text]) -> None:
    for column in range(len(CELLS)):
        table.add_column(f"c{column}", width=WIDTH)
    for row in range(3):
        table.add_row(*CELLS, key=f"r{row}", height=1)
    table.add_row(*[Text("two\nlines")] * len(CELLS), key="tall", height=2)
    table.add_row(*[Text("much wider than its column is")] * len(CELLS), key="wide", height=1)


class Shown(App[None]):
    def __init__(self, table: DataTable[Text]) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield self.table

    def on_mount(self) -> None:
        fill(self.table)


async def test_quick_cells_equal_datatable_cells_in_every_state() -> None:
    table = Table(cursor_type="row", zebra_stripes=True)
    async with Shown(table).run_test(size=(160, 20)) as pilot:
        await pilot.pause()
        quick_used = 0
        for row in range(table.row_count):
            for column in range(len(CELLS)):
                for cursor, hover in ((False, False), (True, False), (False, True)):
                    for base in (Style(), Style(bgcolor="grey11"), Style(color="white", italic=True)):
                        table._cell_render_cache.clear()
                        quick = table._quick_cell(row, column, base, WIDTH + 2, cursor, hover)
                        table._cell_render_cache.clear()
                        own = DataTable._render_cell(table, row, column, base, WIDTH + 2, cursor, hover)
                        if quick is not None:
                            quick_used += 1
                            assert same_look(quick) == same_look(own), (row, column, cursor, hover, base)
        # one-line cells that fit are drawn quickly; two-line rows and text wider than the column are left to DataTable
        fits = [cell for cell in CELLS if cell.cell_len <= WIDTH]
        assert len(fits) == len(CELLS) - 1
        assert quick_used == 3 * len(fits) * 9


async def test_the_table_paints_the_same_with_quick_cells() -> None:
    frames = []
    for table in (Table(cursor_type="row", zebra_stripes=True), DataTable(cursor_type="row", zebra_stripes=True)):
        async with Shown(table).run_test(size=(160, 20)) as pilot:
            await pilot.pause()
            assert table.row_count == 5
            lines = table.render_lines(Region(0, 0, table.size.width, table.size.height))
            frames.append([list(line) for line in lines])
    assert frames[0] == frames[1]
