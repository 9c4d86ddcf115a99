"""The Team screen's chart: the metric screen's chart, with no more y labels than its rows can hold.

plotext drops colliding y labels in an order that depends on Python's hash seed; a chart of a few rows
(the Team screen at 80x24) labels every other tick instead, so it is drawn the same way every time.
"""

from __future__ import annotations

from typing import Any

from stablepay_console.services.metrics.series import Series
from stablepay_console.tui.formatters.metrics import nice_ticks, tick_label
from stablepay_console.tui.widgets.metric_chart import MetricChart, is_count, y_range

FRAME_ROWS = 5
"""Rows of the widget that are not plot: the title, the two borders, the x ticks and the x label."""


class TeamChart(MetricChart):
    def _y_axis(self, sub: Any, series: list[Series], size: int) -> None:
        span = y_range(series, self.chart_style, size)
        if span is None:
            return
        ticks = nice_ticks(*span, whole=is_count(series))
        if len(ticks) < 2:
            return
        step = ticks[1] - ticks[0]
        sub.ylim(ticks[0], ticks[-1])
        room = max(2, (self.size.height - FRAME_ROWS) // 2)
        every = -(-len(ticks) // room)
        shown = ticks[::every]
        sub.yticks(shown, [tick_label(t, step) for t in shown])
