"""How old a key is, against the spec's rule: rotate at least every 12 months (warn from 11)."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime

DUE_MONTHS = 11
OVERDUE_MONTHS = 12


def add_months(when: datetime, months: int) -> datetime:
    """The same day `months` later (the last day of the month when that day does not exist)."""
    index = when.month - 1 + months
    year, month = when.year + index // 12, index % 12 + 1
    day = min(when.day, calendar.monthrange(year, month)[1])
    return when.replace(year=year, month=month, day=day)


def months_between(start: datetime, end: datetime) -> int:
    """Whole calendar months from `start` to `end` (0 when `end` is earlier)."""
    months = (end.year - start.year) * 12 + end.month - start.month
    while months > 0 and add_months(start, months) > end:
        months -= 1
    return max(0, months)


@dataclass(frozen=True)
class KeyAge:
    level: str
    """"ok", "due" (11 months or more), "overdue" (12 months or more) or "unknown" (no date kept)."""
    since: datetime | None = None
    months: int = 0

    @property
    def rotate_by(self) -> datetime | None:
        return add_months(self.since, OVERDUE_MONTHS) if self.since else None

    @property
    def short(self) -> str:
        if self.since is None:
            return "age unknown"
        age = f"{self.months} month{'s' if self.months != 1 else ''}"
        if self.level == "overdue":
            return f"Rotation OVERDUE: {age}"
        if self.level == "due":
            return f"Rotation due: {age}"
        return age

    @property
    def sentence(self) -> str:
        if self.since is None or self.rotate_by is None:
            return "The key's creation date is not known."
        since = self.since.strftime("%Y-%m-%d")
        by = self.rotate_by.strftime("%Y-%m-%d")
        if self.level == "overdue":
            return f"The key is overdue for rotation: created {since}, it was due by {by}. Rotate it now."
        if self.level == "due":
            return f"The key is {self.months} months old (created {since}): rotate it before {by}."
        return f"Key created {since}; rotate it by {by}."


def key_age(since: datetime | None, now: datetime) -> KeyAge:
    if since is None:
        return KeyAge("unknown")
    months = months_between(since, now)
    if months >= OVERDUE_MONTHS:
        return KeyAge("overdue", since, months)
    if months >= DUE_MONTHS:
        return KeyAge("due", since, months)
    return KeyAge("ok", since, months)
