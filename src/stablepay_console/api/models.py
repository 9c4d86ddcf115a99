"""Pydantic models of every resource of the API (spec section 2).

Attributes are snake_case, the wire is camelCase. Open sets (statuses, kinds,
doc types, chains, currencies, templates) are plain strings so that a value
the server adds tomorrow is kept as it is; extra fields are kept too.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, Field, PlainSerializer

from stablepay_console.api.metric_models import (
    DateRange as DateRange,
)
from stablepay_console.api.metric_models import (
    MetricFilter as MetricFilter,
)
from stablepay_console.api.metric_models import (
    MetricMetadata as MetricMetadata,
)
from stablepay_console.api.metric_models import (
    MetricResult as MetricResult,
)
from stablepay_console.api.metric_models import (
    MetricRow as MetricRow,
)
from stablepay_console.api.metric_models import (
    MetricValue as MetricValue,
)
from stablepay_console.api.numbers import SENT_AS_STRING, exact_sum, usable_number
from stablepay_console.api.vocabulary import RFI_KINDS as RFI_KINDS
from stablepay_console.api.vocabulary import RFI_STATUSES as RFI_STATUSES
from stablepay_console.api.wire import DateOrTime as DateOrTime
from stablepay_console.api.wire import Expiry as Expiry
from stablepay_console.api.wire import Timestamp as Timestamp
from stablepay_console.api.wire import WireModel as WireModel

SUBJECT_TYPES = ("individual", "business")
FLOW_TYPES = ("onramp", "offramp")
ITEM_KINDS = ("document", "question")
DOC_TYPES = {
    "proof_of_address": "Proof of address",
    "source_of_funds": "Source of funds",
    "bank_statement": "Bank statement",
    "government_id": "Government ID",
    "selfie": "Selfie",
    "incorporation_docs": "Incorporation documents",
    "ownership_structure": "Ownership structure",
    "invoice": "Invoice",
    "contract": "Contract",
}
BATCH_TRANSFER_TYPE = "WALLET.TRANSFER.BATCH"
ONRAMP_TRANSFER_TYPE = "ONRAMP"
OPEN_QUOTE = "OPEN_QUOTE"


# --- RFIs (2.1 - 2.4) -------------------------------------------------------


class RfiItem(WireModel):
    id: str
    kind: str
    label: str
    doc_type: str | None = None
    detail: str | None = None
    required: bool = False

    @property
    def doc_type_name(self) -> str:
        """The document kind in plain words; unknown values read as an untyped request."""
        if self.doc_type is None:
            return "Document (no standard type)" if self.kind == "document" else ""
        known = DOC_TYPES.get(self.doc_type)
        if known:
            return known
        return f"Document (untyped: {self.doc_type})"


class RfiRound(WireModel):
    id: str
    round: int
    issued_at: Timestamp
    expires_at: Timestamp | None = None
    submitted_at: Timestamp | None = None
    items: list[RfiItem] = Field(default_factory=list)
    link: str | None = None


class Rfi(WireModel):
    id: str
    kind: str
    status: str
    subject_type: str
    user_id: str | None = None
    transfer_id: str | None = None
    flow_type: str | None = None
    created_at: Timestamp
    current_round: int | None = None
    round: RfiRound | None = None

    @property
    def deadline(self) -> datetime | None:
        """The current round's reply deadline, if a round is open and has one."""
        return self.round.expires_at if self.round is not None else None


def _not_below_zero(value: int) -> int:
    return max(0, value)


Count = Annotated[int, AfterValidator(_not_below_zero)]
"""A count or position the server sends: a negative one reads as 0 (it would make the next request invalid)."""


