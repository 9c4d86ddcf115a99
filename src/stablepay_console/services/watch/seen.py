"""What a watch remembers of one request, and how a remembered request stands in for the real one (UI-free).

A `Seen` is enough to tell what changed at the next look (status, round), to find the request again
(kind, user, when it was raised) and to report its deadline marks by the clock alone (`expiresAt`):
a deadline crossing 72 h, 24 h, 1 h or passing needs no request. Such an event's subject is a
`RememberedRfi`: the request as last seen, with the fields the watch keeps (never its items or link).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


def parse_when(value: Any) -> datetime | None:
    """An ISO time from saved JSON (a naive one taken as UTC); None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=timezone.utc)


def _stamp(when: datetime | None) -> str | None:
    return when.astimezone(timezone.utc).isoformat().replace("+00:00", "Z") if when is not None else None


def _text(value: Any, limit: int) -> str | None:
    return clean(value, limit) if isinstance(value, str) else None


@dataclass
class Seen:
    """What is remembered of one request: enough to tell what changed, and which marks were reported."""

    status: str
    round_id: str | None = None
    round_no: int | None = None
    mark: str | None = None
    """The tightest deadline mark already reported for this round (`72h`, `24h`, `1h`, `passed`)."""
    expires_at: datetime | None = None
    kind: str | None = None
    user_id: str | None = None
    created_at: datetime | None = None

    @classmethod
    def of(cls, rfi: Rfi) -> Seen:
        """What a fetched request leaves in memory (marks are the tracker's business), every value cleaned."""
        r = rfi.round
        return cls(
            clean(rfi.status, 40),
            clean(r.id, 80) if r is not None else None,
            r.round if r is not None else None,
            None,
            r.expires_at if r is not None else None,
            clean(rfi.kind, 40),
            clean(rfi.user_id, 80) if rfi.user_id else None,
            rfi.created_at,
        )

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status, "roundId": self.round_id, "round": self.round_no,
                                "mark": self.mark}
        extra = {"expiresAt": _stamp(self.expires_at), "kind": self.kind, "userId": self.user_id,
                 "createdAt": _stamp(self.created_at)}
        body.update({k: v for k, v in extra.items() if v is not None})
        return body

    @classmethod
    def from_json(cls, data: Any) -> Seen | None:
        if not isinstance(data, dict) or not isinstance(data.get("status"), str):
            return None
        mark, number = data.get("mark"), data.get("round")
        return cls(
            clean(data["status"], 40),
            _text(data.get("roundId"), 80),
            number if isinstance(number, int) and not isinstance(number, bool) else None,
            mark if isinstance(mark, str) else None,
            parse_when(data.get("expiresAt")),
            _text(data.get("kind"), 40),
            _text(data.get("userId"), 80),
            parse_when(data.get("createdAt")),
        )


@dataclass(frozen=True)
class RememberedRound:
    id: str
    round: int | None
    expires_at: datetime | None


@dataclass(frozen=True)
class RememberedRfi:
    """A request as the watch remembers it: what a deadline event found by the clock carries."""

    id: str
    kind: str
    status: str
    user_id: str | None
    created_at: datetime | None
    round: RememberedRound | None

    @classmethod
    def of(cls, rfi_id: str, seen: Seen) -> RememberedRfi:
        round_ = RememberedRound(seen.round_id, seen.round_no, seen.expires_at) if seen.round_id else None
        return cls(rfi_id, seen.kind or "?", seen.status, seen.user_id, seen.created_at, round_)

    @property
    def deadline(self) -> datetime | None:
        return self.round.expires_at if self.round is not None else None

    def to_wire(self) -> dict[str, Any]:
        """The API's own names for the fields kept (a subset of the request)."""
        body: dict[str, Any] = {"id": self.id, "kind": self.kind, "status": self.status, "userId": self.user_id}
        if self.created_at is not None:
            body["createdAt"] = _stamp(self.created_at)
        r = self.round
        body["currentRound"] = r.round if r is not None else None
        body["round"] = {"id": r.id, "round": r.round, "expiresAt": _stamp(r.expires_at)} if r is not None else None
        return body
