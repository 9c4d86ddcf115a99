"""The startup baseline: a bare Textual app with a header, a DataTable of 20 rows and a footer."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header

COLUMNS = ("Created", "Status", "Kind", "Subject", "User", "Round", "Deadline")
MARKER = "r00c4"
"""Text of a cell of the first row: once it is on the terminal, the rows are painted."""


class BareApp(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        for row in range(20):
            table.add_row(*(f"r{row:02d}c{col}" for col in range(len(COLUMNS))))


if __name__ == "__main__":
    BareApp().run()
