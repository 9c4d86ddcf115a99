"""The Team screen's chart: the metric screen's chart, with no more y labels than its rows can hold.

plotext drops colliding y labels in an order that depends on Python's hash seed; a chart of a few rows
(the Team screen at 80x24) labels every other tick instead, so it is drawn the same way every time.
"""

from __future__ import annotations

from stablepay_console.tui.widgets.metric_chart import MetricChart

FRAME_ROWS = 5
"""Rows of the widget that are not plot: the title, the two borders, the x ticks and the x label."""


class TeamChart(MetricChart):
    def _labelled(self, ticks: list[float]) -> list[float]:
        room = max(2, (self.size.height - FRAME_ROWS) // 2)
        every = -(-len(ticks) // room)
        return ticks[::every]
