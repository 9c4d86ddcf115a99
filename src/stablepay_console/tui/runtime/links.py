"""Links from a server, before a browser or the clipboard gets them.

A link is server text: `o` hands it to the system's browser opener, which would run a
`file:`, `javascript:` or custom-scheme URL, or one that smuggles control characters. Only
`https://` links (and `http://` to a loopback address, the local sandbox) are opened or
copied; anything else is refused with a message that shows the link escaped.
"""

from __future__ import annotations

from stablepay_console.api.sanitize import clean
from stablepay_console.api.urls import safe_link


class LinkRefused(ValueError):
    """The link may not be opened or copied; the message says why, safe to show."""


def checked_link(url: object, what: str = "link") -> str:
    """The link to hand to a browser or the clipboard, or LinkRefused saying why not (in words, escaped)."""
    text = url if isinstance(url, str) else ""
    try:
        checked = safe_link(text)
    except ValueError as exc:
        reason = clean(str(exc), 240)
        raise LinkRefused(f"The {clean(what, 60)} was refused. {reason}") from None
    return clean(checked)
