"""The one sanitiser for text that came from a server, a file or a paste.

Server text is hostile until cleaned: ESC and every other C0/C1 control, bidi
overrides and isolates, line and paragraph separators, zero-width and other
format characters are shown as visible escapes, so nothing reaches a terminal,
a clipboard, a log, an export or a state file raw.
"""

from __future__ import annotations

import unicodedata

_BIDI = {"\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f"}


def clean(value: object, max_len: int | None = None) -> str:
    """Printable text: control and bidi-override characters shown as escapes, optionally cut."""
    text = "" if value is None else str(value)
    out = []
    for ch in text:
        if _unsafe(ch):
            out.append(ch.encode("unicode_escape").decode("ascii"))
        else:
            out.append(ch)
    result = "".join(out)
    if max_len is not None and len(result) > max_len:
        result = result[: max(1, max_len - 1)] + "…"
    return result


def _unsafe(ch: str) -> bool:
    return ch in _BIDI or (unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") and ch != "\u200d")


def has_control(text: str, allow: str = "") -> bool:
    """Whether `text` holds a control, format or bidi-override character (an escape sequence starts with one)."""
    return any(_unsafe(ch) for ch in text if ch not in allow)
