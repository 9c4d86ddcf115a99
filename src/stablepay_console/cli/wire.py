"""`--json`: a model as the API's own JSON, with exact numbers, safe to print on a terminal.

Field names are the wire's (camelCase, extra fields kept). Money stays exact: a decimal the spec
sends as a JSON string (the models type it `StringDecimal`) is printed as that string; one it
sends as a number (an onramp's `source.amount`, metric values) is printed as a number with all its
digits, never through a float. Every character that could act on a terminal is a `\\uXXXX` escape.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from stablepay_console.api.numbers import SENT_AS_STRING
from stablepay_console.api.sanitize import json_safe


class Number:
    """A decimal to print as a JSON number, digits as they are."""

    __slots__ = ("text",)

    def __init__(self, value: Decimal) -> None:
        self.text = str(value) if value.is_finite() else "null"


def _time(value: date) -> str:
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if value.utcoffset() == timedelta(0) else text
    return value.isoformat()


def plain_value(value: Any, as_string: bool = False) -> Any:
    """JSON-ready values: models as camelCase dicts, `Number` for decimals the wire sends as numbers (the model's
    field says which it sends as a string: `api.numbers.SENT_AS_STRING`)."""
    if isinstance(value, BaseModel):
        cls = type(value)
        out: dict[str, Any] = {}
        for field_name, info in cls.model_fields.items():
            out[info.alias or field_name] = plain_value(getattr(value, field_name), SENT_AS_STRING in info.metadata)
        for key, extra in (value.model_extra or {}).items():
            out[key] = plain_value(extra)
        return out
    if isinstance(value, Decimal):
        return str(value) if as_string else Number(value)
    if isinstance(value, date):
        return _time(value)
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    return value


def _encode(value: Any, indent: int | None, level: int) -> str:
    if isinstance(value, Number):
        return value.text
    if isinstance(value, dict | list):
        items = (
            [f"{json.dumps(k, ensure_ascii=False)}{': ' if indent is not None else ':'}{_encode(v, indent, level + 1)}"
             for k, v in value.items()]
            if isinstance(value, dict)
            else [_encode(v, indent, level + 1) for v in value]
        )
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not items:
            return opening + closing
        if indent is None:
            return opening + ",".join(items) + closing
        pad, inner = " " * indent * level, " " * indent * (level + 1)
        return opening + "\n" + ",\n".join(inner + item for item in items) + "\n" + pad + closing
    return json.dumps(value, ensure_ascii=False)


def dumps(value: Any, indent: int | None = 2) -> str:
    """JSON text of `value` (models included); one line with no spaces when `indent` is None (as gh prints it)."""
    text = _encode(plain_value(value), indent, 0)
    # json.dumps never writes a raw newline inside a string: each line can be made safe on its own.
    return "\n".join(json_safe(line) for line in text.split("\n"))
