"""The audit log's hash chain: each entry's hash covers the previous entry's hash and its own content.

Change an entry and its own hash no longer matches; remove or reorder entries and the next one's
`prev_hash` no longer names the entry before it; cut off the tail and the head kept beside the log
no longer matches its end.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64
"""The `prev_hash` of the first entry."""


def canonical(content: dict[str, Any]) -> bytes:
    """One byte string per content: sorted keys, no spaces, ASCII only."""
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def entry_hash(prev_hash: str, content: dict[str, Any]) -> str:
    """SHA-256 (hex) of the previous entry's hash and this entry's canonical content."""
    digest = hashlib.sha256()
    digest.update(prev_hash.encode("ascii", "replace"))
    digest.update(b"\n")
    digest.update(canonical(content))
    return digest.hexdigest()
