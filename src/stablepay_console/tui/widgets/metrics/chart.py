"""The metric chart (plotext); its legend lives in metric_legend.

One subplot per numeric field, x = bucket position on the time grid. A missing bucket is a gap:
lines are broken there and no bar is drawn; zero is drawn only where the server sent zero. A
value too large to draw (1e400 is infinite as a float) is left out like a gap and counted in
the legend. Each subplot names its field in words; the y axis has round ticks with
separators, whole numbers only for counts, and no currency (the API names none).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Literal

from rich.text import Text
from textual.app import RenderResult
from textual_plotext import PlotextPlot

from stablepay_console.services.metrics.series import MetricSeries, Series, period_label
from stablepay_console.tui.formatters.metrics import field_title, nice_ticks, tick_label, words
from stablepay_console.tui.formatters.numbers import finite_float, usable
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.widgets.metrics.colors import RGB
from stablepay_console.tui.widgets.metrics.legend import MAX_SUBPLOTS, MetricLegend, series_colors

__all__ = ["ChartStyle", "MetricChart", "MetricLegend", "tick_positions"]

ChartStyle = Literal["line", "bar"]
DRAWABLE = 1e100
"""Beyond this size a value is left out of the chart (the plotting library's arithmetic overflows)."""


def drawable(value: Decimal | None) -> float | None:
    """A value for plotting only (the table and the CSV keep the exact Decimal); None leaves a gap."""
    number = finite_float(value) if value is not None else None
    return number if number is not None and abs(number) <= DRAWABLE else None


def _segments(values: list[Decimal | None]) -> list[tuple[list[int], list[float]]]:
    """Runs of consecutive drawable values, so a line never bridges a missing bucket."""
    runs: list[tuple[list[int], list[float]]] = []
    xs: list[int] = []
    ys: list[float] = []
    for i, value in enumerate(values):
        y = drawable(value)
        if y is None:
            if xs:
                runs.append((xs, ys))
            xs, ys = [], []
            continue
        xs.append(i)
        ys.append(y)
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


def is_count(series: list[Series]) -> bool:
    """Whether every value sent is a whole number (a count): its axis never gets a fractional tick."""
    values = [v for one in series for v in one.values if v is not None and usable(v)]
    return bool(values) and all(v == v.to_integral_value() for v in values)


def stacks(series: list[Series], size: int) -> tuple[list[int], list[list[float]]]:
    """The periods with something to stack, and each series' drawable value there (0 where it has none)."""
    at = [i for i in range(size) if any(drawable(one.values[i]) is not None for one in series)]
    return at, [[drawable(one.values[i]) or 0.0 for i in at] for one in series]


def y_range(series: list[Series], style: ChartStyle, size: int) -> tuple[float, float] | None:
    """The values the y axis must cover (bars always include zero)."""
    if style == "bar" and len(series) > 1:
        at, columns = stacks(series, size)
        if not at:
            return None
        tops = [sum(c[k] for c in columns if c[k] > 0) for k in range(len(at))]
        bottoms = [sum(c[k] for c in columns if c[k] < 0) for k in range(len(at))]
        return min(0.0, *bottoms), max(0.0, *tops)
    values = [y for one in series for y in (drawable(v) for v in one.values) if y is not None]
    if not values:
        return None
    low, high = min(values), max(values)
    return (min(0.0, low), max(0.0, high)) if style == "bar" else (low, high)


class MetricChart(PlotextPlot):
    """Draws a `MetricSeries` as lines or bars; redrawn at each render so it follows the size."""

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.series_data: MetricSeries | None = None
        self.chart_style: ChartStyle = "line"
        self.title_text = ""
        """The chart's name in words ("Daily gross volume"), as the screen gives it."""
        self._drawn: tuple[tuple[object, ...], Text] | None = None
        """What the chart was last drawn from, and the drawing."""

    def show(self, data: MetricSeries, style: ChartStyle, title: str) -> None:
        self.series_data = data
        self.chart_style = style
        self.title_text = clean(title, 100)
        self.refresh()

    def render(self) -> RenderResult:
        """The chart for the data, style, title, size and theme now: drawn again only when one of them changed.

        Plotext builds a chart in tens of milliseconds, and Textual asks for the chart again on every repaint
        (focus moving to or from it, a notification over it), not only when it changed."""
        # The data itself, kept alive here: a tuple's == takes the same object as equal without comparing it.
        drawn_from = (self.series_data, self.chart_style, self.title_text, self.size, self.app.theme, self.theme)
        if self._drawn is not None and self._drawn[0] == drawn_from:
            return self._drawn[1].copy()
        self._draw()
        chart = super().render()
        assert isinstance(chart, Text)  # textual-plotext draws into one Text
        self._drawn = (drawn_from, chart)
        return chart.copy()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_figure()
        data = self.series_data
        fields = data.fields[:MAX_SUBPLOTS] if data is not None else []
        if data is None or not fields:
            plt.title(clean(self.title_text, 100))
            return
        plt.subplots(len(fields), 1)
        ticks = tick_positions(len(data.periods), self.size.width - 10)
        labels = [period_label(data.periods[i], data.interval) for i in ticks]
        colors = series_colors(data)
        for row, name in enumerate(fields, start=1):
            sub = plt.subplot(row, 1)
            sub.title(clean(self._subtitle(row, name), 100))
            indexes = [i for i, one in enumerate(data.series) if one.field == name]
            series = [data.series[i] for i in indexes]
            shades = [colors[i] for i in indexes]
            if self.chart_style == "bar":
                self._bars(sub, series, shades, len(data.periods))
                sub.xlim(-0.5, max(len(data.periods) - 0.5, 0.5))
            else:
                self._lines(sub, series, shades)
                sub.xlim(-0.25, max(len(data.periods) - 0.75, 0.75))
            sub.xticks([float(t) for t in ticks], labels)
            self._y_axis(sub, series, len(data.periods))
        if len(data.fields) == 1 or len(fields) == 1:
            plt.subplot(len(fields), 1).xlabel(self._x_title(data))

    def _x_title(self, data: MetricSeries) -> str:
        """The x axis's title: the dataset's own period field and its interval."""
        return f"periodStart, by {clean(data.interval or 'period', 20)}"

    def _subtitle(self, row: int, field: str) -> str:
        """Row 1 carries the chart's name; each subplot names its field in words."""
        if row > 1 or not self.title_text:
            return field_title(field)
        named = words(field)
        if named.lower() in self.title_text.lower():
            return self.title_text
        return f"{self.title_text}: {named}"

    def _y_axis(self, sub: Any, series: list[Series], size: int) -> None:
        span = y_range(series, self.chart_style, size)
        if span is None:
            return
        ticks = nice_ticks(*span, whole=is_count(series))
        if len(ticks) < 2:
            return
        step = ticks[1] - ticks[0]
        sub.ylim(ticks[0], ticks[-1])
        shown = self._labelled(ticks)
        sub.yticks(shown, [tick_label(t, step) for t in shown])

    def _labelled(self, ticks: list[float]) -> list[float]:
        """The ticks that get a label (every one here)."""
        return ticks

    def _lines(self, sub: Any, series: list[Series], shades: list[RGB]) -> None:
        for one, color in zip(series, shades, strict=True):
            for xs, ys in _segments(one.values):
                marker = "braille" if len(xs) > 1 else "●"
                sub.plot(xs, ys, color=color, marker=marker)

    def _bars(self, sub: Any, series: list[Series], shades: list[RGB], size: int) -> None:
        if not series:
            return
        if len(series) == 1:
            points = [(float(i), y) for i, y in enumerate(drawable(v) for v in series[0].values) if y is not None]
            if points:
                sub.bar([x for x, _ in points], [y for _, y in points], color=shades[0], width=0.7)
            return
        # Breakdowns stack per period. A missing value adds nothing to its stack, and a period
        # with no value at all gets no bar: nothing is drawn where the server sent nothing.
        at, columns = stacks(series, size)
        if at:
            sub.stacked_bar([float(i) for i in at], columns, color=list(shades), width=0.7)
