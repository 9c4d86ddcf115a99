"""Export from the inbox: the dialog that asks where to, and the progress line while it runs."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, ProgressBar, Select, Static

from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.export import FORMATS, default_export_name, resolve_export_path
from stablepay_console.tui.formatters.text import clean, typed_path

ExportChoice = tuple[str, Path]


class ExportDialog(ModalScreen[ExportChoice | None]):
    """Format and file name; the path is checked here so the export never starts on a bad one."""

    CSS_PATH = "../styles/inbox.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="export.cancel", tooltip="Close without exporting")]
    HELP = "Export every request matching the inbox filters, all pages. Blank name: the default in this folder."

    def __init__(self, filters: RfiFilters, now: datetime, cwd: Path | None = None) -> None:
        super().__init__()
        self.filters = filters
        self.now = now
        self.cwd = cwd if cwd is not None else Path.cwd()
        self.fmt = "csv"

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Static("Export requests (all pages)", classes="title")
            yield Static(Text("Filters: " + clean(self.filters.describe())), classes="hint")
            yield Static(Text(f"Folder: {clean(self.cwd)}"), classes="hint")
            with Horizontal(id="export-row"):
                yield Select([(f.upper(), f) for f in FORMATS], allow_blank=False, value="csv", id="export-format")
                yield Input(value=self._default(), id="export-path", tooltip="File name or path; Enter exports")
            yield Static("", id="export-error", classes="error")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    def _default(self) -> str:
        return default_export_name(self.filters, self.fmt, self.now)

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
        try:
            path = resolve_export_path(typed_path(text), self.fmt, self._default(), self.cwd)
        except ValueError as exc:
            self.query_one("#export-error", Static).update(Text(clean(str(exc), 300)))
            return
        self.dismiss((self.fmt, path))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ExportProgress(Horizontal):
    """`Exporting 120 / 240 … Esc cancels` with a bar; after the run, where the file went."""

    def compose(self) -> ComposeResult:
        yield Static("", id="export-label")
        yield ProgressBar(id="export-bar", show_eta=False)

    def on_mount(self) -> None:
        self.display = False

    def start(self, path: Path) -> None:
        self.display = True
        self.add_class("-running")
        bar = self.query_one(ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self._say(Text(f"Starting export to {clean(path)} … Esc cancels"))

    def progress(self, done: int, total: int) -> None:
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)
        self._say(Text(f"Exporting {done} / {total} … Esc cancels"))

    def finish(self, message: Text) -> None:
        self.remove_class("-running")
        self.query_one(ProgressBar).display = False
        self._say(message)

    def _say(self, text: Text) -> None:
        self.query_one("#export-label", Static).update(text)

    @property
    def text(self) -> str:
        return str(self.query_one("#export-label", Static).render())
