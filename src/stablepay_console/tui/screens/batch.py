"""Batch lookup: did every recipient of that batch transfer get paid?"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from stablepay_console.api import APIError
from stablepay_console.api.models import BatchTransfer
from stablepay_console.services.explorers import transaction_url
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.screens.lookup import LookupScreen
from stablepay_console.tui.widgets.batch.details import batch_rows
from stablepay_console.tui.widgets.batch.fields import FieldTable
from stablepay_console.tui.widgets.batch.recipients import RecipientsTable, summary
from stablepay_console.tui.widgets.id_entry import IdEntry
from stablepay_console.tui.widgets.result_status import ResultStatus

READY = "/ or Enter: type a transfer ID (or paste one), then Enter; or pick one of your recent lookups or a sample."


class BatchScreen(LookupScreen[BatchTransfer]):
    CSS_PATH = "../styles/batch.tcss"

    HELP = """\
## Batch lookup

Look up a batch crypto transfer by its ID: status, chain, token, source wallet,
the receipt's hashes, and every recipient with the count and the exact total.

- **/** or **Enter** to type the **transfer ID** (or paste it), then **Enter**; **Esc** leaves the field,
  so the digits switch screens again. It is checked first:
  a malformed ID is explained under the input and nothing is sent.
- **Recent lookups** (per profile) are in the list beside the input.
- **/** goes back to the ID input; **r** looks up again the transfer the line under the input names
  (after a failure, the one that failed, not the one still greyed on screen).
- **c** copies the selected row (any hash, address or ID; in the recipients
  table, that recipient's user ID). **t** copies the transaction hash.
- **o** opens the transaction in the chain's block explorer, where one is known.
"""

    BINDINGS = [
        Binding("slash,enter", "edit_id", "Type ID", id="batch.edit", tooltip="Type a transfer ID"),
        Binding("r", "reload", "Reload", id="batch.reload", tooltip="Fetch the shown transfer again"),
        Binding("c", "copy", "Copy", id="batch.copy", tooltip="Copy the selected hash, address or ID"),
        Binding("t", "copy_hash", "Copy hash", id="batch.copy_hash", tooltip="Copy the transaction hash"),
        Binding("o", "open_explorer", "Explorer", id="batch.explorer", tooltip="Open the transaction in the explorer"),
    ]

    ENTRY, STATUS, RESULT = "#batch-entry", "#batch-status", "#batch-result"
    COPY_HINT = "Select a row with a hash, address or ID first."

    def compose_body(self) -> ComposeResult:
        yield IdEntry("transfer ID", "recent_batches", id="batch-entry")
        yield ResultStatus(READY, id="batch-status", classes="hint")
        with Vertical(id="batch-result"):
            yield FieldTable(id="batch-fields")
            yield Static("", id="batch-summary")
            yield RecipientsTable(id="batch-recipients")

    def on_mount(self) -> None:
        self.render_status()
        self.load_recent()

    def load_recent(self) -> None:
        profile = self.console.profile
        samples = self.console.services.sample_ids(profile, "batch") if profile is not None else []
        self.entry.load_recent(self.profile_name, samples)

    @property
    def transfer(self) -> BatchTransfer | None:
        return self.shown.value if self.shown is not None else None

    @on(IdEntry.Requested, "#batch-entry")
    def _requested(self, event: IdEntry.Requested) -> None:
        self.lookup(event.value)

    @work(exclusive=True, group="batch-lookup")
    async def lookup(self, transfer_id: str) -> None:
        self.begin(f"Looking up transfer {transfer_id}…")
        try:
            batch = await self.console.client.get_batch_transfer(transfer_id)
        except APIError as exc:
            self.failed(exc, transfer_id, f"transfer {transfer_id}")
            return
        self.succeeded(batch, transfer_id, f"transfer {transfer_id}")
        self.show(batch)

    def show(self, batch: BatchTransfer) -> None:
        now = self.console.now()
        self.render_status()
        self.query_one(FieldTable).show(batch_rows(batch, now))
        recipients = self.query_one(RecipientsTable)
        recipients.show(batch)
        self.query_one("#batch-summary", Static).update(summary(batch))
        self.refresh_bindings()
        recipients.focus()  # the row that matters: the first recipient

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reload":
            return True if self.retry_id is not None else None
        if action in ("copy", "copy_hash", "open_explorer") and self.transfer is None:
            return None
        return True

    def action_reload(self) -> None:
        # The transfer the status line names: after a failure the one that failed, not the one greyed.
        if self.retry_id is not None:
            self.lookup(self.retry_id)

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
        outcome = self.console.open_link(url, f"{details.chain.title()} explorer link")
        self.console.services.audit.append("link.open", self.console.profile, target=details.id, outcome=outcome,
                                           what="explorer link")
