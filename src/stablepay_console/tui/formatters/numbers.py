"""Numbers from a server, as text a person reads: separators, fixed places, and never a crash.

A server can send any number JSON allows: `1e999999999` parses as a Decimal, but printing it in
full would build a billion digits and any sum with it overflows. Whatever cannot be used (see
api.numbers, which also sums exactly) reads "unreadable" (with the raw value, cut), so only that
cell is lost, never the screen.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal

from stablepay_console.api.numbers import MAX_EXPONENT
from stablepay_console.api.numbers import exact_sum as exact_sum
from stablepay_console.api.numbers import usable_number as usable
from stablepay_console.api.sanitize import clean

UNREADABLE = "unreadable"
MAX_DIGITS = 40
"""Digits either side of the point shown in full; beyond, scientific notation (`1.5E+45`)."""
MAX_PLACES = 8

_FOUR = decimal.Context(prec=4, Emax=MAX_EXPONENT, Emin=-MAX_EXPONENT, traps=[])
_WIDE = decimal.Context(prec=MAX_DIGITS * 2 + 10, Emax=MAX_EXPONENT, Emin=-MAX_EXPONENT, traps=[])


def unreadable(raw: object = None) -> str:
    """`unreadable (1e999999999)`: what a cell shows for a number that cannot be used."""
    shown = _raw_text(raw)
    return f"{UNREADABLE} ({shown})" if shown else UNREADABLE


def _raw_text(raw: object) -> str:
    if raw is None:
        return ""
    if isinstance(raw, Decimal):
        try:
            return clean(f"{raw:E}" if raw.is_finite() else str(raw), 24)
        except (ValueError, ArithmeticError):
            return ""
    return clean(raw, 24)


def number(value: object, places: int | None = None) -> str:
    """`1,234,567.89`; with `places`, exactly that many decimals (rounded half-even); never raises."""
    if value is None:
        return ""
    if not usable(value):
        return unreadable(value)
    amount = Decimal(value)  # type: ignore[arg-type]
    if not amount.is_zero() and not -MAX_DIGITS <= amount.adjusted() <= MAX_DIGITS:
        return scientific(amount)
    if places is not None:
        places = min(max(places, 0), MAX_PLACES)
        rounded = _WIDE.quantize(amount, Decimal(1).scaleb(-places))
        if rounded.is_finite():
            amount = rounded
    if not amount.is_zero() and amount.as_tuple().exponent < -MAX_DIGITS:  # type: ignore[operator]
        return scientific(amount)
    return f"{amount:,f}"


def scientific(amount: Decimal) -> str:
    """`1.5E+45`, `-2E-30`: at most four significant digits."""
    if not usable(amount):
        return unreadable(amount)
    if amount.is_zero():
        return "0"
    digits = _FOUR.create_decimal(amount).normalize(_FOUR)
    mantissa = _WIDE.scaleb(digits, -digits.adjusted())
    return f"{mantissa:f}E{digits.adjusted():+d}"


MONEY_PLACES = 2


def money(amount: object, currency: str | None = None) -> str:
    """`1,234.50 USDC`: at least two decimals, more only when the server sent more (never rounded
    away), with separators; the currency upper-cased and cleaned."""
    if amount is None:
        return ""
    sent = -_exponent(amount) if usable(amount) and isinstance(amount, Decimal) else None
    text = number(amount, max(sent, MONEY_PLACES) if sent is not None else None)
    return f"{text} {clean(currency.upper(), 16)}" if currency else text


def places_of(values: list[object], limit: int = MAX_PLACES) -> int:
    """The decimals every value of a column was sent with (0 for counts), at most `limit`."""
    most = 0
    for value in values:
        if usable(value) and isinstance(value, Decimal):
            most = max(most, -_exponent(value))
    return min(most, limit)


def _exponent(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return exponent if isinstance(exponent, int) else 0


def finite_float(value: object) -> float | None:
    """A value for plotting only (tables and files keep the exact Decimal); None when it cannot be drawn."""
    if not usable(value):
        return None
    try:
        result = float(value)  # type: ignore[arg-type]
    except (OverflowError, ValueError):
        return None
    return result if math.isfinite(result) else None
