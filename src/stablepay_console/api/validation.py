"""Checks applied to every argument before a request is sent.

The TUI uses the same functions for its inline messages, so a value the
console accepts is exactly a value the client would send.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

from stablepay_console.api.vocabulary import RFI_KINDS, RFI_STATUSES

MAX_LIMIT = 100


def _shown(value: str) -> str:
    # Quote user input safely: repr escapes control characters, and long input is cut.
    text = value if len(value) <= 60 else value[:57] + "..."
    return repr(text)


def parse_uuid(value: str, what: str = "ID") -> str:
    """The canonical lower-case form of a UUID, or ValueError saying what is wrong."""
    if not isinstance(value, str):
        raise ValueError(f"The {what} must be text.")
    stripped = value.strip()
    if not stripped:
        raise ValueError(f"The {what} is empty.")
    # Surrounding whitespace (a pasted ID) is harmless: only the inner value counts.
    if any(ch.isspace() for ch in stripped):
        raise ValueError(f"The {what} contains spaces: {_shown(stripped)}.")
    if len(stripped) != 36:
        raise ValueError(
            f"The {what} must be a UUID of 36 characters (8-4-4-4-12); "
            f"got {len(stripped)} characters: {_shown(stripped)}."
        )
    bad = [ch for ch in stripped if ch not in "0123456789abcdefABCDEF-"]
    if bad:
        raise ValueError(f"The {what} contains {_shown(bad[0])}, which is not a hexadecimal digit.")
    try:
        parsed = uuid.UUID(stripped)
    except ValueError:
        raise ValueError(f"The {what} is not a UUID (8-4-4-4-12 hexadecimal digits): {_shown(stripped)}.") from None
    if str(parsed) != stripped.lower():
        raise ValueError(f"The {what} is not a UUID (8-4-4-4-12 hexadecimal digits): {_shown(stripped)}.")
    return str(parsed)


def check_choice(value: str | None, allowed: tuple[str, ...], what: str) -> str | None:
    if value is None:
        return None
    if value not in allowed:
        raise ValueError(f"Unknown {what} {_shown(value)}; choose one of: {', '.join(allowed)}.")
    return value


def check_status(value: str | None) -> str | None:
    return check_choice(value, RFI_STATUSES, "status")


def check_kind(value: str | None) -> str | None:
    return check_choice(value, RFI_KINDS, "kind")


def check_limit(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("The page size must be a whole number.")
    if not 1 <= value <= MAX_LIMIT:
        raise ValueError(f"The page size must be between 1 and {MAX_LIMIT}; got {value}.")
    return value


def check_offset(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("The offset must be a whole number.")
    if value < 0:
        raise ValueError(f"The offset cannot be negative; got {value}.")
    return value


def parse_limit(text: str) -> int:
    """A page size typed by a person."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("The page size is empty.")
    try:
        value = int(stripped)
    except ValueError:
        raise ValueError(f"The page size must be a whole number; got {_shown(stripped)}.") from None
    return check_limit(value)


def parse_day(text: str, what: str = "day") -> datetime | None:
    """`2026-11-01` typed by a person -> 2026-11-01T00:00:00Z; blank -> None; ValueError says what is wrong."""
    value = text.strip()
    if not value:
        return None
    try:
        if len(value) != 10:
            raise ValueError
        day = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ValueError(f"The {what} {_shown(value)} is not a day (YYYY-MM-DD, for example 2026-11-01).") from None
    return day.replace(tzinfo=timezone.utc)


def check_day_range(after: datetime | None, before: datetime | None) -> None:
    """A half-open range of days must not be empty."""
    if after is not None and before is not None and after >= before:
        raise ValueError(
            f"{after:%Y-%m-%d} is not before {before:%Y-%m-%d}: the range is empty (the end day itself is left out)."
        )
