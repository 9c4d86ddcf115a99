"""The metric chart's legend: which colour is which series, within the lines it has.

Entries are never split; a heading starts a line. When the entries need more lines than the
legend has, the last line ends with "+N more" (the table view lists every series).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from stablepay_console.services.metrics.series import MetricSeries, Series
from stablepay_console.tui.formatters.numbers import exact_sum, finite_float, number, unreadable, usable
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.widgets.metrics.colors import RGB, TONES, assign

MAX_SUBPLOTS = 4
"""Numeric fields charted at once; the others are in the table view."""


def series_colors(data: MetricSeries) -> list[RGB]:
    """The colour of each of `data.series`, in order (see metric_colors: statuses keep their meaning)."""
    if not data.dimensions:
        neutral = TONES["neutral"]
        return [neutral[data.fields.index(one.field) % len(neutral)] for one in data.series]
    colors: list[RGB] = [(0, 0, 0)] * len(data.series)
    for field in data.fields:
        indexes = [i for i, one in enumerate(data.series) if one.field == field]
        combos = [data.series[i].combination for i in indexes]
        for i, color in zip(indexes, assign(combos), strict=True):
            colors[i] = color
    return colors


def series_total(one: Series) -> str:
    """The exact sum of a series as text; "unreadable" when a value cannot be added."""
    values: list[object] = [v for v in one.values if v is not None]
    if any(not usable(v) for v in values):
        return unreadable()
    total = exact_sum(values)
    return number(total if total is not None else 0)


def undrawable(data: MetricSeries) -> int:
    """How many values are too large (or not numbers) to draw; the table still shows them."""
    return sum(
        1 for one in data.series for v in one.values if v is not None and finite_float(v) is None
    )


def legend_entries(data: MetricSeries) -> list[tuple[RGB | None, str]]:
    """(colour, text) of each legend entry; a colour of None marks a heading or a note."""
    colors = series_colors(data)
    entries: list[tuple[RGB | None, str]] = []
    if not data.dimensions:
        for index, one in enumerate(data.series):
            if one.field in data.fields[:MAX_SUBPLOTS]:
                entries.append((colors[index], f"{clean(one.label, 40)} (total {series_total(one)})"))
    for field in data.fields[:MAX_SUBPLOTS] if data.dimensions else []:
        entries.append((None, f"{clean(field, 40)} by {' · '.join(clean(d, 30) for d in data.dimensions)}:"))
        for index, one in enumerate(data.series):
            if one.field == field:
                folded = f", {one.folded} combinations" if one.folded else ""
                entries.append((colors[index], f"{clean(one.label, 60)} ({series_total(one)}{folded})"))
    hidden = len(data.fields) - MAX_SUBPLOTS
    if hidden > 0:
        entries.append((None, f"{hidden} more numeric field(s) are in the table view."))
    skipped = undrawable(data)
    if skipped:
        entries.append((None, f"{skipped:,} value(s) too large to draw are left out of the chart (see the table)."))
    return entries


def _size(color: RGB | None, label: str) -> int:
    return len(label) + (2 if color is not None else 0)


def _width(line: list[tuple[RGB | None, str]]) -> int:
    return sum(_size(color, label) for color, label in line) + 3 * max(0, len(line) - 1)


def _pack(entries: list[tuple[RGB | None, str]], width: int) -> list[list[tuple[RGB | None, str]]]:
    lines: list[list[tuple[RGB | None, str]]] = []
    used = 0
    for color, label in entries:
        size = _size(color, label)
        if not lines or color is None or used + 3 + size > width:
            lines.append([])
            used = 0
        elif used:
            used += 3
        lines[-1].append((color, label))
        used += size
    return lines


def legend_text(data: MetricSeries, width: int, max_lines: int | None = None) -> Text:
    """The entries packed into lines of `width` cells; past `max_lines`, the last line says "+N more"."""
    entries = legend_entries(data)
    lines = _pack(entries, width)
    more = 0
    if max_lines is not None and len(lines) > max(1, max_lines):
        keep = lines[: max(1, max_lines)]
        shown = sum(len(line) for line in keep)
        more = len(entries) - shown
        last = keep[-1]
        while last and _width(last) + 3 + len(f"+{more + 1:,} more") > width:
            last.pop()
            more += 1
        lines = keep
    text = Text()
    for n, line in enumerate(lines):
        if n:
            text.append("\n")
        for i, (color, label) in enumerate(line):
            if i:
                text.append("   ")
            if color is None:
                text.append(label, style="bold")
            else:
                text.append("■ ", style="rgb({},{},{})".format(*color))
                text.append(label)
    if more:
        text.append(("   " if lines and lines[-1] else "") + f"+{more:,} more", style="bold italic")
    return text


class MetricLegend(Static):
    """The chart's legend: which colour is which series."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.series_data: MetricSeries | None = None

    def show(self, data: MetricSeries) -> None:
        self.series_data = data
        self.refresh(layout=True)

    def max_lines(self) -> int | None:
        """The lines the legend may take (its max-height), if the stylesheet bounds it."""
        limit = self.styles.max_height
        if limit is None or limit.unit.name != "CELLS":
            return None
        return max(1, int(limit.value) - self.styles.padding.top - self.styles.padding.bottom)

    def render(self) -> Text:
        if self.series_data is None:
            return Text("")
        return legend_text(self.series_data, max(20, self.content_size.width), self.max_lines())
