"""The metric dataset as a table: one line per row the server sent, sorted by time, then a totals row.

Numbers read as a finance person expects: right-aligned, thousands separators, the same number
of decimals down a column (the most any value of it was sent with; none for counts). The totals
row adds each additive column exactly; an average, a rate or a ratio is not added up. No
currency is shown: the API names none for a metric.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal

from rich.text import Text

from stablepay_console.api.models import MetricResult, MetricRow, MetricValue
from stablepay_console.services.metrics.series import csv_columns, period_text, sorted_rows
from stablepay_console.tui.formatters.numbers import exact_sum, number, places_of, unreadable, usable
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

TOTAL_KEY = "total"
NOT_ADDITIVE = re.compile(r"avg|average|mean|median|rate|ratio|percent|pct|share|min|max", re.IGNORECASE)
"""Column names whose values do not add up to anything meaningful: their total is left blank."""


def cell(value: MetricValue | date | datetime, places: int | None = None) -> Text:
    if value is None:
        return Text("—", style="dim", justify="right")
    if isinstance(value, bool):
        return Text("true" if value else "false")
    if isinstance(value, Decimal):
        style = "" if usable(value) else "yellow"
        return Text(number(value, places), style=style, justify="right")
    if isinstance(value, (date, datetime)):
        return Text(period_text(value))
    return Text(clean(value, 60))


def numeric_columns(result: MetricResult, columns: list[str]) -> dict[str, int]:
    """Each column holding numbers, with the decimals it is shown with."""
    found: dict[str, list[object]] = {}
    for row in result.data:
        for name, value in row.numbers.items():
            found.setdefault(name, []).append(value)
    return {name: places_of(found[name]) for name in columns if name in found}


def total_cell(result: MetricResult, name: str, places: int) -> Text:
    if NOT_ADDITIVE.search(name):
        return Text("", justify="right")
    values: list[object] = [row.numbers[name] for row in result.data if name in row.numbers]
    if any(not usable(v) for v in values):
        return Text(unreadable(), style="bold yellow", justify="right")
    total = exact_sum(values)
    return Text(number(total if total is not None else 0, places), style="bold", justify="right")


class MetricTable(WindowedTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, window=500)
        self._rows: list[MetricRow] = []
        self._columns: list[str] = []
        self._places: dict[str, int] = {}
        self._total: tuple[Text, ...] = ()

    def show(self, result: MetricResult) -> None:
        self.clear(columns=True)
        self._columns = csv_columns(result)
        self._places = numeric_columns(result, self._columns)
        self._rows = sorted_rows(result)
        for name in self._columns:
            label = Text(clean(name, 40), justify="right" if name in self._places else "left")
            self.add_column(label, key=name)
        self._total = (
            Text("Total", style="bold"),
            *(
                total_cell(result, name, self._places[name]) if name in self._places else Text("")
                for name in self._columns[1:]
            ),
        )
        count = len(self._rows) + (1 if self._rows and self._places else 0)
        self.show_rows(count, self._row)

    def _row(self, index: int) -> TableRow:
        if index >= len(self._rows):
            return TableRow(self._total, key=TOTAL_KEY)
        row = self._rows[index]
        values = row.fields
        cells = [cell(row.period_start)]
        cells += [cell(values.get(name), self._places.get(name)) for name in self._columns[1:]]
        return TableRow(cells, key=str(index))
