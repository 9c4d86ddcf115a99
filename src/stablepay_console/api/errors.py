"""One typed hierarchy for every way a request can fail (spec section 7).

Messages, codes and field problems often quote the server: they are passed through the
sanitiser as the error is made (and cut at MAX_MESSAGE), so an error printed anywhere,
even in a traceback, carries no raw escape sequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from stablepay_console.api.sanitize import clean

if TYPE_CHECKING:  # the errors themselves load without httpx (the console paints before the client stack loads)
    import httpx

MAX_MESSAGE = 4000


@dataclass(frozen=True)
class FieldError:
    """One entry of the `fields` list of a `VALIDATION_ERROR`."""

    field: str
    message: str
    code: str = ""

    def __post_init__(self) -> None:
        for name in ("field", "message", "code"):
            object.__setattr__(self, name, clean(getattr(self, name), MAX_MESSAGE))


class APIError(Exception):
    """A request failed. `status` is the HTTP status (None when no response arrived)."""

    kind = "API error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        response: httpx.Response | None = None,
        code: str | None = None,
    ) -> None:
        message = clean(message, MAX_MESSAGE)
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = clean(code, 200) if code is not None else None
        self.response = response

    def __str__(self) -> str:
        prefix = f"HTTP {self.status}: " if self.status is not None else ""
        return f"{prefix}{self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, message={self.message!r})"


class ValidationFailed(APIError):
    """400 `VALIDATION_ERROR`: the server refused the parameters."""

    kind = "Invalid request"

    def __init__(self, message: str, *, fields: list[FieldError] | None = None, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.fields = fields or []

    def __str__(self) -> str:
        base = super().__str__()
        if not self.fields:
            return base
        details = "; ".join(f"{f.field}: {f.message}" for f in self.fields)
        return f"{base} ({details})"


class Unauthorized(APIError):
    """401, or the bare `{"error": "Not authorized"}`: the key is missing, wrong or deleted."""

    kind = "Not authorized"


class StatusError(APIError):
    """The status-error shape: `{"status": "error", "error": {"code", "message"}}`."""

    kind = "Refused"


class ServerError(APIError):
    """5xx, including `INTERNAL_SERVER_ERROR`."""

    kind = "Server error"


class TransportError(APIError):
    """No usable response: connection refused, DNS, TLS, timeout."""

    kind = "Network error"


class MalformedResponse(APIError):
    """A response that matches no known shape: HTML from a proxy, truncated JSON, wrong fields."""

    kind = "Unreadable response"


class DeadlineExceeded(TransportError):
    """No complete answer within the request's total deadline (retries and a trickling body included)."""

    kind = "Timed out"


class ResponseTooLarge(APIError):
    """The decoded body passed the client's size cap; it was dropped while streaming, never held whole."""

    kind = "Response too large"

    def __init__(self, message: str, *, limit: int, **kw: object) -> None:
        super().__init__(message, **kw)  # type: ignore[arg-type]
        self.limit = limit
