"""Turning a response into its model, or into the typed error it stands for (spec section 7)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from stablepay_console.api.errors import (
    APIError,
    FieldError,
    MalformedResponse,
    ServerError,
    StatusError,
    Unauthorized,
    ValidationFailed,
)
from stablepay_console.api.models import WireModel

M = TypeVar("M", bound=WireModel)


def _load_json(response: httpx.Response, exact: bool) -> Any:
    if exact:
        return json.loads(response.content, parse_float=Decimal)
    return json.loads(response.content)


def decode(response: httpx.Response, model: type[M]) -> M:
    """The model of a successful response, or the typed error the response stands for."""
    status = response.status_code
    exact = getattr(model, "exact_numbers", False)
    if 200 <= status < 300 and not exact:
        # Fast path: pydantic parses and validates in one pass (`benchmarks/parse.py` against json.loads).
        try:
            parsed = model.model_validate_json(response.content)
        except (ValidationError, ValueError):
            parsed = None  # not JSON or not this shape: the full path below says which
        if parsed is not None and not _is_error_body(_top_level(parsed)):
            return parsed
    try:
        body = _load_json(response, exact)
    except (ValueError, UnicodeDecodeError, RecursionError):
        # RecursionError: a body nested thousands deep (hostile or broken proxy) is just unreadable.
        body = _NOT_JSON
    if not 200 <= status < 300 or _is_error_body(body):
        raise error_from(response, body)
    if body is _NOT_JSON:
        raise MalformedResponse(_not_json_message(response), status=status, response=response)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise MalformedResponse(
            f"The server's answer does not have the expected shape ({problems}).",
            status=status,
            response=response,
        ) from None


_NOT_JSON = object()


def _top_level(parsed: WireModel) -> dict[str, Any]:
    """The top-level keys the body carried, with their values: enough for `_is_error_body`."""
    fields = type(parsed).model_fields
    sent = {fields[name].alias or name: getattr(parsed, name) for name in parsed.model_fields_set if name in fields}
    return {**sent, **(parsed.model_extra or {})}


def _not_json_message(response: httpx.Response) -> str:
    ctype = response.headers.get("content-type", "no content type").split(";")[0]
    if not response.content:
        return f"The server answered HTTP {response.status_code} with an empty body."
    return f"The server answered HTTP {response.status_code} with a body that is not valid JSON ({ctype})."


def _is_error_body(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if body.get("status") == "error" and "error" in body:
        return True
    # The RFI error shape sent with a 2xx status still carries the server's own message.
    if isinstance(body.get("type"), str) and isinstance(body.get("message"), str):
        return not any(key in body for key in ("data", "pagination", "transferDetails"))
    # The ping endpoint's refusal: {"error": "Not authorized"} with no payload fields.
    return isinstance(body.get("error"), str) and "message" not in body and "data" not in body


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


@dataclass(frozen=True)
class _Shape:
    """What one error body shape says, before the shared status triage decides the error's class."""

    message: str
    code: str | None = None
    fields: list[FieldError] | None = None
    """Field problems: set only when the body is a validation error."""
    says_unauthorized: bool = False
    otherwise: type[APIError] = StatusError
    """The class when neither the status nor the body says more (a 4xx of this shape)."""


def _rfi_shape(body: dict[str, Any], status: int) -> _Shape | None:
    """{type, message, fields?}: the RFI list's 400 and 500 bodies."""
    if not (isinstance(body.get("type"), str) and "message" in body):
        return None
    code = body["type"]
    fields = None
    if code == "VALIDATION_ERROR" or status == 400:
        raw = body["fields"] if isinstance(body.get("fields"), list) else []
        fields = [
            FieldError(
                field=_text(f.get("field", "")), message=_text(f.get("message", "")), code=_text(f.get("code", ""))
            )
            for f in raw
            if isinstance(f, dict)
        ]
    server = code == "INTERNAL_SERVER_ERROR"
    return _Shape(_text(body["message"]), code, fields, otherwise=ServerError if server else APIError)


def _status_shape(body: dict[str, Any], status: int) -> _Shape | None:
    """{status: "error", error: {code, message}}: batch retrieval and quote refresh."""
    if not (body.get("status") == "error" and isinstance(body.get("error"), dict)):
        return None
    inner = body["error"]
    code = _text(inner["code"]) if "code" in inner else None
    return _Shape(_text(inner.get("message", "")) or f"HTTP {status}", code)


def _unauthorized_shape(body: dict[str, Any], status: int) -> _Shape | None:
    """{code, error, errorDetails}, or the ping's bare {"error": "Not authorized"}."""
    if not isinstance(body.get("error"), str):
        return None
    message = body["error"]
    details = body.get("errorDetails")
    if isinstance(details, str) and details and details != message:
        message = f"{message}: {details}"
    lowered = body["error"].lower()
    code = str(body["code"]) if "code" in body else None
    return _Shape(message, code, says_unauthorized="not authorized" in lowered or "unauthorized" in lowered)


_SHAPES = (_rfi_shape, _status_shape, _unauthorized_shape)


def _triage(status: int, shape: _Shape, kw: dict[str, Any]) -> APIError:
    """The one status triage every shape shares."""
    if shape.fields is not None:
        return ValidationFailed(shape.message, fields=shape.fields, code=shape.code, **kw)
    if status == 401 or shape.says_unauthorized:
        return Unauthorized(shape.message, code=shape.code, **kw)
    if status >= 500:
        return ServerError(shape.message, code=shape.code, **kw)
    return shape.otherwise(shape.message, code=shape.code, **kw)


def error_from(response: httpx.Response, body: Any) -> APIError:
    """Map a failed response onto the error hierarchy (spec section 7)."""
    status = response.status_code
    kw: dict[str, Any] = {"status": status, "response": response}
    if body is _NOT_JSON:
        return MalformedResponse(_not_json_message(response), **kw)
    if not isinstance(body, dict):
        return MalformedResponse(f"The server answered HTTP {status} with an unexpected body.", **kw)
    for parse in _SHAPES:
        shape = parse(body, status)
        if shape is not None:
            return _triage(status, shape, kw)
    if status == 401:
        return Unauthorized("Not authorized.", **kw)
    if status >= 500:
        return ServerError(f"The server failed with HTTP {status}.", **kw)
    return MalformedResponse(f"The server answered HTTP {status} with a body of no known error shape.", **kw)
