"""The metrics screen's state, without Textual: the result shown, its series, the view and the chart style."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from stablepay_console.api.models import MetricResult
from stablepay_console.api.sanitize import clean
from stablepay_console.services.metrics.series import MetricSeries, build_series, period_label, template_name
from stablepay_console.services.provenance import Loaded, ResultState

View = Literal["chart", "table"]
Style = Literal["line", "bar"]
INTERVAL_WORDS = {"hour": "Hourly", "day": "Daily", "week": "Weekly", "month": "Monthly", "quarter": "Quarterly",
                  "year": "Yearly"}
STACK_FROM = 4
"""Breakdowns with this many series or more start as stacked bars: lines would tangle."""


def metric_title(result: MetricResult) -> str:
    """`Daily gross volume`: the interval and the template in words; unknown ones kept as sent."""
    interval = result.metadata.calculation_interval or ""
    words = INTERVAL_WORDS.get(interval.lower(), clean(interval, 20).capitalize())
    name = template_name(result.metadata.template or "")
    name = name.split(" (")[0] if " (" in name else name
    text = f"{words} {name[:1].lower()}{name[1:]}" if words else name
    return clean(text.strip(), 80) or "(unnamed metric)"


class MetricView:
    def __init__(self) -> None:
        self.result: ResultState[MetricResult] = ResultState()
        self.series: MetricSeries | None = None
        self.view: View = "chart"
        self.style: Style = "line"

    @property
    def shown(self) -> MetricResult | None:
        return self.result.current.value if self.result.current is not None else None

    @property
    def shown_id(self) -> str | None:
        return self.result.current.target if self.result.current is not None else None

    def show(self, loaded: Loaded[MetricResult]) -> None:
        self.result.succeed(loaded)
        self.series = build_series(loaded.value)
        if len(self.series.series) >= STACK_FROM:
            self.style = "bar"

    def forget(self, profile: str) -> None:
        """Another profile: its server knows other metrics, so nothing shown stays."""
        if self.result.profile_changed(profile):
            self.series = None

    def toggle_view(self) -> None:
        self.view = "table" if self.view == "chart" else "chart"

    def toggle_style(self) -> None:
        self.style = "bar" if self.style == "line" else "line"

    def summary(self) -> str:
        """`Daily gross volume (GROSS_VOLUME) · 26 rows · 22 Oct → 20 Nov · line chart`."""
        result, series = self.shown, self.series
        if result is None or series is None:
            return ""
        parts = [f"{metric_title(result)} ({clean(result.metadata.template or 'no template', 40)})",
                 f"{len(result.data):,} rows"]
        if series.periods:
            first, last = series.periods[0], series.periods[-1]
            parts.append(f"{period_label(first, series.interval)} → {period_label(last, series.interval)}")
        parts.append(f"{'stacked bar' if self.style == 'bar' and len(series.series) > 1 else self.style} chart"
                     if self.view == "chart" else "table")
        return " · ".join(parts)

    def empty_reason(self) -> str:
        result = self.shown
        if result is None:
            return "No metric run yet."
        if not result.data:
            return "The server returned no rows for this metric: nothing to chart."
        names = ", ".join(sorted({k for row in result.data for k in row.fields}))
        return (f"These {len(result.data)} rows carry no numeric field to chart"
                + (f" (fields: {clean(names, 200)})" if names else "") + ". Press t for the table.")

    def gaps(self) -> str:
        series = self.series
        if series is None or not series.missing:
            return ""
        shown = ", ".join(period_label(p, series.interval) for p in series.missing[:8])
        more = len(series.missing) - 8
        return (f"No data sent for {len(series.missing)} bucket(s), left blank (not zero): {shown}"
                + (f", … and {more} more" if more > 0 else ""))

    def export_name(self, now: datetime) -> str:
        """`metric-daily-gross-volume-20261120-093000.csv`: named after the metric, like the RFI exports."""
        result = self.shown
        title = metric_title(result) if result is not None else "metric"
        slug = "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-")
        slug = "-".join(part for part in slug.split("-") if part)[:60] or "metric"
        return f"metric-{slug}-{now.strftime('%Y%m%d-%H%M%S')}.csv"
