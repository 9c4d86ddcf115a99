"""The client against the sandbox in-process (httpx.ASGITransport): every endpoint, as the spec says."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from stablepay_console.api import (
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    RfiPage,
    StablePayClient,
    StatusError,
    Unauthorized,
    ValidationFailed,
)
from stablepay_console.api.client import decode
from stablepay_console.api.filters import RfiFilters
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import (
    BATCH_50_ID,
    BATCH_SMALL_ID,
    BATCH_UNKNOWN_CHAIN_ID,
    METRIC_DAILY_VOLUME_ID,
    METRIC_EMPTY_ID,
    METRIC_HOURLY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
)
from tests.conftest import FIXED_NOW

MISSING_ID = "0d000000-0000-4000-8000-000000000000"


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to the sandbox and keeps each one, as sent on the wire."""

    def __init__(self, app: object) -> None:
        self.inner = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)


@pytest.fixture
async def recorded(sandbox: Sandbox) -> AsyncIterator[tuple[StablePayClient, Recorder]]:
    recorder = Recorder(sandbox.app)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=recorder) as c:
        yield c, recorder


# --- ping and auth ----------------------------------------------------------------


async def test_ping(client: StablePayClient) -> None:
    assert (await client.ping()).message == "pong"


async def test_requests_carry_the_key_only_as_a_bearer_header(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    await client.ping()
    await client.list_rfis(RfiFilters(status="issued", kind="transaction", user_id=None), limit=5, offset=10)
    await client.get_batch_transfer(BATCH_SMALL_ID)
    await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    await client.run_metric(METRIC_DAILY_VOLUME_ID)
    assert [(r.method, r.url.path) for r in recorder.requests] == [
        ("GET", "/ping"),
        ("GET", "/v2/rfis"),
        ("GET", f"/v2/wallets/transfers/batches/{BATCH_SMALL_ID}"),
        ("POST", f"/v2/onramps/{ONRAMP_OPEN_ID}/quote/refresh"),
        ("GET", f"/v2/reporting/metrics/{METRIC_DAILY_VOLUME_ID}/results"),
    ]
    for request in recorder.requests:
        assert request.headers["authorization"] == f"Bearer {SANDBOX_KEY}"
        assert SANDBOX_KEY not in str(request.url)
        assert request.content == b""  # no endpoint takes a body; the key never travels in one
        assert request.headers["accept"] == "application/json"
    assert dict(recorder.requests[1].url.params) == {
        "limit": "5",
        "offset": "10",
        "status": "issued",
        "kind": "transaction",
    }


async def test_user_id_is_sent_as_camel_case_query(
    recorded: tuple[StablePayClient, Recorder], sandbox: Sandbox
) -> None:
    client, recorder = recorded
    user = sandbox.data.users[3]
    await client.list_rfis(RfiFilters(user_id=user.upper()))
    assert recorder.requests[0].url.params["userId"] == user


@pytest.mark.parametrize("key", ["sk_sandbox_wrong_0000000000000000", "sk_production_deleted_00000000000000"])
async def test_unknown_key_is_unauthorized_on_every_endpoint(sandbox: Sandbox, key: str) -> None:
    async with StablePayClient("http://localhost", key, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        with pytest.raises(Unauthorized) as ping_refused:
            await c.ping()
        assert ping_refused.value.status == 401
        assert ping_refused.value.message == "Not authorized"
        for call in (
            c.list_rfis(),
            c.get_batch_transfer(BATCH_50_ID),
            c.refresh_onramp_quote(ONRAMP_OPEN_ID),
            c.run_metric(METRIC_DAILY_VOLUME_ID),
        ):
            with pytest.raises(Unauthorized) as refused:
                await call
            assert refused.value.status == 401
            assert refused.value.code == "401"
            assert str(refused.value) == "HTTP 401: Unauthorized: Missing or invalid API key"
            assert refused.value.kind == "Not authorized"
    assert len(sandbox.api_calls()) == 5


async def test_missing_key_is_unauthorized(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        rfis = await raw.get("/v2/rfis")
        ping = await raw.get("/ping")
        basic = await raw.get("/ping", headers={"Authorization": f"Basic {SANDBOX_KEY}"})
    assert rfis.status_code == 401
    assert rfis.json() == {"code": 401, "error": "Unauthorized", "errorDetails": "Missing or invalid API key"}
    assert ping.status_code == basic.status_code == 401
    assert ping.json() == basic.json() == {"error": "Not authorized"}
    with pytest.raises(Unauthorized):
        decode(rfis, RfiPage)


async def test_a_key_added_later_works_and_a_removed_one_stops(sandbox: Sandbox) -> None:
    key = "sk_sandbox_rotated_1234567890abcdef"
    async with StablePayClient("http://localhost", key, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        with pytest.raises(Unauthorized):
            await c.ping()
        sandbox.add_key(key)
        assert (await c.ping()).message == "pong"
        del sandbox.state.keys[key]
        with pytest.raises(Unauthorized):
            await c.ping()


# --- RFI list ---------------------------------------------------------------------


async def test_first_page_defaults(client: StablePayClient, sandbox: Sandbox) -> None:
    page = await client.list_rfis()
    assert (page.pagination.limit, page.pagination.offset, page.pagination.total) == (20, 0, 240)
    assert [r.id for r in page.data] == [r.id for r in sandbox.data.rfis[:20]]
    created = [r.created_at for r in page.data]
    assert created == sorted(created, reverse=True)  # newest first


@pytest.mark.parametrize("status", ["issued", "submitted", "resolved", "expired"])
async def test_status_filter(client: StablePayClient, sandbox: Sandbox, status: str) -> None:
    page = await client.list_rfis(RfiFilters(status=status), limit=100)
    expected = [r for r in sandbox.data.rfis if r.status == status]
    assert page.pagination.total == len(expected) > 0
    assert [r.id for r in page.data] == [r.id for r in expected[:100]]
    assert {r.status for r in page.data} == {status}


@pytest.mark.parametrize("kind", ["onboarding", "transaction"])
async def test_kind_filter_and_transfer_fields(client: StablePayClient, sandbox: Sandbox, kind: str) -> None:
    page = await client.list_rfis(RfiFilters(kind=kind), limit=100)
    assert page.pagination.total == sum(r.kind == kind for r in sandbox.data.rfis)
    for rfi in page.data:
        assert rfi.kind == kind
        if kind == "onboarding":
            assert rfi.transfer_id is None and rfi.flow_type is None
        else:
            assert rfi.transfer_id is not None and rfi.flow_type in ("onramp", "offramp")


async def test_combined_filters(client: StablePayClient, sandbox: Sandbox) -> None:
    user = sandbox.data.rfis[0].user_id
    assert user is not None
    kind = sandbox.data.rfis[0].kind
    page = await client.list_rfis(RfiFilters(status="issued", kind=kind, user_id=user), limit=100)
    expected = [r for r in sandbox.data.rfis if r.status == "issued" and r.kind == kind and r.user_id == user]
    assert [r.id for r in page.data] == [r.id for r in expected]
    assert page.pagination.total == len(expected) >= 1


async def test_unknown_user_has_an_empty_list(client: StablePayClient) -> None:
    page = await client.list_rfis(RfiFilters(user_id=MISSING_ID))
    assert page.data == [] and page.pagination.total == 0


async def test_last_page_is_partial(client: StablePayClient, sandbox: Sandbox) -> None:
    page = await client.list_rfis(limit=100, offset=200)
    assert len(page.data) == 40
    assert (page.pagination.limit, page.pagination.offset, page.pagination.total) == (100, 200, 240)
    assert page.data[-1].id == sandbox.data.rfis[-1].id
    assert page.pagination.page == page.pagination.pages == 3


@pytest.mark.parametrize("offset", [240, 241, 10_000])
async def test_offset_at_or_past_total_is_an_empty_page(client: StablePayClient, offset: int) -> None:
    page = await client.list_rfis(limit=20, offset=offset)
    assert page.data == []
    assert (page.pagination.limit, page.pagination.offset, page.pagination.total) == (20, offset, 240)


async def test_limit_edges(client: StablePayClient, sandbox: Sandbox) -> None:
    one = await client.list_rfis(limit=1, offset=239)
    assert [r.id for r in one.data] == [sandbox.data.rfis[239].id]
    hundred = await client.list_rfis(limit=100)
    assert len(hundred.data) == 100


async def test_pages_tile_the_whole_list(client: StablePayClient, sandbox: Sandbox) -> None:
    seen: list[str] = []
    offset = 0
    while True:
        page = await client.list_rfis(limit=33, offset=offset)
        if not page.data:
            break
        seen.extend(r.id for r in page.data)
        offset += 33
    assert seen == [r.id for r in sandbox.data.rfis]


async def test_iter_rfis_yields_everything_in_order(client: StablePayClient, sandbox: Sandbox) -> None:
    got = [r.id async for r in client.iter_rfis(page_size=17)]
    assert got == [r.id for r in sandbox.data.rfis]
    assert len(sandbox.api_calls()) == -(-240 // 17)


async def test_iter_rfis_with_a_filter(client: StablePayClient, sandbox: Sandbox) -> None:
    got = [r.id async for r in client.iter_rfis(RfiFilters(status="expired"), page_size=10)]
    assert got == [r.id for r in sandbox.data.rfis if r.status == "expired"]


async def test_sandbox_answers_invalid_query_with_validation_fields(sandbox: Sandbox) -> None:
    """What the client never sends, the server refuses with the RFI error shape and its `fields`."""
    headers = {"Authorization": f"Bearer {SANDBOX_KEY}"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        response = await raw.get(
            "/v2/rfis",
            params={"limit": "0", "offset": "-3", "status": "open", "kind": "wallet", "userId": "nope"},
            headers=headers,
        )
        not_int = await raw.get("/v2/rfis", params={"limit": "ten"}, headers=headers)
        too_big = await raw.get("/v2/rfis", params={"limit": "101"}, headers=headers)
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "VALIDATION_ERROR" and body["message"]
    assert {f["field"] for f in body["fields"]} == {"limit", "offset", "status", "kind", "userId"}
    assert all(set(f) == {"code", "field", "message"} for f in body["fields"])
    with pytest.raises(ValidationFailed) as refused:
        decode(response, RfiPage)
    assert refused.value.status == 400
    assert refused.value.code == "VALIDATION_ERROR"
    assert {f.field for f in refused.value.fields} == {"limit", "offset", "status", "kind", "userId"}
    for other in (not_int, too_big):
        assert other.status_code == 400
        assert [f["field"] for f in other.json()["fields"]] == ["limit"]
    assert not_int.json()["fields"][0]["code"] != too_big.json()["fields"][0]["code"]


# --- batch transfers ----------------------------------------------------------------


async def test_batch_with_fifty_recipients(client: StablePayClient, sandbox: Sandbox) -> None:
    batch = await client.get_batch_transfer(BATCH_50_ID)
    assert isinstance(batch, BatchTransfer)
    assert batch.transfer_type == "WALLET.TRANSFER.BATCH"
    assert batch.details.id == BATCH_50_ID
    assert len(batch.details.destination.batch) == 50
    assert all(isinstance(r.amount, Decimal) for r in batch.details.destination.batch)
    assert batch.total == sandbox.data.batches[BATCH_50_ID].total
    assert batch.details.chain == "POLYGON" and batch.details.currency == "usdc"
    assert batch.details.receipt.transaction_hash and batch.details.receipt.user_op_hash


async def test_batch_with_an_unknown_chain(client: StablePayClient) -> None:
    batch = await client.get_batch_transfer(BATCH_UNKNOWN_CHAIN_ID)
    assert batch.details.chain == "NEWCHAIN"


async def test_batch_not_found_is_a_status_error(client: StablePayClient) -> None:
    with pytest.raises(StatusError) as refused:
        await client.get_batch_transfer(MISSING_ID)
    assert refused.value.status == 404
    assert refused.value.code == "NOT_FOUND"
    assert refused.value.message == f"No batch transfer with ID {MISSING_ID}"


# --- onramp quote refresh ------------------------------------------------------------


async def test_refresh_moves_rate_a_little_and_moves_expiry(client: StablePayClient, sandbox: Sandbox) -> None:
    before = sandbox.data.onramps[ONRAMP_OPEN_ID].quote
    assert before is not None and before.expires_at is not None
    first = await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    second = await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    assert isinstance(first, OnrampTransfer)
    assert first.transfer_type == "ONRAMP"
    assert first.details.status == "OPEN_QUOTE"
    assert first.quote is not None and second.quote is not None
    assert first.quote.rate != before.rate and second.quote.rate != first.quote.rate
    for old, new in ((before.rate, first.quote.rate), (first.quote.rate, second.quote.rate)):
        assert Decimal(0) < abs(new - old) <= Decimal("0.0025")
    assert first.quote.expires_at is not None and first.quote.expires_at > before.expires_at
    assert first.quote.expires_at - FIXED_NOW <= timedelta(minutes=30)
    assert first.details.updated_at >= first.details.created_at
    # the amounts follow the new rate
    assert first.quote.receive_net.amount == (first.quote.send_net.amount * first.quote.rate).quantize(Decimal("0.01"))
    assert isinstance(first.details.source.amount, Decimal) and first.details.source.amount == Decimal(1000)


async def test_refresh_of_a_quote_without_expiry_sends_n_a(sandbox: Sandbox) -> None:
    headers = {"Authorization": f"Bearer {SANDBOX_KEY}"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        response = await raw.post(f"/v2/onramps/{ONRAMP_OPEN_NO_EXPIRY_ID}/quote/refresh", headers=headers)
    assert response.status_code == 200
    assert response.json()["transferDetails"]["quoteInformation"]["expiresAt"] == "N/A"
    assert isinstance(response.json()["transferDetails"]["source"]["amount"], (int, float))
    onramp = decode(response, OnrampTransfer)
    assert onramp.quote is not None and onramp.quote.expires_at is None


async def test_refresh_outside_open_quote_is_a_status_error(client: StablePayClient, sandbox: Sandbox) -> None:
    with pytest.raises(StatusError) as refused:
        await client.refresh_onramp_quote(ONRAMP_COMPLETED_ID)
    assert refused.value.status == 409
    assert refused.value.code == "INVALID_STATUS"
    assert "OPEN_QUOTE" in refused.value.message and "COMPLETED" in refused.value.message
    assert refused.value.response is not None
    assert refused.value.response.json()["status"] == "error"
    assert sandbox.data.onramps[ONRAMP_COMPLETED_ID].details.status == "COMPLETED"


async def test_refresh_of_an_unknown_onramp(client: StablePayClient) -> None:
    with pytest.raises(StatusError) as refused:
        await client.refresh_onramp_quote(MISSING_ID)
    assert (refused.value.status, refused.value.code) == (404, "NOT_FOUND")


# --- metrics ----------------------------------------------------------------------------


async def test_daily_gross_volume(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_DAILY_VOLUME_ID)
    assert isinstance(result, MetricResult)
    assert result.status == "success"
    assert result.metadata.template == "GROSS_VOLUME"
    assert result.metadata.calculation_interval == "day"
    assert result.metadata.record_count == len(result.data) > 20
    assert all(type(row.period_start) is date for row in result.data)
    assert all(isinstance(row.numbers["grossVolume"], Decimal) for row in result.data)
    assert result.metadata.breakdowns is None
    assert result.metadata.filters["transactionTypes"].values == ["onramp", "offramp"]
    assert result.metadata.filters["createdAfter"].values == [result.metadata.date_range.start.isoformat()]  # type: ignore[union-attr]


async def test_transaction_count_with_breakdowns(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_TX_COUNT_ID)
    assert result.metadata.template == "TRANSACTION_COUNT"
    assert result.metadata.breakdowns == ["transactionType", "transactionStatus"]
    assert {row.dimensions["transactionType"] for row in result.data} == {"onramp", "offramp"}
    assert {row.dimensions["transactionStatus"] for row in result.data} >= {"COMPLETED", "FAILED"}
    assert all("transactionCount" in row.numbers for row in result.data)


async def test_monthly_metric_spans_several_months(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_MONTHLY_VOLUME_ID)
    months = {(row.period_start.year, row.period_start.month) for row in result.data}
    assert len(months) >= 6
    assert result.metadata.calculation_interval == "month"


async def test_hourly_metric_has_date_time_buckets(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_HOURLY_VOLUME_ID)
    assert len(result.data) == 24
    assert all(isinstance(row.period_start, datetime) and row.period_start.tzinfo for row in result.data)


async def test_empty_metric(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_EMPTY_ID)
    assert result.data == [] and result.metadata.record_count == 0


async def test_unknown_metric(client: StablePayClient) -> None:
    with pytest.raises(StatusError) as refused:
        await client.run_metric(MISSING_ID)
    assert (refused.value.status, refused.value.code) == (404, "NOT_FOUND")
    assert MISSING_ID in refused.value.message
