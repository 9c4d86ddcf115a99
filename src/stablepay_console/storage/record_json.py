"""JSON read back from a record (the local file or the team database): parsed with a size and a nesting bound.

What a record holds was written by people: a member's own `psql` can type an audit entry whose detail is
100,000 `[`, or import a request whose JSON is. Python's parser recurses once per level, so such text would end
the reader with a RecursionError for everyone who reads the log. Every reader of JSON from a record goes through
`loads` here: text over `MAX_CHARS`, nested deeper than `MAX_DEPTH`, or not JSON at all is `UnreadableJson` (a
ValueError), shown to people as `UNREADABLE` ("unreadable entry"), never a traceback.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_CHARS = 4_000_000
"""Far above anything the console writes (a request as the API sent it, an entry's details)."""
MAX_DEPTH = 64
"""Far above anything the console writes (the API's requests nest a few levels; entry details one)."""
UNREADABLE = "unreadable entry"
"""How a reader shows JSON it will not parse."""

_STRING = re.compile(r'"(?:\\.|[^"\\])*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


class UnreadableJson(ValueError):
    """The text is too long, nested too deep, or not JSON: nothing of it is used."""


def depth_within(text: str, most: int) -> bool:
    """Whether `text`'s brackets (outside strings) nest at most `most` deep, without recursing: each pass takes
    away the innermost pairs, so the passes needed are the depth. Text with no more opening brackets than `most`
    (a request as kept: one) nests no deeper than that, and needs no pass."""
    if text.count("[") + text.count("{") <= most:
        return True
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    passes = 0
    while brackets:
        if passes >= most:
            return False
        shorter = _INNERMOST.sub("", brackets)
        if shorter == brackets:  # unmatched brackets (not JSON): the parser would recurse into every opening one
            return passes + len(brackets) <= most
        brackets, passes = shorter, passes + 1
    return True


def loads(text: str | bytes, *, max_chars: int = MAX_CHARS, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads(text)` within the bounds, else UnreadableJson."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise UnreadableJson("not UTF-8") from None
    if not isinstance(text, str):
        raise UnreadableJson(f"not text ({type(text).__name__})")
    if len(text) > max_chars:
        raise UnreadableJson(f"{len(text)} characters, over {max_chars}")
    if not depth_within(text, max_depth):
        raise UnreadableJson(f"nested deeper than {max_depth}")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UnreadableJson(str(exc)[:200]) from None


def loads_object(text: str | bytes, **bounds: int) -> dict[str, Any] | None:
    """An object's fields; None when the text is unreadable or not an object."""
    try:
        value = loads(text, **bounds)
    except UnreadableJson:
        return None
    return value if isinstance(value, dict) else None


def object_or_unreadable(text: str | bytes, **bounds: int) -> dict[str, Any]:
    """An object's fields, or `{"unreadable": "unreadable entry"}` in its place (what a reader shows)."""
    found = loads_object(text, **bounds)
    return {"unreadable": UNREADABLE} if found is None else found
