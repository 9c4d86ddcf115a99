"""Exports: the one dialog that asks where to (RFIs and metric data), and the progress line while one runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Select, Static

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.validation import check_day_range, parse_day
from stablepay_console.services.export.requests import FORMATS, default_export_name, resolve_export_path
from stablepay_console.tui.formatters.text import clean, typed_path
from stablepay_console.tui.modals.base import ConsoleModal
from stablepay_console.tui.runtime.web_mode import in_browser


@dataclass(frozen=True)
class ExportChoice:
    fmt: str
    path: Path
    created_after: datetime | None = None
    created_before: datetime | None = None
    """A half-open range of creation days (UTC), for the RFI export; None means open."""


class ExportDialog(ConsoleModal[ExportChoice | None]):
    """The one export dialog (RFIs and metric data): format and file name, checked before anything runs.

    Both exports go to the same folder (the current one unless a path is typed), are named by the
    same rules (what was exported, then the time), and are written as `.part` then renamed.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting")]
    HELP = "Choose the format and the file name; a blank name means the default in this folder. Escape closes."

    def __init__(
        self,
        title: str,
        description: str,
        default_name: Callable[[str], str],
        formats: tuple[str, ...] = FORMATS,
        cwd: Path | None = None,
        date_range: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.description = description
        self.default_name = default_name
        """The default file name for a format."""
        self.formats = formats
        self.cwd = cwd if cwd is not None else Path.cwd()
        self.fmt = formats[0]
        self.date_range = date_range
        """Ask for a creation-date range (the RFI export: the API has no date filter of its own)."""

    @classmethod
    def for_rfis(cls, filters: RfiFilters, now: datetime, cwd: Path | None = None) -> ExportDialog:
        return cls(
            "Export requests (all pages)",
            "Filters: " + filters.describe(),
            lambda fmt: default_export_name(filters, fmt, now),
            cwd=cwd,
            date_range=True,
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="modal-box"):
            yield Static(Text(clean(self.title_text, 80)), classes="modal-title")
            yield Static(Text(clean(self.description, 200)), classes="hint")
            if in_browser():
                yield Static(Text("Delivered to your browser as a download."), classes="hint")
            else:
                yield Static(Text(f"Folder: {clean(self.cwd)}"), classes="hint")
            with Horizontal(id="export-row"):
                yield Select(
                    [(f.upper(), f) for f in self.formats], allow_blank=False, value=self.fmt, id="export-format"
                )
                yield Input(value=self._default(), id="export-path", tooltip="File name or path; Enter exports")
            if self.date_range:
                with Horizontal(id="export-range"):
                    yield Input(placeholder="created on/after YYYY-MM-DD", id="export-after",
                                tooltip="Only requests created on or after this day (UTC); blank: no start")
                    yield Input(placeholder="created before YYYY-MM-DD", id="export-before",
                                tooltip="Only requests created before this day (UTC); blank: up to now")
            yield Static("", id="export-error", classes="modal-error")
            with Horizontal(id="export-buttons", classes="modal-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def _default(self) -> str:
        return self.default_name(self.fmt)

    def on_select_changed(self, event: Select.Changed) -> None:
        path = self.query_one("#export-path", Input)
        was_default = path.value == self._default()
        self.fmt = str(event.value)
        if was_default:
            path.value = self._default()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._go()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export-go":
            self._go()
        else:
            self.dismiss(None)

    def _go(self) -> None:
        text = self.query_one("#export-path", Input).value
        after = before = None
        try:
            if self.date_range:
                after = parse_day(self.query_one("#export-after", Input).value, "start day")
                before = parse_day(self.query_one("#export-before", Input).value, "end day")
                check_day_range(after, before)
            path = resolve_export_path(typed_path(text), self.fmt, self._default(), self.cwd)
        except ValueError as exc:
            self.query_one("#export-error", Static).update(Text(clean(str(exc), 300)))
            return
        self.dismiss(ExportChoice(self.fmt, path, after, before))

    def action_cancel(self) -> None:
        self.dismiss(None)
