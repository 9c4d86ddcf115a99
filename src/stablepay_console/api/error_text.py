"""One way to say what went wrong: the kind once, the server's message once, no doubled punctuation.

`Unauthorized("Not authorized")` reads "Not authorized", not "Not authorized: Not authorized";
a server message ending in a full stop can be put in brackets without giving ".).".
"""

from __future__ import annotations

import re

from stablepay_console.api.errors import APIError, ValidationFailed
from stablepay_console.api.sanitize import clean

_UNAUTHORISED = {"notauthorized", "notauthorised", "unauthorized", "unauthorised"}


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _same(a: str, b: str) -> bool:
    x, y = _letters(a), _letters(b)
    return x == y or (x in _UNAUTHORISED and y in _UNAUTHORISED)


def trim(text: str) -> str:
    """`text` without trailing spaces and full stops, so that it can sit inside a sentence."""
    return text.rstrip().rstrip(". ").rstrip()


def sentence(text: str) -> str:
    """`text` ending with exactly one full stop (or its own `?`, `!` or `…`)."""
    text = trim(text)
    if not text or text[-1] in "?!…":
        return text
    return text + "."


def error_text(exc: APIError, limit: int = 200, *, status: bool = False, fields: bool = True) -> str:
    """`Not authorized`, `Server error: HTTP 500: Simulated internal failure`: cleaned, no final full stop.

    The server's message is hostile text: it is cleaned (and cut at `limit`) here. `status` adds the
    HTTP status; `fields` adds a validation error's field problems in brackets.
    """
    kind = exc.kind
    if status and exc.status is not None:
        kind = f"{kind}: HTTP {exc.status}"
    said = _said(exc.kind, trim(clean(exc.message, limit)))
    text = kind if not said else f"{kind}: {said}"
    problems = getattr(exc, "fields", None) if fields else None
    if problems:
        details = "; ".join(f"{clean(f.field, 60)}: {trim(clean(f.message, 120))}" for f in problems[:10])
        more = f"; and {len(problems) - 10} more" if len(problems) > 10 else ""
        text = f"{text} ({details}{more})"
    return text


def _said(kind: str, message: str) -> str:
    """What the message adds to the kind ("" when it only repeats it)."""
    if not message or _same(message, kind):
        return ""
    head, colon, rest = message.partition(":")
    if colon and _same(head, kind):
        rest = trim(rest.strip())
        return "" if not rest or _same(rest, kind) else rest
    return message


def error_lines(exc: APIError) -> str:
    """The error's kind and the server's message, with each field problem on its own line."""
    if not isinstance(exc, ValidationFailed):
        return error_text(exc, 300, status=True)
    lines = [error_text(exc, 300, fields=False)]
    for problem in exc.fields:
        code = f" ({problem.code})" if problem.code else ""
        lines.append(f"  • {problem.field}: {problem.message}{code}")
    return "\n".join(lines)
