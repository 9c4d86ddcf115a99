"""The provider's event envelope, read only after its signature was checked (see `verify`).

`eventId`, `eventCategory`, `eventType`, `eventAction`, `data`, `createdAt`, `timestamp`, `version` ("v2").
The RFI events name a transfer: their `data` is the transfer as its retrieve endpoint returns it (for an
onramp, the `transferType` / `transferDetails` envelope). What is taken from it is a hint only: the
transfer's ID and its user, to ask the API for that user's transaction requests. Nothing else of the body
is kept, printed or trusted.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from stablepay_console.services.webhooks.verify import Refused

RFI_EVENTS = frozenset({"ONRAMP.RFI.OPEN", "ONRAMP.RFI.CLOSED", "OFFRAMP.RFI.OPEN", "OFFRAMP.RFI.CLOSED"})
"""The events that name a transaction request's transfer. There is none for onboarding requests."""
MAX_EVENT_ID = 200


class NotAnEvent(ValueError):
    """Signed, but not an envelope this receiver can read (not JSON, fields missing): a 400, not retried."""


@dataclass(frozen=True)
class Envelope:
    event_id: str
    event_type: str
    """One of `RFI_EVENTS`, or another type (acknowledged and ignored)."""
    transfer_id: str | None
    user_id: str | None

    @property
    def known(self) -> bool:
        return self.event_type in RFI_EVENTS

    @property
    def flow(self) -> str:
        """`onramp` or `offramp`, as the requests' `flowType` says it."""
        return self.event_type.split(".", 1)[0].lower()


def _uuid(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > 60:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _printable(value: Any, limit: int) -> str | None:
    if isinstance(value, str) and 0 < len(value) <= limit and value.isascii() and value.isprintable():
        return value
    return None


def _transfer(data: Any) -> tuple[str | None, str | None]:
    """(transfer ID, user ID) from the transfer's shape: `transferDetails` with `id` and `source.userId`
    (the onramp's `source` sits beside or inside `transferDetails`, as the contract's section 2.6 leaves open)."""
    if not isinstance(data, dict):
        return None, None
    details = data.get("transferDetails")
    details = details if isinstance(details, dict) else data
    source = details.get("source") if isinstance(details.get("source"), dict) else data.get("source")
    user = source.get("userId") if isinstance(source, dict) else None
    return _uuid(details.get("id")), _uuid(user)


def parse(body: bytes) -> Envelope:
    """The envelope of a verified body; NotAnEvent when it is not one."""
    try:
        doc = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise NotAnEvent("the body is not JSON") from None
    if not isinstance(doc, dict):
        raise NotAnEvent("the body is not a JSON object")
    event_id = _printable(doc.get("eventId"), MAX_EVENT_ID)
    event_type = _printable(doc.get("eventType"), 80)
    if event_id is None:
        raise NotAnEvent("eventId is missing or not printable text")
    if event_type is None:
        raise NotAnEvent("eventType is missing or not printable text")
    if doc.get("version") not in (None, "v2"):
        raise NotAnEvent("version is not v2")
    transfer_id, user_id = _transfer(doc.get("data"))
    return Envelope(event_id, event_type, transfer_id, user_id)


def refused_line(reason: str, where: str) -> str:
    """One line for standard error about a refused delivery: nothing from the request but its peer's address."""
    return f"webhook refused ({where}): {reason}"


__all__ = ["RFI_EVENTS", "Envelope", "NotAnEvent", "Refused", "parse", "refused_line"]
