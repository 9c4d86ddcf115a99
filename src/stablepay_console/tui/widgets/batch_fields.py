"""A two-column table of labelled values where the selected row can be copied with one key.

Shared by batch lookup and quote refresh for their detail panels.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
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


class FieldTable(DataTable[Text]):
    """Label / value rows; `copy_target()` names the selected row's value."""

    def __init__(self, *, label_width: int = 18, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, show_header=False)
        self._rows: list[FieldRow] = []
        self.label_width = label_width

    def on_mount(self) -> None:
        self.add_column("Field", key="label", width=self.label_width)
        self.add_column("Value", key="value")

    def show(self, rows: list[FieldRow]) -> None:
        selected = self.cursor_row
        self._rows = list(rows)
        self.clear()
        for n, row in enumerate(rows):
            self.add_row(Text(row.label, style="bold"), row.shown, key=str(n))
        if rows:
            self.move_cursor(row=min(max(selected, 0), len(rows) - 1))

    def copy_target(self) -> tuple[str, str] | None:
        """(value, what) of the selected row, or None if it holds nothing to copy."""
        if not self._rows or not 0 <= self.cursor_row < len(self._rows):
            return None
        row = self._rows[self.cursor_row]
        return (row.copy, row.label.lower()) if row.copy else None
