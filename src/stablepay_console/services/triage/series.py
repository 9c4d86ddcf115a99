"""The team report's weeks as a `MetricSeries`, so the Team screen draws them with the metric screen's chart."""

from __future__ import annotations

from decimal import Decimal

from stablepay_console.services.metrics.series import MetricSeries, Series
from stablepay_console.services.triage.report import WEEK_FIELDS, Report

FIELD = "requests"
LABELS = {"issued": "issued", "claimed": "claimed", "approved": "approved", "submittedInTime": "submitted in time",
          "expired": "expired unanswered"}


def weekly_series(made: Report) -> MetricSeries:
    """One line per measure (issued, claimed, approved, submitted in time, expired), one point per week."""
    periods = [start.date() for start, _ in made.weeks]
    series = [Series(FIELD, LABELS[name], [Decimal(week[name]) for _, week in made.weeks], combination=(LABELS[name],))
              for name in WEEK_FIELDS]
    return MetricSeries(periods, [FIELD], ["measure"], series, interval="week", gridded=True)
