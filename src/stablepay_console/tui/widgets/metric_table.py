"""The metric dataset as a table: one line per row the server sent, sorted by time."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from rich.text import Text
from textual.widgets import DataTable

from stablepay_console.api.models import MetricResult, MetricValue
from stablepay_console.services.metric_series import csv_columns, period_text, sorted_rows
from stablepay_console.tui.formatters.text import clean


def cell(value: MetricValue | date | datetime) -> Text:
    if value is None:
        return Text("—", style="dim", justify="right")
    if isinstance(value, bool):
        return Text("true" if value else "false")
    if isinstance(value, Decimal):
        return Text(f"{value:,}", justify="right")
    if isinstance(value, (date, datetime)):
        return Text(period_text(value))
    return Text(clean(value, 60))


class MetricTable(DataTable[Text]):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, result: MetricResult) -> None:
        self.clear(columns=True)
        columns = csv_columns(result)
        for name in columns:
            self.add_column(Text(clean(name, 40)), key=name)
        for index, row in enumerate(sorted_rows(result)):
            values = row.fields
            self.add_row(cell(row.period_start), *(cell(values.get(c)) for c in columns[1:]), key=str(index))
