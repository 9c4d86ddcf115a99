"""The base of every model and the value types the wire uses: timestamps, dates or date-times, expiries.

Attributes are snake_case, the wire is camelCase; extra fields are kept.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel


def _assume_utc(value: datetime) -> datetime:
    # The spec promises offsets; a naive value is read as UTC rather than refused.
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


def _no_expiry(value: Any) -> Any:
    if isinstance(value, str) and value.strip().upper() in ("N/A", ""):
        return None
    return value


def _date_or_time(value: Any) -> Any:
    # Left to pydantic, "2026-11-20T00:00:00+02:00" would become the date 2026-11-20: a
    # midnight date-time bucket must stay a date-time (with its offset).
    if isinstance(value, str) and len(value.strip()) > 10:
        return datetime.fromisoformat(value.strip())
    return value


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, (str, int, float, Decimal)) else value


Timestamp = Annotated[datetime, AfterValidator(_assume_utc)]
"""A timezone-aware instant; accepts `Z` and `+00:00`."""

DateOrTime = Annotated[date | Timestamp, BeforeValidator(_date_or_time)]
"""A date (`YYYY-MM-DD`) or a timezone-aware date-time, whichever the server sent."""

Expiry = Annotated[Timestamp | None, BeforeValidator(_no_expiry)]
"""A quote expiry: `None` means "no expiry" (the wire's `N/A`)."""


class WireModel(BaseModel):
    """Base of every model: camelCase on the wire, extra fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        frozen=True,
        defer_build=True,  # built on first use: the console's first page needs a few models, not all
    )

    exact_numbers: ClassVar[bool] = False
    """True where JSON numbers must become Decimals without a trip through float."""

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready camelCase form (what the sandbox sends)."""
        return self.model_dump(mode="json", by_alias=True)
