"""The one sanitiser for text that came from a server, a file or a paste.

Server text is hostile until cleaned. `clean` shows as visible escapes (`\\x1b`,
`\\u202e`) every character that can act on a terminal or hide what text says:

- ESC and every other C0 and C1 control, DEL (category Cc): escape sequences
  (CSI, OSC 52 clipboard writes, OSC 8 links, window titles) start with one;
- format characters (Cf): bidi overrides, embeddings, isolates and marks, and
  the zero-width space, non-joiner, joiner, word joiner and BOM;
- the line and paragraph separators U+2028 and U+2029 (Zl, Zp);
- surrogates and private-use characters (Cs, Co), and the invisible Hangul fillers.

Nothing else is changed: letters of any script, emoji, spaces and punctuation pass
through as they are. `json_safe` does the same for JSON text with JSON's own
`\\uXXXX` escapes, so an export file is safe to `cat` and still decodes to the
server's exact strings.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
INVISIBLE_FILLERS = frozenset({"\u115f", "\u1160", "\u3164", "\uffa0"})


@lru_cache(maxsize=4096)
def is_unsafe(ch: str) -> bool:
    """Whether this one character must never reach a terminal, clipboard, log or file raw."""
    return unicodedata.category(ch) in UNSAFE_CATEGORIES or ch in INVISIBLE_FILLERS


def is_plain(text: str) -> bool:
    """Whether `text` is safe as it is (`clean` would return it unchanged, length aside)."""
    # str.isprintable() is False for every Cc, Cf, Cs, Co, Zl and Zp character (and for spaces
    # other than U+0020, which are harmless): printable text needs no per-character look. The
    # invisible fillers are all outside ASCII, so ASCII text needs no look for them either.
    return text.isprintable() and (text.isascii() or not any(ch in INVISIBLE_FILLERS for ch in text))


def escape_char(ch: str) -> str:
    """`\\x1b`, `\\u202e`, `\\U000f0000` (`\\n`, `\\t`, `\\r` for those three)."""
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii")


def clean(value: object, max_len: int | None = None) -> str:
    """Printable text: unsafe characters shown as escapes; cut to `max_len` with an ellipsis."""
    text = "" if value is None else str(value)
    if not is_plain(text):
        text = "".join(escape_char(ch) if is_unsafe(ch) else ch for ch in text)
    if max_len is not None and len(text) > max_len:
        text = text[: max(1, max_len - 1)] + "…"
    return text


def has_control(text: str, allow: str = "") -> bool:
    """Whether `text` holds an unsafe character (an escape sequence starts with one), `allow` aside."""
    return not is_plain(text) and any(is_unsafe(ch) for ch in text if ch not in allow)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_safe(json_text: str) -> str:
    """JSON text (one line, as json.dumps writes it) with every unsafe character as a `\\uXXXX` escape.

    Inside a string that is the same value once decoded; json.dumps writes no unsafe character
    outside strings.
    """
    if is_plain(json_text):
        return json_text
    return "".join(_json_escape(ch) if is_unsafe(ch) else ch for ch in json_text)