class Pagination(WireModel):
    """As the server sent it, except that negative values read as 0; `limit` may still be 0 and `total` anything."""

    limit: Count
    offset: Count
    total: Count

    @property
    def page(self) -> int:
        """1-based number of this page."""
        return self.offset // self.limit + 1 if self.limit > 0 else 1

    @property
    def pages(self) -> int:
        """How many pages of this size the total fills (at least 1)."""
        if self.limit <= 0:
            return 1
        return max(1, -(-self.total // self.limit))


class RfiPage(WireModel):
    data: list[Rfi]
    pagination: Pagination


# --- Transfers (2.5, 2.6) -----------------------------------------------------


StringDecimal = Annotated[Decimal, SENT_AS_STRING, PlainSerializer(str, return_type=str, when_used="json")]
"""A decimal the spec sends as a JSON string (batch amounts, quote amounts and rate): written back as that string.
Every other decimal (an onramp's `source.amount`, metric values) goes out as a JSON number with all its digits."""


class BatchRecipient(WireModel):
    amount: StringDecimal
    user_id: str


class BatchDestination(WireModel):
    batch: list[BatchRecipient] = Field(default_factory=list)


class BatchSource(WireModel):
    user_id: str
    wallet_address: str
    wallet_type: str


class BatchReceipt(WireModel):
    transaction_hash: str | None = None
    user_op_hash: str | None = None


class BatchTransferDetails(WireModel):
    id: str
    request_id: str
    created_at: Timestamp
    updated_at: Timestamp
    chain: str
    currency: str
    contract_address: str
    status: str
    source: BatchSource
    destination: BatchDestination
    receipt: BatchReceipt = Field(default_factory=BatchReceipt)


class BatchTransfer(WireModel):
    """The envelope `{transferType, transferDetails}` of a batch crypto transfer."""

    exact_numbers: ClassVar[bool] = True

    transfer_type: str = BATCH_TRANSFER_TYPE
    transfer_details: BatchTransferDetails

    @property
    def details(self) -> BatchTransferDetails:
        return self.transfer_details

    @property
    def total(self) -> Decimal | None:
        """The exact sum of the amounts (no rounding, whatever their size); None if one is unreadable."""
        return exact_sum(r.amount for r in self.transfer_details.destination.batch)

    @property
    def unreadable_amounts(self) -> int:
        """Recipients whose amount parsed but cannot be added up (`1e999999999`, `NaN`)."""
        return sum(1 for r in self.transfer_details.destination.batch if not usable_number(r.amount))


class PartyUser(WireModel):
    email: str | None = None
    last_name: str | None = None
    first_name: str | None = None
    business_name: str | None = None

    @property
    def display_name(self) -> str:
        person = " ".join(p for p in (self.first_name, self.last_name) if p)
        return self.business_name or person or self.email or ""


class OnrampSource(WireModel):
    user_id: str
    currency: str
    amount: Decimal | None = None
    account_id: Any = None
    user: PartyUser | None = None
    bank_info: Any = None


class OnrampDestination(WireModel):
    user_id: str
    currency: str
    chain: str
    wallet_address: str
    external_wallet_id: Any = None
    amount: Decimal | None = None
    user: PartyUser | None = None


class Money(WireModel):
    amount: StringDecimal
    currency: str

    def __str__(self) -> str:
        return f"{self.amount} {self.currency.upper()}"


class QuoteInformation(WireModel):
    send_gross: Money
    send_net: Money
    rail_fee: Money
    receive_gross: Money
    receive_net: Money
    rate: StringDecimal
    expires_at: Expiry = None


class OnrampReceipt(WireModel):
    transaction_hash: str | None = None


class OnrampTransferDetails(WireModel):
    id: str
    request_id: str
    created_at: Timestamp
    updated_at: Timestamp
    status: str
    failed_reason: Any = None
    source: OnrampSource
    destination: OnrampDestination
    receipt: OnrampReceipt | None = None
    developer_fee: Any = None
    virtual_account_id: str | None = None
    quote_information: QuoteInformation | None = None
    deposit_info: Any = None


class OnrampTransfer(WireModel):
    """The envelope `{transferType, transferDetails}` of an onramp."""

    exact_numbers: ClassVar[bool] = True

    transfer_type: str = ONRAMP_TRANSFER_TYPE
    transfer_details: OnrampTransferDetails

    @property
    def details(self) -> OnrampTransferDetails:
        return self.transfer_details

    @property
    def quote(self) -> QuoteInformation | None:
        return self.transfer_details.quote_information


# --- Ping (2.8) ---------------------------------------------------------------


class Pong(WireModel):
    message: str
