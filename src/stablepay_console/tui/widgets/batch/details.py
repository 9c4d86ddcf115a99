"""What a batch transfer is, as copyable rows: status, chain, token, source, receipt, explorer."""

from __future__ import annotations

from datetime import datetime

from stablepay_console.api.models import BatchTransfer
from stablepay_console.services.explorers import transaction_url
from stablepay_console.tui.formatters.text import ago, when
from stablepay_console.tui.widgets.batch.fields import FieldRow, field

EXPLORER_ROW = "Explorer"


def stamp(value: datetime, now: datetime) -> str:
    return f"{when(value)} ({ago(value, now)})"


def explorer_row(batch: BatchTransfer) -> FieldRow:
    details = batch.details
    url = transaction_url(details.chain, details.receipt.transaction_hash)
    if url is not None:
        return field(EXPLORER_ROW, url, copy=True)
    if not details.receipt.transaction_hash:
        return field(EXPLORER_ROW, "no transaction hash in the receipt", style="italic")
    return field(EXPLORER_ROW, f"no block explorer known for chain {details.chain}", style="yellow")


def batch_rows(batch: BatchTransfer, now: datetime) -> list[FieldRow]:
    d = batch.details
    return [
        field("Status", d.status, style="bold"),
        field("Chain", d.chain),
        field("Currency", d.currency.upper()),
        field("Token contract", d.contract_address, copy=True),
        field("Created", stamp(d.created_at, now)),
        field("Updated", stamp(d.updated_at, now)),
        field("Transfer ID", d.id, copy=True),
        field("Request ID", d.request_id, copy=True),
        field("Source user", d.source.user_id, copy=True),
        field("Source wallet", d.source.wallet_address, copy=True),
        field("Wallet type", d.source.wallet_type),
        field("Transaction hash", d.receipt.transaction_hash, copy=True),
        field("User-op hash", d.receipt.user_op_hash, copy=True),
        explorer_row(batch),
    ]
