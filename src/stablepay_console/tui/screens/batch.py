"""Batch lookup: did every recipient of that batch transfer get paid?"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from stablepay_console.api import APIError
from stablepay_console.api.models import BatchTransfer
from stablepay_console.services.explorers import transaction_url
from stablepay_console.tui.formatters.text import clean, plain, when
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.batch_details import batch_rows
from stablepay_console.tui.widgets.batch_fields import FieldTable
from stablepay_console.tui.widgets.batch_id_entry import IdEntry
from stablepay_console.tui.widgets.batch_recipients import RecipientsTable, summary

READY = "Paste a transfer ID and press Enter, or pick one of your recent lookups."


class BatchScreen(ConsoleScreen):
    CSS_PATH = "../styles/batch.tcss"

    HELP = """\
## Batch lookup

Look up a batch crypto transfer by its ID: status, chain, token, source wallet,
the receipt's hashes, and every recipient with the count and the exact total.

- Type or paste the **transfer ID** and press **Enter**. It is checked first:
  a malformed ID is explained under the input and nothing is sent.
- **Recent lookups** (per profile) are in the list beside the input.
- **/** goes back to the ID input; **r** looks the shown transfer up again.
- **c** copies the selected row (any hash, address or ID; in the recipients
  table, that recipient's user ID). **t** copies the transaction hash.
- **o** opens the transaction in the chain's block explorer, where one is known.
"""

    BINDINGS = [
        Binding("slash", "edit_id", "Edit ID", id="batch.edit", tooltip="Type another transfer ID"),
        Binding("r", "reload", "Reload", id="batch.reload", tooltip="Fetch the shown transfer again"),
        Binding("c", "copy", "Copy", id="batch.copy", tooltip="Copy the selected hash, address or ID"),
        Binding("t", "copy_hash", "Copy hash", id="batch.copy_hash", tooltip="Copy the transaction hash"),
        Binding("o", "open_explorer", "Explorer", id="batch.explorer", tooltip="Open the transaction in the explorer"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.transfer: BatchTransfer | None = None

    def compose_body(self) -> ComposeResult:
        yield IdEntry("transfer ID", "recent_batches", id="batch-entry")
        yield Static(plain(READY), id="batch-status", classes="hint")
        with Vertical(id="batch-result"):
            yield FieldTable(id="batch-fields")
            yield Static("", id="batch-summary")
            yield RecipientsTable(id="batch-recipients")

    def on_mount(self) -> None:
        self.query_one("#batch-result").display = False
        self.load_recent()
        self.entry.input.focus()

    @property
    def entry(self) -> IdEntry:
        return self.query_one("#batch-entry", IdEntry)

    def load_recent(self) -> None:
        self.entry.load_recent(self.profile_name)

    def on_profile_changed(self) -> None:
        # Another environment: what is shown belongs to the old one. The typed ID stays.
        self.transfer = None
        self.query_one("#batch-result").display = False
        self.set_status(plain(READY))
        self.load_recent()
        self.refresh_bindings()

    def set_status(self, text: Text) -> None:
        self.query_one("#batch-status", Static).update(text)

    @on(IdEntry.Requested, "#batch-entry")
    def _requested(self, event: IdEntry.Requested) -> None:
        self.lookup(event.value)

    @work(exclusive=True, group="batch-lookup")
    async def lookup(self, transfer_id: str) -> None:
        self.set_status(plain(f"Looking up {transfer_id}…"))
        try:
            batch = await self.console.client.get_batch_transfer(transfer_id)
        except APIError as exc:
            self.show_error(exc)
            return
        self.show(batch)
        self.entry.remember(self.profile_name, transfer_id)

    def show_error(self, exc: APIError) -> None:
        """The server's message; whatever was shown before stays on screen."""
        message = Text.assemble((f"{exc.kind}: ", "bold red"), (clean(str(exc), 300), "red"))
        if self.transfer is not None:
            message.append(f"  (still showing {self.transfer.details.id})", style="italic")
        self.set_status(message)

    def show(self, batch: BatchTransfer) -> None:
        self.transfer = batch
        now = self.console.now()
        self.query_one("#batch-result").display = True
        self.query_one(FieldTable).show(batch_rows(batch, now))
        self.query_one(RecipientsTable).show(batch)
        self.query_one("#batch-summary", Static).update(summary(batch))
        self.set_status(plain(f"Batch transfer {batch.details.id}, fetched {when(now)}."))
        self.refresh_bindings()
        self.query_one(FieldTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("reload", "copy", "copy_hash", "open_explorer") and self.transfer is None:
            return None
        return True

    def action_edit_id(self) -> None:
        self.entry.input.focus()

    def action_reload(self) -> None:
        if self.transfer is not None:
            self.lookup(self.transfer.details.id)

    def action_copy(self) -> None:
        provider = getattr(self.focused, "copy_target", None)
        target = provider() if callable(provider) else None
        if target is None:
            self.notify("Select a row with a hash, address or ID first.", severity="warning", timeout=3)
            return
        value, what = target
        self.console.copy_with_notice(value, what)

    def action_copy_hash(self) -> None:
        if self.transfer is None:
            return
        tx_hash = self.transfer.details.receipt.transaction_hash
        if not tx_hash:
            self.notify("This transfer's receipt has no transaction hash.", severity="warning", timeout=3)
            return
        self.console.copy_with_notice(tx_hash, "transaction hash")

    def action_open_explorer(self) -> None:
        if self.transfer is None:
            return
        details = self.transfer.details
        url = transaction_url(details.chain, details.receipt.transaction_hash)
        if url is None:
            reason = (
                "This transfer's receipt has no transaction hash."
                if not details.receipt.transaction_hash
                else f"No block explorer is known for chain {clean(details.chain, 40)}; copy the hash with t instead."
            )
            self.notify(reason, title="No explorer", severity="warning", timeout=5, markup=False)
            return
        self.console.open_link(url, f"{details.chain.title()} explorer link")
