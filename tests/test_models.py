"""The pydantic models read the wire of spec section 2 exactly: camelCase in, snake_case out, open sets open."""

from __future__ import annotations

import copy
import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from stablepay_console.api import (
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    Pagination,
    Pong,
    QuoteInformation,
    Rfi,
    RfiItem,
    RfiPage,
    RfiRound,
)
from stablepay_console.api.client import decode

RFI_WIRE: dict[str, Any] = {
    "id": "616499c9-e25a-4605-aec6-f0245bd86d40",
    "kind": "transaction",
    "status": "issued",
    "subjectType": "business",
    "userId": "0cb1e29c-658c-4a14-95e6-0af593bd04cf",
    "transferId": "5d0a3c1e-2b4f-4e6a-8c9d-0e1f2a3b4c5d",
    "flowType": "offramp",
    "createdAt": "2026-11-20T08:40:15Z",
    "currentRound": 2,
    "round": {
        "id": "14a0f9e7-7f1b-403c-9f15-82b0eab477d2",
        "round": 2,
        "issuedAt": "2026-11-20T08:45:15+00:00",
        "expiresAt": "2026-11-21T09:39:15Z",
        "submittedAt": None,
        "items": [
            {
                "id": "230d977e-e225-4159-8720-771f8ca81811",
                "kind": "document",
                "label": "Invoice for the goods or services paid",
                "docType": "invoice",
                "detail": "Must show both parties",
                "required": False,
            },
            {
                "id": "b4d66a3a-4746-4a4d-8cdb-305fdd2e1609",
                "kind": "question",
                "label": "What is the purpose of this transfer?",
                "docType": None,
                "detail": None,
                "required": True,
            },
        ],
        "link": "https://sandbox.stablepay.example/rfi/respond/6415479c",
    },
}

BATCH_WIRE: dict[str, Any] = {
    "transferType": "WALLET.TRANSFER.BATCH",
    "transferDetails": {
        "id": "6f1c2a10-5b7e-4c1d-9a33-000000000003",
        "requestId": "0e7d1c55-7a3b-4c2d-9e1f-123456789abc",
        "createdAt": "2026-11-01T10:00:00Z",
        "updatedAt": "2026-11-01T10:03:20+00:00",
        "chain": "POLYGON",
        "currency": "usdc",
        "contractAddress": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
        "status": "COMPLETED",
        "source": {
            "userId": "0cb1e29c-658c-4a14-95e6-0af593bd04cf",
            "walletAddress": "0xabc",
            "walletType": "INDIVIDUAL",
        },
        "destination": {
            "batch": [
                {"amount": "10.10", "userId": "0cb1e29c-658c-4a14-95e6-0af593bd04cf"},
                {"amount": "0.20", "userId": "1cb1e29c-658c-4a14-95e6-0af593bd04cf"},
            ]
        },
        "receipt": {"transactionHash": "0xhash", "userOpHash": "0xop"},
    },
}

MONEY = {"amount": "1000.00", "currency": "usd"}

QUOTE_WIRE: dict[str, Any] = {
    "sendGross": MONEY,
    "sendNet": {"amount": "995.00", "currency": "usd"},
    "railFee": {"amount": "5.00", "currency": "usd"},
    "receiveGross": {"amount": "993.71", "currency": "usdc"},
    "receiveNet": {"amount": "993.71", "currency": "usdc"},
    "rate": "0.9987",
    "expiresAt": "N/A",
}

PERSON = {"email": "ana@example.com", "lastName": "Silva", "firstName": "Ana", "businessName": None}

