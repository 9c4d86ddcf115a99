"""GETs are retried (connect errors, timeouts, 429 with Retry-After, 502/503/504) with bounded backoff;
the POST quote refresh never is."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace

import httpx
import httpx_retries.retry
import pytest
from httpx_retries import Retry

from stablepay_console.api import (
    MalformedResponse,
    ServerError,
    StablePayClient,
    StatusError,
    TransportError,
    default_retry,
)
from stablepay_console.api.client import DEFAULT_TIMEOUT
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import BATCH_50_ID, METRIC_DAILY_VOLUME_ID, ONRAMP_OPEN_ID

REAL_SLEEP = asyncio.sleep


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the retry policy asks for, recorded instead of slept."""
    asked: list[float] = []

    async def record(seconds: float) -> None:
        asked.append(seconds)
        await REAL_SLEEP(0)

    monkeypatch.setattr(httpx_retries.retry, "asyncio", SimpleNamespace(sleep=record))
    return asked


@pytest.fixture
async def retrying(sandbox: Sandbox) -> AsyncIterator[StablePayClient]:
    """A client with the default retry policy, talking to the sandbox in-process."""
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        yield c


def calls_to(sandbox: Sandbox, path: str) -> int:
    return sum(1 for _, p in sandbox.api_calls() if p == path)


# --- the policy ----------------------------------------------------------------------------


def test_default_policy_is_bounded_and_get_only() -> None:
    retry = default_retry()
    assert retry.total == 3
    assert retry.allowed_methods == frozenset({"GET"})
    assert retry.status_forcelist == frozenset({429, 502, 503, 504})
    assert retry.max_backoff_wait <= 10
    assert retry.total_timeout is not None and retry.total_timeout <= 30
    assert retry.respect_retry_after_header
    assert not retry.is_retryable_method("POST")
    assert not retry.is_retryable_status_code(500)


def test_retry_after_is_honoured_but_capped() -> None:
    retry = default_retry().increment()
    assert retry._calculate_sleep(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert retry._calculate_sleep(httpx.Headers({"Retry-After": "3600"})) == retry.max_backoff_wait


def test_explicit_timeouts() -> None:
    client = StablePayClient("https://api.stablepay.example", "sk_live_0123456789abcdef")
    timeout = client._http.timeout
    assert timeout == DEFAULT_TIMEOUT
    assert None not in (timeout.connect, timeout.read, timeout.write, timeout.pool)


# --- 429 and Retry-After --------------------------------------------------------------------


async def test_429_is_retried_after_the_servers_delay(
    retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float]
) -> None:
    sandbox.faults.retry_after = 1
    sandbox.faults.force, sandbox.faults.force_count = "429", 2
    page = await retrying.list_rfis()
    assert len(page.data) == 20
    assert calls_to(sandbox, "/v2/rfis") == 3
    assert sleeps == [1.0, 1.0]


async def test_429_with_retry_after_one_second_really_waits(retrying: StablePayClient, sandbox: Sandbox) -> None:
    sandbox.faults.retry_after = 1
    sandbox.faults.force, sandbox.faults.force_count = "429", 1
    started = time.monotonic()
    assert (await retrying.ping()).message == "pong"
    assert time.monotonic() - started >= 1.0  # a lower bound only: the client may not come back sooner
    assert calls_to(sandbox, "/ping") == 2


async def test_a_huge_retry_after_is_bounded(retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float]) -> None:
    sandbox.faults.retry_after = 86_400
    sandbox.faults.force = "429"
    with pytest.raises(StatusError) as caught:
        await retrying.list_rfis()
    assert caught.value.status == 429 and "Rate limit reached" in caught.value.message
    # No retry can come back in time: the server's own answer is given at once, and nothing more is sent
    # to it while its Retry-After (capped at an hour) runs, whoever asks.
    assert sleeps == []
    assert calls_to(sandbox, "/v2/rfis") == 1
    with pytest.raises(StatusError) as again:
        await retrying.ping()
    assert again.value.status == 429 and "(not sent)" in again.value.message
    assert again.value.response is not None and int(again.value.response.headers["Retry-After"]) > 3500
    assert calls_to(sandbox, "/ping") == 0


async def test_gives_up_after_three_retries(retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float]) -> None:
    sandbox.faults.force = "502_html"
    with pytest.raises(MalformedResponse) as caught:
        await retrying.get_batch_transfer(BATCH_50_ID)
    assert caught.value.status == 502
    assert calls_to(sandbox, f"/v2/wallets/transfers/batches/{BATCH_50_ID}") == 4
    assert len(sleeps) == 3
    assert all(0 <= s <= default_retry().max_backoff_wait for s in sleeps)


async def test_502_then_success(retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float]) -> None:
    sandbox.faults.force, sandbox.faults.force_count = "502_html", 2
    result = await retrying.run_metric(METRIC_DAILY_VOLUME_ID)
    assert result.status == "success"
    assert calls_to(sandbox, f"/v2/reporting/metrics/{METRIC_DAILY_VOLUME_ID}/results") == 3


