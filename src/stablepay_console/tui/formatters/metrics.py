"""Metric charts in words and round numbers: `grossVolume` reads "Gross volume"; axis ticks 0, 25,000, 50,000.

Nothing is invented: no currency (the API names none for a metric); a name that is not a plain
identifier is shown as sent (cleaned).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from stablepay_console.api.sanitize import clean
from stablepay_console.tui.formatters.numbers import MAX_PLACES, number, scientific

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,60}")
_WORD_BREAK = re.compile(r"_+|(?<=[a-z0-9])(?=[A-Z])")


def words(name: str) -> str:
    """`grossVolume` -> `gross volume`, `GROSS_VOLUME` -> `gross volume`; other text is kept (cleaned)."""
    if not _IDENTIFIER.fullmatch(name):
        return clean(name, 60)
    return " ".join(part.lower() for part in _WORD_BREAK.split(name) if part)


def field_title(field: str) -> str:
    """A numeric field as a heading: `grossVolume` -> `Gross volume`; any other name as sent (cleaned)."""
    if not _IDENTIFIER.fullmatch(field):
        return clean(field, 60)
    text = words(field)
    return text[:1].upper() + text[1:]


# --- axis ticks ---------------------------------------------------------------------------

_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


def tick_step(low: float, high: float, *, whole: bool = False, most: int = 6) -> float:
    """A round step (1, 2, 2.5 or 5 times a power of ten) giving at most about `most` ticks over low..high;
    a whole number when `whole` (a count never gets a tick of 2.5)."""
    raw = max((high - low) / max(1, most - 1), 1e-300)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (*_STEPS, 20.0):
        step = factor * power
        if step >= raw * (1 - 1e-12) and (not whole or (step >= 1 and step.is_integer())):
            return step
    return max(1.0, math.ceil(raw)) if whole else 10 * power


def nice_ticks(low: float, high: float, *, whole: bool = False, most: int = 6) -> list[float]:
    """Round tick values from at or below `low` to at or above `high`."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    low, high = min(low, high), max(low, high)
    if high == low:
        pad = abs(high) or 1.0
        low, high = (0.0, pad) if low >= 0 else (low - pad, high + pad)
    if not math.isfinite(high - low):
        return []
    step = tick_step(low, high, whole=whole, most=most)
    first = math.floor(low / step + 1e-9)
    ticks: list[float] = []
    n = first
    while len(ticks) < most * 3:
        value = n * step
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        if value >= high - step * 1e-9:
            break
        n += 1
    return ticks


def step_places(step: float) -> int:
    """The decimals a tick label needs for this step: 0 for 25,000, 1 for 2.5, 2 for 0.25."""
    if step <= 0 or not math.isfinite(step):
        return 0
    exponent = Decimal(repr(step)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


MAX_LABEL = 16


def tick_label(value: float, step: float) -> str:
    """`25,000`, `2.5`, `1.5E+16`: separators and the places the step needs; scientific when that is long."""
    exact = Decimal(repr(value))
    places = step_places(step)
    text = number(exact, places) if places <= MAX_PLACES else ""
    return text if text and len(text) <= MAX_LABEL else scientific(exact)
