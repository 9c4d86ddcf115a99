"""The Team screen's chart: the metric screen's chart, with no more y labels than its rows can hold.

plotext drops colliding y labels in an order that depends on Python's hash seed; a chart of a few rows
(the Team screen at 80x24) labels every other tick instead, so it is drawn the same way every time.

A week's counts (issued, claimed, approved, in time, expired) are counts of a few whole requests, not a
continuous measure: they are bars side by side per week (never stacked: a request counts in several), under a
plain axis title ("Week").
"""

from __future__ import annotations

from typing import Any

from stablepay_console.services.metrics.series import MetricSeries, Series
from stablepay_console.tui.widgets.metrics.chart import MetricChart, drawable
from stablepay_console.tui.widgets.metrics.colors import RGB

FRAME_ROWS = 5
"""Rows of the widget that are not plot: the title, the two borders, the x ticks and the x label."""


class TeamChart(MetricChart):
    def _x_title(self, data: MetricSeries) -> str:
        return "Week"

    def _bars(self, sub: Any, series: list[Series], shades: list[RGB], size: int) -> None:
        if not series:
            return
        xs = [float(i) for i in range(size)]
        heights = [[float(drawable(v) or 0) for v in one.values] for one in series]
        sub.multiple_bar(xs, heights, color=list(shades), width=0.8)

    def _labelled(self, ticks: list[float]) -> list[float]:
        room = max(2, (self.size.height - FRAME_ROWS) // 2)
        every = -(-len(ticks) // room)
        return ticks[::every]
