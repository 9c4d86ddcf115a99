"""Colours of metric series that agree with what the series mean.

A series broken down by a status gets the colour family of that status: greens for success
(COMPLETED), reds and oranges for failure (FAILED), ambers for work in progress (PENDING), so
red is never drawn on a success or green on a failure. Every other series takes a colour from a
palette with neither red nor green in it.
"""

from __future__ import annotations

from collections.abc import Iterable

RGB = tuple[int, int, int]

SUCCESS_WORDS = frozenset(
    {"COMPLETED", "COMPLETE", "SUCCESS", "SUCCEEDED", "SUCCESSFUL", "PAID", "SETTLED", "APPROVED", "CONFIRMED"}
)
FAILURE_WORDS = frozenset(
    {"FAILED", "FAILURE", "FAIL", "ERROR", "ERRORED", "REJECTED", "DECLINED", "CANCELLED", "CANCELED",
     "EXPIRED", "REVERSED", "RETURNED", "DENIED", "ABANDONED"}
)
PENDING_WORDS = frozenset(
    {"PENDING", "PROCESSING", "IN_PROGRESS", "INPROGRESS", "SUBMITTED", "QUEUED", "AWAITING", "INITIATED",
     "OPEN_QUOTE", "CREATED", "ON_HOLD", "HELD"}
)

TONES: dict[str, list[RGB]] = {
    "success": [(102, 187, 106), (38, 166, 154), (156, 204, 101), (0, 121, 107), (174, 213, 129)],
    "failure": [(239, 83, 80), (255, 112, 67), (236, 64, 122), (198, 40, 40), (255, 138, 101)],
    "pending": [(255, 202, 40), (255, 238, 88), (255, 213, 79), (253, 216, 53), (255, 241, 118)],
    "neutral": [
        (66, 165, 245),
        (171, 71, 188),
        (38, 198, 218),
        (141, 110, 99),
        (121, 134, 203),
        (120, 144, 156),
        (129, 212, 250),
        (149, 117, 205),
        (206, 147, 216),
        (186, 104, 200),
    ],
}
OTHER_COLOR: RGB = (158, 158, 158)
"""Grey for "other", the series that folds the smallest combinations together."""


def tone_of(values: Iterable[str]) -> str:
    """`success`, `failure` or `pending` for the first value that names a status; else `neutral`."""
    for value in values:
        word = value.strip().upper().replace("-", "_").replace(" ", "_")
        if word in SUCCESS_WORDS:
            return "success"
        if word in FAILURE_WORDS:
            return "failure"
        if word in PENDING_WORDS:
            return "pending"
    return "neutral"


def assign(keys: list[tuple[str, ...] | None]) -> list[RGB]:
    """One colour per series (its dimension values; None for "other"), in order, each tone's shades in turn."""
    used: dict[str, int] = {}
    colors: list[RGB] = []
    for combo in keys:
        if combo is None:
            colors.append(OTHER_COLOR)
            continue
        tone = tone_of(combo)
        shades = TONES[tone]
        n = used.get(tone, 0)
        used[tone] = n + 1
        colors.append(shades[n % len(shades)])
    return colors


def is_reddish(color: RGB) -> bool:
    """Red dominates: what reads as "bad" on a chart."""
    r, g, b = color
    return r > g + 60 and r > b + 40


def is_greenish(color: RGB) -> bool:
    """Green dominates: what reads as "good" on a chart."""
    r, g, b = color
    return g > r + 40 and g > b + 20