ONRAMP_WIRE: dict[str, Any] = {
    "transferType": "ONRAMP",
    "transferDetails": {
        "id": "2b7d9e40-8c1a-4f6e-b2d5-00000000a001",
        "requestId": "3b7d9e40-8c1a-4f6e-b2d5-00000000a001",
        "createdAt": "2026-11-20T07:00:00+00:00",
        "updatedAt": "2026-11-20T07:00:00Z",
        "status": "OPEN_QUOTE",
        "failedReason": None,
        "source": {
            "userId": "0cb1e29c-658c-4a14-95e6-0af593bd04cf",
            "currency": "usd",
            "amount": 1000,
            "accountId": None,
            "user": PERSON,
            "bankInfo": None,
        },
        "destination": {
            "userId": "0cb1e29c-658c-4a14-95e6-0af593bd04cf",
            "currency": "usdc",
            "chain": "POLYGON",
            "walletAddress": "0xdef",
            "externalWalletId": None,
            "amount": None,
            "user": PERSON,
        },
        "receipt": {"transactionHash": None},
        "developerFee": None,
        "virtualAccountId": None,
        "quoteInformation": QUOTE_WIRE,
        "depositInfo": None,
    },
}

METRIC_WIRE: dict[str, Any] = {
    "status": "success",
    "data": [
        {"periodStart": "2026-11-01", "grossVolume": 1234.56, "transactionCount": 12},
        {"periodStart": "2026-11-02", "grossVolume": "99.10", "transactionCount": 3},
    ],
    "metadata": {
        "template": "GROSS_VOLUME",
        "recordCount": 2,
        "projectedRowCount": None,
        "filledCount": 2,
        "calculationInterval": "day",
        "dateRange": {"start": "2026-11-01", "end": "2026-11-02"},
        "filters": {
            "createdAfter": {"applied": "subset", "specified": True, "values": "2026-11-01"},
            "transactionTypes": {"applied": "all", "specified": False, "values": ["onramp", "offramp"]},
            "userIds": {"applied": "subset", "specified": True, "count": 60, "note": "60 user IDs omitted"},
        },
        "breakdowns": None,
    },
}


def with_number(body: dict[str, Any], number: str) -> bytes:
    """The JSON of `body` with the string "NUMBER" replaced by a bare JSON number."""
    text = json.dumps(body)
    assert text.count('"NUMBER"') == 1
    return text.replace('"NUMBER"', number).encode()


