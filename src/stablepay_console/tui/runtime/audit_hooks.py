"""One-line hooks into the local record for the app and for widgets that only know `self.app`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual.dom import DOMNode

from stablepay_console.api.filters import RfiFilters
from stablepay_console.storage.writing import NOT_WRITTEN

if TYPE_CHECKING:
    from stablepay_console.tui.console import Console


def audit_export(
    node: DOMNode, what: RfiFilters | str, path: Path, count: int | None, problem: str = "", target: str = ""
) -> None:
    """An export from the console: what was exported (filters), the file, how many, or why none."""
    console = cast("Console", node.app)
    console.services.audit.exported(console.profile, what, path, count, problem, target=target)


def announce_record_notices(app: Console) -> None:
    """Say in the console when the record set a damaged file aside, or cannot be used (a newer console's),
    and, once each, what a full or read-only disk kept from being written (the log, the record)."""

    def say(text: str, refused: bool) -> None:
        if refused:
            text += " The console works on, but records nothing until then."
        severity = "error" if refused else "warning"
        try:
            title = "Team record" if app.services.team is not None else "Local record"
            app.call_from_thread(app.notify, text, title=title, severity=severity, timeout=30, markup=False)
        except RuntimeError:  # the console has already closed: the log has it
            pass

    app.services.record.on_notice = say
    if app.services.team is not None:
        from stablepay_console.tui.team_live import start_team_live

        start_team_live(app)
    loop = asyncio.get_running_loop()

    def not_written(line: str) -> None:  # from any thread: the log's, the record's, the UI's own
        try:
            loop.call_soon_threadsafe(
                lambda: app.notify(line, title="Not saved", severity="error", timeout=30, markup=False)
            )
        except RuntimeError:  # the console has already closed: the log (if it could) has it
            pass

    NOT_WRITTEN.listen(not_written)
