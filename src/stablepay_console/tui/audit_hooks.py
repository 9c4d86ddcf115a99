"""One-line audit hooks for widgets that only know `self.app` (the entry goes to the record's thread)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

from stablepay_console.api.filters import RfiFilters

if TYPE_CHECKING:
    from stablepay_console.tui.app import ConsoleApp


def audit_export(
    node: DOMNode, what: RfiFilters | str, path: Path, count: int | None, problem: str = "", target: str = ""
) -> None:
    """An export from the console: what was exported (filters), the file, how many, or why none."""
    console = cast("ConsoleApp", node.app)
    console.services.audit.exported(console.profile, what, path, count, problem, target=target)