def wire(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(base)
    body.update(changes)
    return body


# --- RFIs -------------------------------------------------------------------------


def test_rfi_reads_camel_case_into_snake_case_attributes() -> None:
    rfi = Rfi.model_validate(RFI_WIRE)
    assert rfi.subject_type == "business"
    assert rfi.user_id == "0cb1e29c-658c-4a14-95e6-0af593bd04cf"
    assert rfi.transfer_id == "5d0a3c1e-2b4f-4e6a-8c9d-0e1f2a3b4c5d"
    assert rfi.flow_type == "offramp"
    assert rfi.current_round == 2
    assert isinstance(rfi.round, RfiRound)
    assert rfi.round.round == 2
    assert rfi.round.submitted_at is None
    assert rfi.round.link == "https://sandbox.stablepay.example/rfi/respond/6415479c"
    assert [i.kind for i in rfi.round.items] == ["document", "question"]
    assert rfi.round.items[0].doc_type == "invoice"
    assert rfi.round.items[1].required is True
    assert rfi.deadline == datetime(2026, 11, 21, 9, 39, 15, tzinfo=timezone.utc)


def test_rfi_writes_back_the_camel_case_wire() -> None:
    out = Rfi.model_validate(RFI_WIRE).to_wire()
    assert Rfi.model_validate(out).to_wire() == out
    assert set(out) == set(RFI_WIRE)
    assert set(out["round"]) == set(RFI_WIRE["round"])
    assert set(out["round"]["items"][0]) == {"id", "kind", "label", "docType", "detail", "required"}


def test_rfi_accepts_snake_case_names_too() -> None:
    rfi = Rfi(
        id="x", kind="onboarding", status="issued", subject_type="individual",
        created_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
    )
    assert rfi.subject_type == "individual"
    assert rfi.round is None and rfi.deadline is None


@pytest.mark.parametrize("stamp", ["2026-11-20T08:40:15Z", "2026-11-20T08:40:15+00:00", "2026-11-20T09:40:15+01:00"])
def test_timestamps_are_timezone_aware_in_both_spellings(stamp: str) -> None:
    rfi = Rfi.model_validate(wire(RFI_WIRE, createdAt=stamp))
    assert rfi.created_at.tzinfo is not None
    assert rfi.created_at == datetime(2026, 11, 20, 8, 40, 15, tzinfo=timezone.utc)


def test_a_naive_timestamp_is_read_as_utc() -> None:
    rfi = Rfi.model_validate(wire(RFI_WIRE, createdAt="2026-11-20T08:40:15"))
    assert rfi.created_at.utcoffset() == timedelta(0)


def test_unknown_enum_values_and_extra_fields_are_kept() -> None:
    body = wire(RFI_WIRE, status="escalated", kind="wallet", subjectType="trust", flowType="bridge", riskScore=7)
    body["round"]["items"][0]["docType"] = "utility_bill_scan"
    body["round"]["items"][0]["maxFiles"] = 3
    rfi = Rfi.model_validate(body)
    assert (rfi.status, rfi.kind, rfi.subject_type, rfi.flow_type) == ("escalated", "wallet", "trust", "bridge")
    assert rfi.model_extra == {"riskScore": 7}
    assert rfi.round is not None
    assert rfi.round.items[0].doc_type == "utility_bill_scan"
    out = rfi.to_wire()
    assert out["riskScore"] == 7
    assert out["round"]["items"][0]["maxFiles"] == 3


@pytest.mark.parametrize(
    ("kind", "doc_type", "shown"),
    [
        ("document", "government_id", "Government ID"),
        ("document", "incorporation_docs", "Incorporation documents"),
        ("document", "utility_bill_scan", "Document (untyped: utility_bill_scan)"),
        ("document", None, "Document (no standard type)"),
        ("question", None, ""),
    ],
)
def test_doc_type_names_known_unknown_and_null(kind: str, doc_type: str | None, shown: str) -> None:
    item = RfiItem.model_validate({"id": "i", "kind": kind, "label": "L", "docType": doc_type, "required": True})
    assert item.doc_type_name == shown


def test_rfi_missing_a_required_field_is_refused() -> None:
    body = wire(RFI_WIRE)
    del body["createdAt"]
    with pytest.raises(ValidationError):
        Rfi.model_validate(body)


def test_rfi_page_and_pagination() -> None:
    page = RfiPage.model_validate({"data": [RFI_WIRE], "pagination": {"limit": 20, "offset": 40, "total": 95}})
    assert len(page.data) == 1 and isinstance(page.data[0], Rfi)
    assert page.pagination == Pagination(limit=20, offset=40, total=95)
    assert page.pagination.page == 3
    assert page.pagination.pages == 5
    empty = Pagination(limit=20, offset=0, total=0)
    assert (empty.page, empty.pages) == (1, 1)


def test_rfi_page_needs_all_three_pagination_fields() -> None:
    with pytest.raises(ValidationError):
        RfiPage.model_validate({"data": [], "pagination": {"limit": 20, "offset": 0}})


# --- Batch transfers --------------------------------------------------------------


def test_batch_transfer_takes_the_whole_envelope() -> None:
    batch = BatchTransfer.model_validate(BATCH_WIRE)
    assert batch.transfer_type == "WALLET.TRANSFER.BATCH"
    details = batch.details
    assert details.request_id == "0e7d1c55-7a3b-4c2d-9e1f-123456789abc"
    assert details.contract_address.startswith("0x3c49")
    assert details.source.wallet_type == "INDIVIDUAL"
    assert details.receipt.user_op_hash == "0xop"
    assert details.created_at.tzinfo is not None and details.updated_at.tzinfo is not None
    amounts = [r.amount for r in details.destination.batch]
    assert amounts == [Decimal("10.10"), Decimal("0.20")]
    assert all(isinstance(a, Decimal) for a in amounts)
    assert batch.total == Decimal("10.30")


def test_batch_amounts_accept_numbers_without_float_error() -> None:
    body = copy.deepcopy(BATCH_WIRE)
    body["transferDetails"]["destination"]["batch"] = [
        {"amount": 0.1, "userId": "a"},
        {"amount": 0.2, "userId": "b"},
        {"amount": 7, "userId": "c"},
    ]
    batch = BatchTransfer.model_validate(body)
    assert batch.total == Decimal("7.3")
    body["transferDetails"]["destination"]["batch"][0]["amount"] = "NUMBER"
    decoded = decode(httpx.Response(200, content=with_number(body, "1234567890.123456789012345")), BatchTransfer)
    assert decoded.details.destination.batch[0].amount == Decimal("1234567890.123456789012345")


def test_batch_unknown_chain_status_and_extra_fields_are_kept() -> None:
    body = copy.deepcopy(BATCH_WIRE)
    body["transferDetails"].update(chain="NEWCHAIN", status="REVERSED", currency="eurc", memo="x")
    body["transferDetails"]["source"]["walletType"] = "BUSINESS"
    batch = BatchTransfer.model_validate(body)
    assert (batch.details.chain, batch.details.status, batch.details.currency) == ("NEWCHAIN", "REVERSED", "eurc")
    assert batch.details.source.wallet_type == "BUSINESS"
    assert batch.details.model_extra == {"memo": "x"}


# --- Onramps and quotes -----------------------------------------------------------


def test_onramp_transfer_takes_the_whole_envelope() -> None:
    onramp = OnrampTransfer.model_validate(ONRAMP_WIRE)
    assert onramp.transfer_type == "ONRAMP"
    d = onramp.details
    assert d.status == "OPEN_QUOTE"
    assert d.failed_reason is None
    assert d.source.amount == Decimal(1000) and isinstance(d.source.amount, Decimal)
    assert d.source.user is not None and d.source.user.display_name == "Ana Silva"
    assert d.destination.chain == "POLYGON" and d.destination.amount is None
    assert d.created_at == d.updated_at
    assert onramp.quote is not None
    assert onramp.quote.receive_net.amount == Decimal("993.71")
    assert str(onramp.quote.send_gross) == "1000.00 USD"


def test_business_name_wins_for_display() -> None:
    body = copy.deepcopy(ONRAMP_WIRE)
    body["transferDetails"]["source"]["user"] = {**PERSON, "businessName": "Acme Ltd"}
    onramp = OnrampTransfer.model_validate(body)
    assert onramp.details.source.user is not None
    assert onramp.details.source.user.display_name == "Acme Ltd"


@pytest.mark.parametrize("literal", ["N/A", "n/a", " N/A ", "", "  "])
def test_quote_expiry_n_a_means_no_expiry(literal: str) -> None:
    quote = QuoteInformation.model_validate(wire(QUOTE_WIRE, expiresAt=literal))
    assert quote.expires_at is None


def test_a_model_goes_back_on_the_wire_as_json_ready_camel_case() -> None:
    quote = QuoteInformation.model_validate(wire(QUOTE_WIRE, expiresAt="2026-11-20T09:40:00Z"))
    sent = quote.to_wire()
    assert sent["expiresAt"] == "2026-11-20T09:40:00Z" and sent["rate"] == "0.9987"
    assert sent["sendGross"] == {"amount": "1000.00", "currency": QUOTE_WIRE["sendGross"]["currency"]}
    assert json.loads(json.dumps(sent)) == sent


@pytest.mark.parametrize("stamp", ["2026-11-20T09:40:00Z", "2026-11-20T09:40:00+00:00"])
def test_quote_expiry_timestamp(stamp: str) -> None:
    quote = QuoteInformation.model_validate(wire(QUOTE_WIRE, expiresAt=stamp))
    assert quote.expires_at == datetime(2026, 11, 20, 9, 40, tzinfo=timezone.utc)
    assert quote.rate == Decimal("0.9987")
    assert [m.amount for m in (quote.send_gross, quote.send_net, quote.rail_fee)] == [
        Decimal("1000.00"),
        Decimal("995.00"),
        Decimal("5.00"),
    ]


def test_quote_expiry_garbage_is_refused() -> None:
    with pytest.raises(ValidationError):
        QuoteInformation.model_validate(wire(QUOTE_WIRE, expiresAt="soon"))


def test_onramp_source_amount_number_is_exact_through_decode() -> None:
    body = copy.deepcopy(ONRAMP_WIRE)
    body["transferDetails"]["source"]["amount"] = "NUMBER"
    content = with_number(body, "1000.10")
    onramp = decode(httpx.Response(200, content=content), OnrampTransfer)
    assert onramp.details.source.amount == Decimal("1000.10")
    assert str(onramp.details.source.amount) == "1000.10"


# --- Metrics ----------------------------------------------------------------------


def test_metric_result_daily_rows() -> None:
    result = MetricResult.model_validate(METRIC_WIRE)
    assert result.status == "success"
    first = result.data[0]
    assert first.period_start == date(2026, 11, 1) and type(first.period_start) is date
    assert first.numbers == {"grossVolume": Decimal("1234.56"), "transactionCount": Decimal(12)}
    assert result.data[1].fields["grossVolume"] == "99.10"  # a string value is kept as the server wrote it
    meta = result.metadata
    assert (meta.template, meta.record_count, meta.filled_count) == ("GROSS_VOLUME", 2, 2)
    assert meta.projected_row_count is None
    assert meta.calculation_interval == "day"
    assert meta.date_range is not None and meta.date_range.start == date(2026, 11, 1)
    assert meta.breakdowns is None


def test_metric_filter_values_are_one_string_or_a_list() -> None:
    filters = MetricResult.model_validate(METRIC_WIRE).metadata.filters
    assert filters["createdAfter"].values == ["2026-11-01"]
    assert filters["transactionTypes"].values == ["onramp", "offramp"]
    assert filters["transactionTypes"].applied == "all" and filters["transactionTypes"].specified is False
    assert filters["userIds"].values is None
    assert (filters["userIds"].count, filters["userIds"].note) == (60, "60 user IDs omitted")


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-11-20T00:00:00Z", datetime(2026, 11, 20, tzinfo=timezone.utc)),
        ("2026-11-20T13:00:00+00:00", datetime(2026, 11, 20, 13, tzinfo=timezone.utc)),
        ("2026-11-20T02:00:00+02:00", datetime(2026, 11, 20, tzinfo=timezone.utc)),
        ("20261120T13", datetime(2026, 11, 20, 13, tzinfo=timezone.utc)),  # one past a date's 10: a date-time
    ],
)
def test_metric_period_start_date_time_form(stamp: str, expected: datetime) -> None:
    body = wire(METRIC_WIRE, data=[{"periodStart": stamp, "grossVolume": 5}])
    row = MetricResult.model_validate(body).data[0]
    assert isinstance(row.period_start, datetime)
    assert row.period_start.tzinfo is not None
    assert row.period_start == expected


