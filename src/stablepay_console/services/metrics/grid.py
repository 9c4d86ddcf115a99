"""The regular grid of buckets a metric's calculation interval implies, from the first bucket sent to the last.

Steps are taken in UTC (a daylight-saving change cannot shift the grid) and stop at the
end of the calendar or at MAX_GRID buckets; periods that do not fit one grid give None.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from stablepay_console.api.numbers import utc_key

Period = date | datetime

MAX_GRID = 5000
"""Above this many buckets the grid is not filled in (only the periods sent are kept)."""

MONTH_STEPS = {"month": 1, "monthly": 1, "quarter": 3, "quarterly": 3, "year": 12, "yearly": 12, "annual": 12}
FIXED_STEPS = {
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "hourly": timedelta(hours=1),
    "day": timedelta(days=1),
    "daily": timedelta(days=1),
    "week": timedelta(weeks=1),
    "weekly": timedelta(weeks=1),
}


def _add_months(day: date, months: int) -> date | None:
    y, m = divmod(day.year * 12 + day.month - 1 + months, 12)
    try:
        return day.replace(year=y, month=m + 1)
    except ValueError:
        return None


def _step(period: Period, interval: str) -> Period | None:
    months = MONTH_STEPS.get(interval)
    if months is not None:
        return _add_months(period, months)
    step = FIXED_STEPS.get(interval)
    if step is None:
        return None
    try:
        if isinstance(period, datetime):
            # Step in UTC so a daylight-saving change cannot shift the grid.
            return (period.astimezone(timezone.utc) + step).astimezone(period.tzinfo)
        if step < timedelta(days=1):
            return None
        return period + step
    except OverflowError:  # the end of the calendar
        return None


def grid(observed: list[Period], interval: str | None) -> list[Period] | None:
    """Every bucket from the first observed to the last, or None when the periods sent do not fit one grid."""
    if not observed or not interval:
        return None
    interval = interval.strip().lower()
    kinds = {isinstance(p, datetime) for p in observed}
    if len(kinds) != 1:
        return None
    last = utc_key(observed[-1])
    buckets: list[Period] = [observed[0]]
    while utc_key(buckets[-1]) < last:
        nxt = _step(buckets[-1], interval)
        if nxt is None or len(buckets) >= MAX_GRID:
            return None
        buckets.append(nxt)
    on_grid = {utc_key(b) for b in buckets}
    if any(utc_key(p) not in on_grid for p in observed):
        return None
    return buckets
