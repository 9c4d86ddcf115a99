"""One-line hooks into the local record for the app and for widgets that only know `self.app`."""

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


def announce_record_notices(app: ConsoleApp) -> None:
    """Say in the console when the record set a damaged file aside, or cannot be used (a newer console's)."""

    def say(text: str, refused: bool) -> None:
        if refused:
            text += " The console works on, but records nothing until then."
        severity = "error" if refused else "warning"
        try:
            app.call_from_thread(app.notify, text, title="Local record", severity=severity, timeout=30, markup=False)
        except RuntimeError:  # the console has already closed: the log has it
            pass

    app.services.record.on_notice = say
