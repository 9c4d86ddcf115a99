"""Turning a response into its model, or into the typed error it stands for (spec section 7)."""

from __future__ import annotations

import json
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
        # Fast path: pydantic parses and validates in one pass (a 100-RFI page in about half the time).
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


def error_from(response: httpx.Response, body: Any) -> APIError:
    """Map a failed response onto the error hierarchy (spec section 7)."""
    status = response.status_code
    kw: dict[str, Any] = {"status": status, "response": response}
    if body is _NOT_JSON or not isinstance(body, dict):
        if body is _NOT_JSON:
            return MalformedResponse(_not_json_message(response), **kw)
        return MalformedResponse(f"The server answered HTTP {status} with an unexpected body.", **kw)

    # RFI error shape: {type, message, fields?}
    if isinstance(body.get("type"), str) and "message" in body:
        message = _text(body["message"])
        code = body["type"]
        if code == "VALIDATION_ERROR" or status == 400:
            fields = [
                FieldError(
                    field=_text(f.get("field", "")),
                    message=_text(f.get("message", "")),
                    code=_text(f.get("code", "")),
                )
                for f in (body["fields"] if isinstance(body.get("fields"), list) else [])
                if isinstance(f, dict)
            ]
            return ValidationFailed(message, fields=fields, code=code, **kw)
        if status == 401:
            return Unauthorized(message, code=code, **kw)
        if code == "INTERNAL_SERVER_ERROR" or status >= 500:
            return ServerError(message, code=code, **kw)
        return APIError(message, code=code, **kw)

    # Status-error shape: {status: "error", error: {code, message}}
    if body.get("status") == "error" and isinstance(body.get("error"), dict):
        inner = body["error"]
        message = _text(inner.get("message", "")) or f"HTTP {status}"
        code = _text(inner["code"]) if "code" in inner else None
        if status == 401:
            return Unauthorized(message, code=code, **kw)
        if status >= 500:
            return ServerError(message, code=code, **kw)
        return StatusError(message, code=code, **kw)

    # Unauthorized shape {code, error, errorDetails}, or the bare {"error": "..."}.
    if isinstance(body.get("error"), str):
        message = body["error"]
        details = body.get("errorDetails")
        if isinstance(details, str) and details and details != message:
            message = f"{message}: {details}"
        code = str(body["code"]) if "code" in body else None
        if status == 401 or "not authorized" in body["error"].lower() or "unauthorized" in body["error"].lower():
            return Unauthorized(message, code=code, **kw)
        if status >= 500:
            return ServerError(message, code=code, **kw)
        return StatusError(message, code=code, **kw)

    if status == 401:
        return Unauthorized("Not authorized.", **kw)
    if status >= 500:
        return ServerError(f"The server failed with HTTP {status}.", **kw)
    return MalformedResponse(f"The server answered HTTP {status} with a body of no known error shape.", **kw)
