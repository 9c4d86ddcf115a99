"""Real-world payload variations parse without loss: numbers or strings for amounts, `Z` or `+00:00`."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import httpx
import pytest

from stablepay_console.api import StablePayClient
from stablepay_console.api.client import decode
from stablepay_console.api.models import BatchTransfer, OnrampTransfer

BATCH_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000003"
ONRAMP_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
USER = "13deef86-ab10-41d0-b646-e1f40a097c97"
AT_UTC = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)


def batch_body(amounts: list[str], created: str = "2026-11-20T09:30:00Z", updated: str | None = None) -> str:
    """A batch payload as raw JSON text; each amount is pasted in as given (a JSON number or a quoted string)."""
    recipients = ", ".join(f'{{"amount": {a}, "userId": "{USER}"}}' for a in amounts)
    return f"""{{
      "transferType": "WALLET.TRANSFER.BATCH",
      "transferDetails": {{
        "id": "{BATCH_ID}", "requestId": "{USER}",
        "createdAt": "{created}", "updatedAt": "{updated or created}",
        "chain": "POLYGON", "currency": "usdc",
        "contractAddress": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", "status": "COMPLETED",
        "source": {{"userId": "{USER}", "walletAddress": "0xabc", "walletType": "INDIVIDUAL"}},
        "destination": {{"batch": [{recipients}]}},
        "receipt": {{"transactionHash": "0x01", "userOpHash": "0x02"}}
      }}
    }}"""


def onramp_body(
    amount: str = '"1000.00"', rate: str = '"0.9987"', expires: str = '"N/A"', source_amount: str = "1000"
) -> str:
    def money(currency: str) -> str:
        return f'{{"amount": {amount}, "currency": "{currency}"}}'

    person = '{"email": "ana@example.com", "firstName": "Ana", "lastName": "Silva", "businessName": null}'
    return f"""{{
      "transferType": "ONRAMP",
      "transferDetails": {{
        "id": "{ONRAMP_ID}", "requestId": "{USER}",
        "createdAt": "2026-11-20T09:30:00+00:00", "updatedAt": "2026-11-20T09:30:00Z",
        "status": "OPEN_QUOTE", "failedReason": null,
        "source": {{"userId": "{USER}", "currency": "usd", "amount": {source_amount}, "accountId": null,
                    "user": {person}, "bankInfo": null}},
        "destination": {{"userId": "{USER}", "currency": "usdc", "chain": "POLYGON", "walletAddress": "0xabc",
                         "externalWalletId": null, "amount": null, "user": {person}}},
        "receipt": {{"transactionHash": null}}, "developerFee": null, "virtualAccountId": null,
        "quoteInformation": {{
          "sendGross": {money("usd")}, "sendNet": {money("usd")}, "railFee": {money("usd")},
          "receiveGross": {money("usdc")}, "receiveNet": {money("usdc")},
          "rate": {rate}, "expiresAt": {expires}
        }},
        "depositInfo": null
      }}
    }}"""


def response(body: str, status: int = 200) -> httpx.Response:
    return httpx.Response(status, content=body.encode(), headers={"content-type": "application/json"})


# --- amounts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ('"12.50"', Decimal("12.50")),
        ("12.50", Decimal("12.50")),  # a JSON number keeps its trailing zero: no trip through float
        ("7", Decimal("7")),
        ("0.1", Decimal("0.1")),
        ("1e-7", Decimal("1E-7")),
        ("123456789012345678.123456789012345678", Decimal("123456789012345678.123456789012345678")),
        ('"123456789012345678.123456789012345678"', Decimal("123456789012345678.123456789012345678")),
    ],
)
def test_batch_amount_as_number_or_string_is_exact(wire: str, expected: Decimal) -> None:
    batch = decode(response(batch_body([wire])), BatchTransfer)
    amount = batch.details.destination.batch[0].amount
    assert isinstance(amount, Decimal)
    assert amount == expected
    assert str(amount) == str(expected)


def test_batch_total_is_the_exact_sum_of_mixed_amounts() -> None:
    batch = decode(response(batch_body(["0.1", '"0.2"', "0.3", '"1000000000000000.01"'])), BatchTransfer)
    assert batch.total == Decimal("1000000000000000.61")


@pytest.mark.parametrize("wire", ['"1000.00"', "1000.00", "1000", '"1000"'])
def test_quote_amounts_and_rate_as_numbers_or_strings(wire: str) -> None:
    onramp = decode(response(onramp_body(amount=wire, rate="0.99870")), OnrampTransfer)
    quote = onramp.quote
    assert quote is not None
    assert quote.send_gross.amount == Decimal("1000")
    assert str(quote.send_gross.amount) == wire.strip('"')
    assert quote.rate == Decimal("0.99870") and str(quote.rate) == "0.99870"


def test_onramp_source_amount_as_json_number_or_string() -> None:
    as_number = decode(response(onramp_body(source_amount="1000.0")), OnrampTransfer)
    as_string = decode(response(onramp_body(source_amount='"1000.00"')), OnrampTransfer)
    missing = decode(response(onramp_body(source_amount="null")), OnrampTransfer)
    assert as_number.details.source.amount == as_string.details.source.amount == Decimal("1000")
    assert str(as_number.details.source.amount) == "1000.0"
    assert missing.details.source.amount is None


# --- times ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "wire",
    [
        "2026-11-20T09:30:00Z",
        "2026-11-20T09:30:00+00:00",
        "2026-11-20T09:30:00.000Z",
        "2026-11-20T11:30:00+02:00",
        "2026-11-20T04:30:00-05:00",
        "2026-11-20T09:30:00",  # no offset: read as UTC rather than refused
    ],
)
def test_timestamps_with_any_offset_are_the_same_aware_instant(wire: str) -> None:
    batch = decode(response(batch_body(['"1"'], created=wire)), BatchTransfer)
    created = batch.details.created_at
    assert created.tzinfo is not None
    assert created == AT_UTC


def test_offset_is_kept_not_just_the_instant() -> None:
    batch = decode(response(batch_body(['"1"'], created="2026-11-20T11:30:00+02:00")), BatchTransfer)
    assert batch.details.created_at.utcoffset() == timedelta(hours=2)


def test_fractional_seconds_survive() -> None:
    batch = decode(response(batch_body(['"1"'], created="2026-11-20T09:30:00.123456Z")), BatchTransfer)
    assert batch.details.created_at.microsecond == 123456


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ('"N/A"', None),
        ('"n/a"', None),
        ('""', None),
        ("null", None),
        ('"2026-11-20T09:40:00Z"', AT_UTC + timedelta(minutes=10)),
        ('"2026-11-20T09:40:00+00:00"', AT_UTC + timedelta(minutes=10)),
        ('"2026-11-20T10:40:00+01:00"', AT_UTC + timedelta(minutes=10)),
    ],
)
def test_quote_expiry_variants(wire: str, expected: datetime | None) -> None:
    quote = decode(response(onramp_body(expires=wire)), OnrampTransfer).quote
    assert quote is not None
    assert quote.expires_at == expected
    if quote.expires_at is not None:
        assert quote.expires_at.tzinfo is not None


def test_missing_expiry_means_no_expiry() -> None:
    body = json.loads(onramp_body())
    del body["transferDetails"]["quoteInformation"]["expiresAt"]
    quote = decode(response(json.dumps(body)), OnrampTransfer).quote
    assert quote is not None and quote.expires_at is None


# --- open sets and round trips -------------------------------------------------------------------


def test_unknown_values_and_extra_fields_are_kept() -> None:
    body = json.loads(batch_body(['"5.00"']))
    details = body["transferDetails"]
    details["chain"] = "NEWCHAIN"
    details["status"] = "PARTIALLY_SETTLED"
    details["currency"] = "eurc"
    details["networkFee"] = {"amount": "0.01", "currency": "matic"}
    details["destination"]["batch"][0]["memo"] = "payroll"
    batch = decode(response(json.dumps(body)), BatchTransfer)
    details_read = batch.details
    assert (details_read.chain, details_read.status, details_read.currency) == ("NEWCHAIN", "PARTIALLY_SETTLED", "eurc")
    assert batch.details.model_extra == {"networkFee": {"amount": "0.01", "currency": "matic"}}
    assert batch.details.destination.batch[0].model_extra == {"memo": "payroll"}


def test_wire_round_trip_keeps_every_amount_and_instant() -> None:
    body = batch_body(["12.50", '"0.000001"', "7"], created="2026-11-20T11:30:00+02:00")
    original = decode(response(body), BatchTransfer)
    again = BatchTransfer.model_validate(copy.deepcopy(original.to_wire()))
    assert again == original
    assert [str(r.amount) for r in again.details.destination.batch] == ["12.50", "0.000001", "7"]


# --- through the client ---------------------------------------------------------------------------


async def test_client_reads_numbers_exactly_from_the_wire() -> None:
    seen: list[tuple[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.url.path))
        if request.url.path.startswith("/v2/wallets/transfers/batches/"):
            return response(batch_body(["0.1", "0.2", '"0.30"']))
        return response(onramp_body(amount="995.20", rate="0.99870", expires='"2026-11-20T09:40:00Z"'))

    async with StablePayClient("http://localhost", "sk_test", transport=httpx.MockTransport(handler)) as client:
        batch = await client.get_batch_transfer(BATCH_ID)
        onramp = await client.refresh_onramp_quote(ONRAMP_ID)
    assert batch.total == Decimal("0.60")
    quote = onramp.quote
    assert quote is not None
    assert str(quote.receive_net.amount) == "995.20"
    assert str(quote.rate) == "0.99870"
    assert quote.expires_at == AT_UTC + timedelta(minutes=10)
    assert seen == [
        ("GET", f"/v2/wallets/transfers/batches/{BATCH_ID}"),
        ("POST", f"/v2/onramps/{ONRAMP_ID}/quote/refresh"),
    ]