async def test_500_is_not_retried(retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float]) -> None:
    sandbox.faults.force, sandbox.faults.force_count = "500", 1
    with pytest.raises(ServerError):
        await retrying.list_rfis()
    assert calls_to(sandbox, "/v2/rfis") == 1
    assert sleeps == []


@pytest.mark.parametrize("fault", ["429", "502_html"])
async def test_the_refresh_post_is_never_retried(
    retrying: StablePayClient, sandbox: Sandbox, sleeps: list[float], fault: str
) -> None:
    sandbox.faults.force, sandbox.faults.force_count = fault, 1
    rate_before = sandbox.data.onramps[ONRAMP_OPEN_ID].quote.rate  # type: ignore[union-attr]
    with pytest.raises((StatusError, MalformedResponse)):
        await retrying.refresh_onramp_quote(ONRAMP_OPEN_ID)
    path = f"/v2/onramps/{ONRAMP_OPEN_ID}/quote/refresh"
    assert sandbox.api_calls() == [("POST", path)]
    assert sleeps == []
    assert sandbox.data.onramps[ONRAMP_OPEN_ID].quote.rate == rate_before  # type: ignore[union-attr]
    # A second refresh is the person's decision, and it goes through.
    refreshed = await retrying.refresh_onramp_quote(ONRAMP_OPEN_ID)
    assert refreshed.quote is not None and refreshed.quote.rate != rate_before
    assert calls_to(sandbox, path) == 2


# --- connect errors, timeouts, 503/504 (a scripted transport) ---------------------------------


class Scripted(httpx.AsyncBaseTransport):
    """Answers each request with the next step: an exception to raise or a status to return."""

    def __init__(self, steps: list[Exception | int], then: Callable[[httpx.Request], httpx.Response]) -> None:
        self.steps = list(steps)
        self.then = then
        self.seen: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((request.method, request.url.path))
        if self.steps:
            step = self.steps.pop(0)
            if isinstance(step, Exception):
                raise step
            return httpx.Response(step, json={"status": "error", "error": {"code": str(step), "message": "busy"}})
        return self.then(request)


def pong(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"message": "pong"})


@pytest.mark.parametrize(
    "steps",
    [
        [httpx.ConnectError("refused"), httpx.ConnectError("refused")],
        [httpx.ConnectTimeout("slow connect"), httpx.ReadTimeout("slow read")],
        [503, 504, 503],
        [httpx.ReadError("reset"), 502],
    ],
    ids=["connect", "timeouts", "503-504", "read-error-502"],
)
async def test_get_recovers_after_transient_failures(steps: list[Exception | int], sleeps: list[float]) -> None:
    transport = Scripted(steps, pong)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client:
        assert (await client.ping()).message == "pong"
    assert len(transport.seen) == len(steps) + 1
    assert len(sleeps) == len(steps)


async def test_get_gives_up_on_a_dead_host(sleeps: list[float]) -> None:
    transport = Scripted([httpx.ConnectError("refused")] * 10, pong)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client:
        with pytest.raises(TransportError, match="could not connect"):
            await client.list_rfis()
    assert len(transport.seen) == 4
    assert len(sleeps) == 3 and all(s <= 10 for s in sleeps)


@pytest.mark.parametrize("step", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"), 503])
async def test_post_is_sent_once_whatever_happens(step: Exception | int, sleeps: list[float]) -> None:
    transport = Scripted([step], pong)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client:
        with pytest.raises((TransportError, ServerError)):
            await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    assert transport.seen == [("POST", f"/v2/onramps/{ONRAMP_OPEN_ID}/quote/refresh")]
    assert sleeps == []


async def test_a_custom_retry_policy_is_used(sleeps: list[float]) -> None:
    transport = Scripted([503] * 10, pong)
    retry = Retry(total=1, allowed_methods=["GET"], backoff_factor=0.01)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport, retry=retry) as client:
        with pytest.raises(ServerError) as caught:
            await client.ping()
    assert caught.value.status == 503 and caught.value.message == "busy"
    assert len(transport.seen) == 2


async def test_retries_stay_inside_the_total_deadline() -> None:
    """A server that answers 503 with Retry-After for ever cannot hold a call past its deadline."""
    seen: list[float] = []

    def busy(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        return httpx.Response(503, headers={"Retry-After": "1"}, json={"status": "error", "error": {"message": "busy"}})

    retry = Retry(total=100, allowed_methods=["GET"], status_forcelist=[503], max_backoff_wait=10.0)
    async with StablePayClient(
        "http://localhost", SANDBOX_KEY, transport=httpx.MockTransport(busy), retry=retry, deadline=2.5
    ) as client:
        with pytest.raises(TransportError, match=r"no complete answer within 2\.5 s"):
            await asyncio.wait_for(client.ping(), 60)  # a guard: 100 retries a second apart would fail it
    assert 2 <= len(seen) <= 4, "the deadline stopped the retries long before their 100"
