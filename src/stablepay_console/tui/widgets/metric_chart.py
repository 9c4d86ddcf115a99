"""The metric chart (plotext) and its legend.

One subplot per numeric field, x = bucket position on the time grid. A missing
bucket is a gap: lines are broken there and no bar is drawn; zero is drawn only
where the server sent zero.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from rich.text import Text
from textual.app import RenderResult
from textual.widgets import Static
from textual_plotext import PlotextPlot

from stablepay_console.services.metric_series import MetricSeries, Series, period_label
from stablepay_console.tui.formatters.text import clean

ChartStyle = Literal["line", "bar"]
RGB = tuple[int, int, int]

PALETTE: list[RGB] = [
    (66, 165, 245),
    (255, 167, 38),
    (102, 187, 106),
    (239, 83, 80),
    (171, 71, 188),
    (38, 198, 218),
    (255, 238, 88),
    (141, 110, 99),
    (236, 64, 122),
    (156, 204, 101),
    (158, 158, 158),  # "other" when there are ten others before it
]
MAX_SUBPLOTS = 4


def color_of(index: int) -> RGB:
    return PALETTE[index % len(PALETTE)]


def _segments(values: list[Decimal | None]) -> list[tuple[list[int], list[float]]]:
    """Runs of consecutive present values, so a line never bridges a missing bucket."""
    runs: list[tuple[list[int], list[float]]] = []
    xs: list[int] = []
    ys: list[float] = []
    for i, value in enumerate(values):
        if value is None:
            if xs:
                runs.append((xs, ys))
            xs, ys = [], []
            continue
        xs.append(i)
        ys.append(float(value))  # plotting only: the table and the CSV keep the exact Decimal
    if xs:
        runs.append((xs, ys))
    return runs


def tick_positions(count: int, width: int) -> list[int]:
    """Evenly spread tick positions that leave room for labels about 12 columns wide."""
    if count <= 0:
        return []
    room = max(2, width // 14)
    if count <= room:
        return list(range(count))
    step = -(-(count - 1) // (room - 1))
    ticks = list(range(0, count, step))
    if ticks[-1] != count - 1 and (count - 1 - ticks[-1]) * 2 >= step:
        ticks.append(count - 1)
    return ticks


class MetricChart(PlotextPlot):
    """Draws a `MetricSeries` as lines or bars; redrawn at each render so it follows the size."""

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series_data: MetricSeries | None = None
        self.chart_style: ChartStyle = "line"
        self.title_text = ""

    def show(self, data: MetricSeries, style: ChartStyle, title: str) -> None:
        self.series_data = data
        self.chart_style = style
        self.title_text = title
        self.refresh()

    def render(self) -> RenderResult:
        self._draw()
        return super().render()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        data = self.series_data
        fields = data.fields[:MAX_SUBPLOTS] if data is not None else []
        if data is None or not fields:
            plt.title(self.title_text)
            return
        plt.subplots(len(fields), 1)
        ticks = tick_positions(len(data.periods), self.size.width - 10)
        labels = [period_label(data.periods[i], data.interval) for i in ticks]
        for row, name in enumerate(fields, start=1):
            sub = plt.subplot(row, 1)
            title = name if row > 1 or not self.title_text else f"{self.title_text}: {name}"
            sub.title(clean(title, 100))
            series = data.for_field(name)
            if self.chart_style == "bar":
                self._bars(sub, series)
                sub.xlim(-0.5, max(len(data.periods) - 0.5, 0.5))
            else:
                self._lines(sub, series)
                sub.xlim(-0.25, max(len(data.periods) - 0.75, 0.75))
            sub.xticks([float(t) for t in ticks], labels)
        if len(data.fields) == 1 or len(fields) == 1:
            plt.subplot(len(fields), 1).xlabel(f"periodStart, by {clean(data.interval or 'period', 20)}")

    def _lines(self, sub: object, series: list[Series]) -> None:
        for one in series:
            color = series_color(self.series_data, one)  # type: ignore[arg-type]
            for xs, ys in _segments(one.values):
                marker = "braille" if len(xs) > 1 else "●"
                sub.plot(xs, ys, color=color, marker=marker)  # type: ignore[attr-defined]

    def _bars(self, sub: object, series: list[Series]) -> None:
        data = self.series_data
        if data is None or not series:
            return
        colors = [series_color(data, one) for one in series]
        if len(series) == 1:
            xs = [float(i) for i, v in enumerate(series[0].values) if v is not None]
            ys = [float(v) for v in series[0].values if v is not None]  # plotting only
            if xs:
                sub.bar(xs, ys, color=colors[0], width=0.7)  # type: ignore[attr-defined]
            return
        # Breakdowns stack per period. A missing value adds nothing to its stack, and a period
        # with no value at all gets no bar: nothing is drawn where the server sent nothing.
        at = [i for i in range(len(data.periods)) if any(one.values[i] is not None for one in series)]
        if not at:
            return
        stacks = [[float(one.values[i] or 0) for i in at] for one in series]  # plotting only
        sub.stacked_bar([float(i) for i in at], stacks, color=colors, width=0.7)  # type: ignore[attr-defined]


def series_color(data: MetricSeries, one: Series) -> RGB:
    """Without breakdowns each field has its colour; with them, each series its rank's colour."""
    if not data.dimensions:
        return color_of(data.fields.index(one.field))
    return color_of(data.for_field(one.field).index(one))


def legend_entries(data: MetricSeries) -> list[tuple[RGB | None, str]]:
    """(colour, text) of each legend entry; a colour of None marks a heading."""
    entries: list[tuple[RGB | None, str]] = []
    if not data.dimensions:
        for one in data.series[:MAX_SUBPLOTS]:
            entries.append((series_color(data, one), f"{clean(one.label, 40)} (total {one.total:,})"))
    for field in data.fields[:MAX_SUBPLOTS] if data.dimensions else []:
        entries.append((None, f"{clean(field, 40)} by {' · '.join(clean(d, 30) for d in data.dimensions)}:"))
        for one in data.for_field(field):
            folded = f", {one.folded} combinations" if one.folded else ""
            entries.append((series_color(data, one), f"{clean(one.label, 60)} ({one.total:,}{folded})"))
    hidden = len(data.fields) - MAX_SUBPLOTS
    if hidden > 0:
        entries.append((None, f"{hidden} more numeric field(s) are in the table view."))
    return entries


def legend_text(data: MetricSeries, width: int) -> Text:
    """The entries packed into lines of `width` cells; an entry is never split, a heading starts a line."""
    text = Text()
    used = 0
    for color, label in legend_entries(data):
        size = len(label) + (2 if color is not None else 0)
        if used and (color is None or used + 3 + size > width):
            text.append("\n")
            used = 0
        elif used:
            text.append("   ")
            used += 3
        if color is None:
            text.append(label, style="bold")
        else:
            text.append("■ ", style="rgb({},{},{})".format(*color))
            text.append(label)
        used += size
    return text


class MetricLegend(Static):
    """The chart's legend: which colour is which series."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.series_data: MetricSeries | None = None

    def show(self, data: MetricSeries) -> None:
        self.series_data = data
        self.refresh(layout=True)

    def render(self) -> Text:
        if self.series_data is None:
            return Text("")
        return legend_text(self.series_data, max(20, self.content_size.width))
