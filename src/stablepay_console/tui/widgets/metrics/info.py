"""The metadata panel of a metric result: what was calculated, over what, with which filters."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from stablepay_console.api.models import MetricFilter, MetricMetadata, MetricResult
from stablepay_console.services.metrics.series import KNOWN_TEMPLATES, period_text
from stablepay_console.tui.formatters.numbers import number
from stablepay_console.tui.formatters.text import clean

MAX_VALUES = 6


def _count(value: int | None) -> str:
    return "—" if value is None else number(value)


def _values(values: list[Any]) -> str:
    shown = ", ".join(clean(v, 40) for v in values[:MAX_VALUES])
    more = len(values) - MAX_VALUES
    return shown + (f", … and {more} more" if more > 0 else "") if values else "(none)"


def filter_text(name: str, flt: MetricFilter) -> Text:
    """One filter: how it applied (subset or all), then its values, or its count and note."""
    line = Text()
    line.append(clean(name, 40), style="bold")
    line.append(" ")
    applied = clean(flt.applied or "?", 20)
    line.append(applied, style="green" if applied == "all" else "yellow")
    if flt.specified is False:
        line.append("\n")
        line.append("not specified", style="dim")
    if flt.values is not None:
        line.append("\n")
        line.append(_values(flt.values))
    if flt.count is not None:
        line.append("\n")
        line.append(f"{number(flt.count)} values", style="italic")
        if flt.values is None or len(flt.values) < flt.count:
            line.append(" ")
            line.append("(list shortened)" if flt.values else "(list omitted)", style="dim")
    if flt.note:
        line.append("\n")
        line.append(clean(flt.note, 200), style="dim italic")
    return line


def metadata_rows(result: MetricResult) -> list[tuple[str, Text]]:
    """(label, value) lines of the panel; each filter is one line labelled by a bullet."""
    meta: MetricMetadata = result.metadata
    template = Text(clean(meta.template or "(not given)", 60))
    if meta.template and meta.template not in KNOWN_TEMPLATES:
        template.append(" (unknown template)", style="dim")
    rng = meta.date_range
    start = period_text(rng.start) if rng is not None and rng.start is not None else "—"
    end = period_text(rng.end) if rng is not None and rng.end is not None else "—"
    breakdowns = meta.breakdowns
    if isinstance(breakdowns, list):
        shown = ", ".join(str(b) for b in breakdowns) or "none"
    else:
        shown = str(breakdowns) if breakdowns else "none"
    rows: list[tuple[str, Text]] = [
        ("Template", template),
        ("Interval", Text(clean(meta.calculation_interval or "—", 30))),
        ("Range", Text(f"{start} → {end}")),
        ("Records", Text(_count(meta.record_count))),
        ("Filled", Text(_count(meta.filled_count))),
        ("Projected", Text(_count(meta.projected_row_count))),
        ("Breakdowns", Text(clean(shown, 120))),
        ("Filters", Text("" if meta.filters else "none")),
    ]
    rows.extend(("•", filter_text(name, flt)) for name, flt in meta.filters.items())
    return rows


def metadata_table(result: MetricResult) -> Group:
    """The facts in a two-column grid, then the filters, each under a bullet."""
    facts = Table.grid(padding=(0, 1))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(ratio=1)
    filters = Table.grid(padding=(0, 1))
    filters.add_column(style="dim", no_wrap=True)
    filters.add_column(ratio=1)
    for label, value in metadata_rows(result):
        (filters if label == "•" else facts).add_row(label, value)
    return Group(facts, filters)


class MetricInfo(Static):
    """Shows the metadata of the result on screen."""

    def show(self, result: MetricResult | None) -> None:
        self.update(metadata_table(result) if result is not None else Text("No result yet.", style="dim"))
