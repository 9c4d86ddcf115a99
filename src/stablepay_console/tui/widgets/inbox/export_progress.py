"""The RFI export while it runs: a progress line with a bar, Esc cancels, then where the file went.

It runs the export itself (a worker of this widget), so the inbox only asks for one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static
from textual.worker import Worker

from stablepay_console.api import APIError, StablePayClient
from stablepay_console.api.error_text import error_text
from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.export.requests import export_rfis
from stablepay_console.tui.formatters.text import clean, plain, toast_path
from stablepay_console.tui.modals.export_dialog import ExportChoice
from stablepay_console.tui.runtime.audit_hooks import audit_export
from stablepay_console.tui.runtime.deliveries import deliver_bytes, download_name, staged
from stablepay_console.tui.runtime.web_mode import in_browser


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
        where = download_name(path) if in_browser() else clean(path)
        self._say(Text(f"Starting export to {where} … Esc cancels"))

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

    # --- running -----------------------------------------------------------------

    worker: Worker[None] | None = None

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def export(self, client: StablePayClient, choice: ExportChoice, filters: RfiFilters) -> None:
        self.worker = self._run(client, choice, filters)

    @work(exclusive=True, group="rfi-export")
    async def _run(self, client: StablePayClient, choice: ExportChoice, filters: RfiFilters) -> None:
        if not in_browser():
            await self._export(client, choice, filters, choice.path)
            return
        with staged(choice.path.name) as path:  # in a browser: written in memory, then a download
            if await self._export(client, choice, filters, path):
                deliver_bytes(self.app, path.read_bytes(), path.name)

    async def _export(self, client: StablePayClient, choice: ExportChoice, filters: RfiFilters, path: Path) -> bool:
        """Run the export to `path`; True once it is complete."""
        self.start(path)
        try:
            result = await export_rfis(
                client,
                path,
                choice.fmt,
                filters,
                progress=self.progress,
                created_after=choice.created_after,
                created_before=choice.created_before,
            )
        except asyncio.CancelledError:
            self.finish(Text("Export cancelled; no file was written.", style="yellow"))
            self.notify("Export cancelled; no file was written.", timeout=3)
            audit_export(self, filters, choice.path, None, "cancelled")
            raise
        except (APIError, OSError) as exc:
            said = error_text(exc, 300, status=True) if isinstance(exc, APIError) else clean(str(exc), 300)
            self.finish(plain(f"Export failed, no file was written: {said}", style="bold red"))
            self.notify(f"Export failed, no file was written: {clean(said, 200)}", severity="error", markup=False)
            audit_export(self, filters, choice.path, None, f"failed: {type(exc).__name__}")
            return False
        audit_export(self, filters, choice.path, result.count)
        first, *rest = result.summary().split(" · ")
        if in_browser():  # say what the browser receives, never the server's folder
            said = " · ".join([f"{first}: your browser downloads {download_name(path)}", *rest])
            self.finish(Text(said, style="green"))
            self.notify(said, title="Export done", markup=False)
            return True
        said = " · ".join([f"{first} to {clean(result.path)}", *rest])
        warning = result.warning()
        self.finish(Text(said, style="green") + (Text(f"\n{clean(warning)}", style="yellow") if warning else Text()))
        toast = " · ".join([f"{first} to\n{toast_path(result.path)}", *rest])  # a path never broken mid-word
        self.notify(toast, title="Export done", markup=False)
        if warning:
            self.notify(clean(warning), title="Export: check the count", severity="warning", timeout=10, markup=False)
        return True
