"""When a key was created: the date a person gives, else a JWT key's own `iat`, else today.

The spec declares the bearer format as JWT (section 5.1). A JWT's payload is only decoded here,
never verified, and `iat` is trusted for nothing but the key's age: no network call, no signature.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import date, datetime, time, timezone

from stablepay_console.api import ApiKey

EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)
"""Older than any API key: an `iat` before this is not a date anyone meant."""


def jwt_issued_at(key: ApiKey, now: datetime | None = None) -> datetime | None:
    """The `iat` of a JWT key as a UTC instant; None when the key is no JWT or carries no usable `iat`."""
    parts = key.reveal().split(".")
    if len(parts) != 3 or not parts[1] or len(parts[1]) > 8192:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError, RecursionError):
        return None
    iat = payload.get("iat") if isinstance(payload, dict) else None
    if isinstance(iat, bool) or not isinstance(iat, (int, float)):
        return None
    try:
        issued = datetime.fromtimestamp(int(iat), timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    latest = now or datetime.now(timezone.utc)
    if not EARLIEST <= issued <= latest:
        return None  # a future or ancient `iat` says nothing about this key's age
    return issued


def parse_key_created(text: str, now: datetime) -> datetime:
    """`YYYY-MM-DD` as midnight UTC of that day; not in the future, not before 2000."""
    text = text.strip()
    try:
        day = date.fromisoformat(text)
    except ValueError:
        shown = text if len(text) <= 30 else text[:29] + "…"
        raise ValueError(
            f"The key's creation date is a date as YYYY-MM-DD (for example 2026-01-31), not {shown!r}."
        ) from None
    if day > now.date():
        raise ValueError(f"The key's creation date {day} is in the future.")
    if day < EARLIEST.date():
        raise ValueError(f"The key's creation date {day} is before 2000; check the year.")
    return datetime.combine(day, time(), timezone.utc)


def key_created(key: ApiKey | None, given: datetime | None, now: datetime) -> tuple[datetime, str]:
    """The key's creation date and where it came from: `given`, the key's `iat`, or `now` (today)."""
    if given is not None:
        return given, "as given"
    issued = jwt_issued_at(key, now) if key is not None else None
    if issued is not None:
        return issued, "from the key's own issue date (iat)"
    return now, "today (no date was given)"
