"""How long ago the team watcher swept, in words: what the radar, the needs-action view and `rfis due` say."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stablepay_console.storage.record_types import Sweep


def ago(sweep: Sweep) -> str:
    """How long ago the watcher swept: `40 s ago`, `3 min ago`."""
    age = int(sweep.age_seconds)
    return f"{age} s ago" if age < 120 else f"{age // 60} min ago"
