"""Numbers and instants a server sent that parse but may not be usable, and exact sums of the ones that are.

The models keep every value as it came (`Decimal("1E+999999999")` parses; so does
`0001-01-01T00:00:00+14:00`); these helpers say whether a value can take part in
arithmetic, sorting and display, so one bad field is shown as unreadable instead of
taking the rest down.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable
from datetime import date, datetime, timezone
from decimal import Decimal

MAX_EXPONENT = 999_999
"""Decimal's default exponent range: a value beyond it overflows any sum made in the default context."""

PLAIN_DIGITS = 60
"""Digits either side of the point written out in plain notation; beyond, `1E+400` (still exact)."""

_EARLIEST = datetime(1, 1, 2, tzinfo=timezone.utc)
_LATEST = datetime(9999, 12, 30, tzinfo=timezone.utc)


def usable_number(value: object) -> bool:
    """A finite Decimal (or int) whose exponent is inside Decimal's default range."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if not isinstance(value, Decimal) or not value.is_finite():
        return False
    exponent = value.as_tuple().exponent
    return value.is_zero() or (
        isinstance(exponent, int) and -MAX_EXPONENT <= exponent and value.adjusted() <= MAX_EXPONENT
    )


def exact_sum(values: Iterable[object]) -> Decimal | None:
    """The exact sum (no rounding at all), or None when a value is not a usable number.

    The precision is taken from the values themselves: 1E+30 + 0.01 is
    1000000000000000000000000000000.01, not 1E+30 as with the default 28 digits.
    """
    numbers: list[Decimal] = []
    for value in values:
        if not usable_number(value):
            return None
        numbers.append(Decimal(value))  # type: ignore[arg-type]
    if not numbers:
        return Decimal(0)
    highest = max(n.adjusted() for n in numbers)
    lowest = min(int(n.as_tuple().exponent) for n in numbers)
    digits = max(1, highest - lowest + 1) + len(str(len(numbers))) + 1
    context = decimal.Context(
        prec=digits, Emax=MAX_EXPONENT + digits, Emin=-MAX_EXPONENT - digits, traps=[decimal.Inexact]
    )
    total = Decimal(0)
    try:
        for number in numbers:
            total = context.add(total, number)
    except decimal.Inexact:  # cannot happen with the precision above; if it did, no rounded total is given
        return None
    return total


def number_text(value: Decimal) -> str:
    """The exact value as text: plain notation when it is short enough, `1E+400` otherwise; never a billion digits."""
    if not value.is_finite():
        return str(value)
    exponent = value.as_tuple().exponent
    if value.is_zero() or (isinstance(exponent, int) and -PLAIN_DIGITS <= exponent
                           and value.adjusted() <= PLAIN_DIGITS):
        return format(value, "f")
    return str(value)


def usable_time(value: date | datetime | None) -> bool:
    """A date, or an aware date-time whose instant lies inside the calendar with a day to spare either side.

    `0001-01-01T00:00:00+14:00` parses, but its instant (the year 0) cannot be converted to UTC.
    """
    if value is None:
        return False
    if not isinstance(value, datetime):
        return True
    if value.tzinfo is None or value.utcoffset() is None:
        return False
    try:
        instant = value.astimezone(timezone.utc)
    except (OverflowError, ValueError):
        return False
    return _EARLIEST <= instant <= _LATEST


def utc_key(value: date | datetime) -> datetime:
    """A sort key on one UTC time line for dates and date-times; never raises (unusable ones go to the ends)."""
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if usable_time(value):
        return value.astimezone(timezone.utc)
    return _EARLIEST if value.year < 5000 else _LATEST


class SentAsString:
    """Marks a decimal field the spec sends as a JSON string (batch amounts, quote amounts and rate): `--json`
    writes it back as that string (`cli/wire.py`); every other decimal goes out as a JSON number with all its
    digits. Here, not beside the models, so the printer knows it without importing them."""

    __slots__ = ()


SENT_AS_STRING = SentAsString()
