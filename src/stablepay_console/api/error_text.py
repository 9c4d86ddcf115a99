"""One way to say what went wrong: the kind once, the server's message once, no doubled punctuation.

`Unauthorized("Not authorized")` reads "Not authorized", not "Not authorized: Not authorized";
a server message ending in a full stop can be put in brackets without giving ".).".
"""

from __future__ import annotations

import re

from stablepay_console.api.errors import APIError
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


def error_text(exc: APIError, limit: int = 200) -> str:
    """`Not authorized`, `Server error: Simulated internal failure`: cleaned, without a final full stop.

    The server's message is hostile text: it is cleaned (and cut at `limit`) here.
    """
    kind = exc.kind
    message = trim(clean(exc.message, limit))
    if not message or _same(message, kind):
        return kind
    head, colon, rest = message.partition(":")
    if colon and _same(head, kind):
        rest = trim(rest.strip())
        return f"{kind}: {rest}" if rest and not _same(rest, kind) else kind
    if _letters(message).startswith(_letters(kind)):
        return message
    return f"{kind}: {message}"
