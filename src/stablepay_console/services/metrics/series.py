"""A metric result as chartable series, and as CSV. Headless: no Textual here.

`build_series` turns a `MetricResult` into series over `periodStart`, sorted by
time whatever order the server used. Without breakdowns there is one series per
numeric field; with breakdowns one per combination of dimension values, the ten
largest by total plus "other". A bucket the server left out stays missing
(`None`), never zero: when the calculation interval is known the periods form a
regular grid from the first bucket to the last, with `None` where nothing came.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from stablepay_console.api.models import MetricResult, MetricRow
from stablepay_console.api.numbers import exact_sum, number_text, usable_number, usable_time, utc_key
from stablepay_console.services.export.csv_guard import guard_cell, guard_row
from stablepay_console.services.metrics.grid import MAX_GRID, MONTH_STEPS, grid

__all__ = ["KNOWN_TEMPLATES", "MAX_GRID", "OTHER", "MetricSeries", "Series", "build_series", "csv_cell", "csv_columns",
           "grid", "period_label", "period_text", "sort_key", "sorted_rows", "template_name", "to_csv"]

Period = date | datetime
TOP_SERIES = 10
OTHER = "other"
NO_VALUE = "(none)"
KNOWN_TEMPLATES = {
    "GROSS_VOLUME": "Gross volume",
    "TRANSACTION_COUNT": "Transaction count",
}



@dataclass(frozen=True)
class Series:
    """One line (or set of bars): a numeric field, for one combination of dimension values or for all."""

    field: str
    label: str
    values: list[Decimal | None]
    """Aligned with `MetricSeries.periods`; None where the server sent nothing."""
    combination: tuple[str, ...] | None = None
    """The dimension values; None without breakdowns and for "other"."""
    folded: int = 0
    """For "other": how many combinations it adds up."""

    @property
    def total(self) -> Decimal:
        """The exact sum of the values present (every one is a usable number: see `build_series`)."""
        return _sum(v for v in self.values if v is not None)


@dataclass(frozen=True)
class MetricSeries:
    periods: list[Period]
    """Sorted buckets, including the ones the server left out (see `missing`)."""
    fields: list[str]
    """The numeric fields, in the order they first appear."""
    dimensions: list[str]
    series: list[Series]
    missing: list[Period] = field(default_factory=list)
    """Buckets of the grid for which the server sent no row at all."""
    interval: str | None = None
    gridded: bool = False
    """True when `periods` is the full grid of the interval (gaps are visible as None)."""
    unreadable_periods: int = 0
    """Rows left out because their `periodStart` parsed but names no usable instant (`0001-01-01T00:00:00+14:00`)."""
    unreadable_values: int = 0
    """Values left out (shown as gaps) because they cannot be added up (`1e999999999`, NaN)."""

    @property
    def is_empty(self) -> bool:
        return not self.series

    @property
    def has_time(self) -> bool:
        return any(isinstance(p, datetime) for p in self.periods)

    def for_field(self, name: str) -> list[Series]:
        return [s for s in self.series if s.field == name]


def sort_key(period: Period) -> datetime:
    """Dates and date-times on one time line (a date is its midnight UTC); never raises."""
    return utc_key(period)


def _sum(values: Iterable[Decimal]) -> Decimal:
    total = exact_sum(values)
    return total if total is not None else Decimal("NaN")


def template_name(template: str) -> str:
    """The template as a person reads it; an unknown one is kept as the server spelled it."""
    if not template:
        return "(no template given)"
    known = KNOWN_TEMPLATES.get(template)
    return f"{known} ({template})" if known else template


def dimensions_of(result: MetricResult) -> list[str]:
    """The breakdown dimensions: the ones metadata names, then any other text field of the rows."""
    declared = result.metadata.breakdowns
    names = [d for d in declared if isinstance(d, str)] if isinstance(declared, list) else []
    for row in result.data:
        for key, value in row.fields.items():
            if isinstance(value, str) and key not in names:
                names.append(key)
    return names


def numeric_fields_of(result: MetricResult, dimensions: Iterable[str] = ()) -> list[str]:
    skip = set(dimensions)
    names: list[str] = []
    for row in result.data:
        for key in row.numbers:
            if key not in skip and key not in names:
                names.append(key)
    return names


def dimension_value(row: MetricRow, name: str) -> str:
    value = row.fields.get(name)
    if value is None:
        return NO_VALUE
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return number_text(value)
    return str(value)


def build_series(result: MetricResult, top: int = TOP_SERIES) -> MetricSeries:
    dimensions = dimensions_of(result)
    fields = numeric_fields_of(result, dimensions)
    usable = [r for r in result.data if usable_time(r.period_start)]
    rows = sorted(usable, key=lambda r: sort_key(r.period_start))
    observed: dict[datetime, Period] = {}
    for row in rows:
        observed.setdefault(sort_key(row.period_start), row.period_start)
    sent = list(observed.values())
    interval = result.metadata.calculation_interval
    full = grid(sent, interval)
    periods = full if full is not None else sent
    index = {sort_key(p): i for i, p in enumerate(periods)}
    missing = [p for p in periods if sort_key(p) not in observed]

    # cells[field][combination][period index] = sum of the values sent for it
    cells: dict[str, dict[tuple[str, ...], dict[int, Decimal]]] = {f: {} for f in fields}
    unreadable = 0
    for row in rows:
        combo = tuple(dimension_value(row, d) for d in dimensions)
        at = index[sort_key(row.period_start)]
        for name, value in row.numbers.items():
            if name not in cells:
                continue
            if not usable_number(value):
                unreadable += 1
                continue
            slot = cells[name].setdefault(combo, {})
            slot[at] = _sum((slot[at], value)) if at in slot else value

    series: list[Series] = []
    for name in fields:
        series.extend(_series_of_field(name, cells[name], len(periods), bool(dimensions), top))
    return MetricSeries(
        periods=periods,
        fields=fields,
        dimensions=dimensions,
        series=series,
        missing=missing,
        interval=interval,
        gridded=full is not None,
        unreadable_periods=len(result.data) - len(usable),
        unreadable_values=unreadable,
    )


def _series_of_field(
    name: str, combos: dict[tuple[str, ...], dict[int, Decimal]], size: int, broken_down: bool, top: int
) -> list[Series]:
    def line(points: dict[int, Decimal]) -> list[Decimal | None]:
        return [points.get(i) for i in range(size)]

    if not broken_down:
        return [Series(field=name, label=name, values=line(points)) for points in combos.values()]

    def total(item: tuple[tuple[str, ...], dict[int, Decimal]]) -> Decimal:
        return _sum(item[1].values())

    # Largest first; ties broken by the values themselves so the order never depends on the server's.
    ranked = sorted(combos.items(), key=lambda item: (-total(item), item[0]))
    kept, folded = ranked[:top], ranked[top:]
    out = [
        Series(field=name, label=" · ".join(combo), values=line(points), combination=combo)
        for combo, points in kept
    ]
    if folded:
        rest: dict[int, Decimal] = {}
        for _combo, points in folded:
            for at, value in points.items():
                rest[at] = _sum((rest[at], value)) if at in rest else value
        out.append(Series(field=name, label=OTHER, values=line(rest), folded=len(folded)))
    return out


# --- CSV ------------------------------------------------------------------------

def csv_cell(value: Any) -> str:
    """Exact text of a value through the one CSV cell guard (no formulas, no raw escapes, numbers exact)."""
    return guard_cell(value)


def csv_columns(result: MetricResult) -> list[str]:
    dimensions = dimensions_of(result)
    numbers = numeric_fields_of(result, dimensions)
    others: list[str] = []
    for row in result.data:
        for key in row.fields:
            if key not in dimensions and key not in numbers and key not in others:
                others.append(key)
    return ["periodStart", *dimensions, *numbers, *others]


def sorted_rows(result: MetricResult) -> list[MetricRow]:
    """The rows by time, then by their dimension values (a stable order for tables and files)."""
    dimensions = dimensions_of(result)
    return sorted(
        result.data,
        key=lambda r: (sort_key(r.period_start), tuple(dimension_value(r, d) for d in dimensions)),
    )


def to_csv(result: MetricResult) -> str:
    """The dataset as CSV: one line per row sent, sorted by time; a field a row lacks is left empty."""
    columns = csv_columns(result)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(guard_row(columns))  # the field names are the server's: the header is guarded too
    for row in sorted_rows(result):
        values = row.fields
        writer.writerow(
            [csv_cell(row.period_start), *(csv_cell(values.get(c)) for c in columns[1:])]
        )
    return out.getvalue()


# --- Labels ---------------------------------------------------------------------


def period_label(period: Period, interval: str | None = None) -> str:
    """A short label for an axis tick: `22 Oct`, `Mar 2026`, `19 Nov 01:00`."""
    kind = (interval or "").strip().lower()
    if isinstance(period, datetime):
        text = period.strftime("%d %b %H:%M")
        return text if period.utcoffset() in (None, timedelta(0)) else text + period.strftime(" %z")
    if kind in ("year", "yearly", "annual"):
        return period.strftime("%Y")
    if kind in MONTH_STEPS:
        return period.strftime("%b %Y")
    return period.strftime("%d %b")


def period_text(period: Period) -> str:
    """The full period for a table cell: `2026-10-22` or `2026-11-19 01:00 UTC`."""
    if isinstance(period, datetime):
        if period.utcoffset() in (None, timedelta(0)):
            return period.strftime("%Y-%m-%d %H:%M UTC")
        return period.isoformat(timespec="minutes")
    return period.isoformat()
