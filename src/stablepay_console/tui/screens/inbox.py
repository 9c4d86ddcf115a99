"""The RFI inbox: the first page of requests, newest first."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from stablepay_console.api import APIError, RfiPage
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.text import ago, countdown, plain, short_id


class InboxScreen(ConsoleScreen):
    HELP = "RFI inbox: requests for information raised by compliance, newest first. `r` reloads."
    BINDINGS = [Binding("r", "reload", "Reload", id="inbox.reload", tooltip="Load the page again")]

    def compose_body(self) -> ComposeResult:
        yield Static("Loading…", id="inbox-status", classes="hint")
        yield DataTable(id="inbox-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Created", "Status", "Kind", "Subject", "User", "Round", "Deadline")
        self.load()

    def action_reload(self) -> None:
        self.load()

    def on_profile_changed(self) -> None:
        self.load()

    @work(exclusive=True, group="inbox-load")
    async def load(self) -> None:
        status = self.query_one("#inbox-status", Static)
        status.update("Loading…")
        try:
            page = await self.console.client.list_rfis()
        except APIError as exc:
            status.update(plain(f"{exc.kind}: {exc}", style="bold red"))
            return
        self.show(page)

    def show(self, page: RfiPage) -> None:
        now = self.console.now()
        table = self.query_one(DataTable)
        table.clear()
        for rfi in page.data:
            table.add_row(
                plain(ago(rfi.created_at, now)),
                plain(rfi.status),
                plain(rfi.kind),
                plain(rfi.subject_type),
                plain(short_id(rfi.user_id)),
                plain(rfi.current_round or ""),
                countdown(rfi.deadline, now),
                key=rfi.id,
            )
        p = page.pagination
        self.query_one("#inbox-status", Static).update(
            plain(f"Page {p.page} of {p.pages}, {p.total} total")
        )