def test_metric_breakdown_dimensions_are_read() -> None:
    bucket: dict[str, Any] = {"periodStart": "2026-11-01", "transactionType": "onramp", "transactionStatus": "FAILED"}
    bucket["transactionCount"] = 4
    body = wire(METRIC_WIRE, data=[bucket])
    body["metadata"]["breakdowns"] = ["transactionType", "transactionStatus"]
    result = MetricResult.model_validate(body)
    row = result.data[0]
    assert row.dimensions == {"transactionType": "onramp", "transactionStatus": "FAILED"}
    assert row.numbers == {"transactionCount": Decimal(4)}
    assert result.metadata.breakdowns == ["transactionType", "transactionStatus"]


def test_metric_unknown_template_and_interval_are_kept() -> None:
    body = copy.deepcopy(METRIC_WIRE)
    body["metadata"].update(template="NET_FLOW", calculationInterval="fortnight", extraThing=1)
    meta = MetricResult.model_validate(body).metadata
    assert (meta.template, meta.calculation_interval) == ("NET_FLOW", "fortnight")
    assert meta.model_extra == {"extraThing": 1}


# --- Ping -------------------------------------------------------------------------


def test_pong() -> None:
    assert Pong.model_validate({"message": "pong"}).message == "pong"
    with pytest.raises(ValidationError):
        Pong.model_validate({"error": "Not authorized"})
