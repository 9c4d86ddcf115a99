"""Downloads a console delivers (an export): only to the browser sign-in whose console made it, always as
an attachment with a safe file name, never rendered in the page's origin.
"""

from __future__ import annotations

import re

SAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 120
TYPES = {"text/csv", "application/json", "text/plain", "application/zip"}
"""Content types a download keeps; any other is sent as bytes (application/octet-stream)."""


def safe_file_name(name: object) -> str:
    """Letters, digits, `.`, `_` and `-` only, no leading dot, at most MAX_NAME characters."""
    text = SAFE.sub("_", str(name or "")).strip("._")[:MAX_NAME]
    return text or "download"


def download_headers(file_name: object, mime_type: object, encoding: object) -> dict[str, str]:
    content_type = str(mime_type) if mime_type in TYPES else "application/octet-stream"
    if encoding and content_type != "application/octet-stream":
        content_type += "; charset=utf-8"
    return {
        "Content-Type": content_type,
        "Content-Disposition": f'attachment; filename="{safe_file_name(file_name)}"',
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox; default-src 'none'",
        "Cache-Control": "no-store",
    }
