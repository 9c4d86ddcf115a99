"""The client's own rules, each proved in the test process: which requests wait as a person's at the server's gate,
what a walk asks for and reports, what the retries allow, and the words of each failure."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest
from httpx_retries import Retry

from stablepay_console.api import ApiKey, StablePayClient
from stablepay_console.api.body import ACCEPT_ENCODING, BodyTooLarge
from stablepay_console.api.client import _too_large_message, default_retry
from stablepay_console.api.errors import APIError, DeadlineExceeded, MalformedResponse, ResponseTooLarge, TransportError
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.gate import BULK, gate_for
from stablepay_console.api.key_check import PING_PATHS
from stablepay_console.api.models import Rfi
from stablepay_console.api.paging import PagingReport
from stablepay_console.api.tls import verified_tls
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import BATCH_SMALL_ID, METRIC_DAILY_VOLUME_ID, ONRAMP_OPEN_ID
from tests.conftest import FIXED_NOW

NO_RETRY = Retry(total=0)


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to a sandbox in the test process and keeps each one as the gate saw it."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = httpx.ASGITransport(app=sandbox.app)
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)

    def bulk(self) -> list[tuple[str, bool]]:
        return [(r.url.path, bool(r.extensions.get(BULK))) for r in self.requests]


class Breaks(httpx.AsyncBaseTransport):
    """A transport that fails with `error` on every request, as a broken one (or the in-process sandbox) does."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        raise self.error


@pytest.fixture(autouse=True)
def a_fresh_process() -> None:
    """No server's key-check path remembered from another test."""
    PING_PATHS.clear()


@pytest.fixture
async def recorded(sandbox: Sandbox) -> AsyncIterator[tuple[StablePayClient, Recorder]]:
    recorder = Recorder(sandbox)
    async with StablePayClient("http://localhost:8201", SANDBOX_KEY, transport=recorder) as c:
        yield c, recorder


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- the server's gate: a person's requests first ------------------------------------------------------------------


async def test_a_persons_requests_wait_at_the_gate_as_a_persons(recorded: tuple[StablePayClient, Recorder]) -> None:
    client, recorder = recorded
    await client.ping()
    await client.list_rfis()
    await client.get_batch_transfer(BATCH_SMALL_ID)
    await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    await client.run_metric(METRIC_DAILY_VOLUME_ID)
    assert [bulk for _, bulk in recorder.bulk()] == [False] * 5


async def test_every_page_of_a_walk_waits_at_the_gate_as_bulk(recorded: tuple[StablePayClient, Recorder]) -> None:
    client, recorder = recorded
    assert len([rfi async for rfi in client.iter_rfis(page_size=50)]) == 240
    assert recorder.bulk() and set(recorder.bulk()) == {("/v2/rfis", True)}


# --- a walk --------------------------------------------------------------------------------------------------------


async def test_a_walk_asks_for_pages_of_a_hundred_unless_told(recorded: tuple[StablePayClient, Recorder]) -> None:
    client, recorder = recorded
    assert len([rfi async for rfi in client.iter_rfis()]) == 240
    assert {r.url.params["limit"] for r in recorder.requests} == {"100"}


async def test_a_walk_fills_in_the_report_it_is_given(client: StablePayClient) -> None:
    report = PagingReport()
    rows = [rfi async for rfi in client.iter_rfis(page_size=100, report=report)]
    assert report.delivered == len(rows) == 240 and report.pages >= 3 and report.stopped


async def test_a_walk_told_a_date_stops_after_a_page_all_older_than_it(client: StablePayClient) -> None:
    client.export_concurrency = 1
    report = PagingReport()
    tomorrow = FIXED_NOW + timedelta(days=1)
    rows = [rfi async for rfi in client.iter_rfis(page_size=20, report=report, older_than=tomorrow)]
    assert len(rows) == 20 and report.pages == 1, "the first page is all older than tomorrow: the walk stops there"


async def test_a_walk_of_one_row_pages_reads_every_row_once(sandbox: Sandbox) -> None:
    """Many small pages one at a time: each page is sent the moment the one before gives back its place."""
    async with StablePayClient("http://localhost:8202", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app),
                               export_concurrency=1) as client:
        rows = [rfi async for rfi in client.iter_rfis(RfiFilters(status="issued"), page_size=1)]
    assert rows and len({rfi.id for rfi in rows}) == len(rows)


async def test_whoever_listens_for_rfis_is_told_each_pages_rows(sandbox: Sandbox) -> None:
    told: list[list[Rfi]] = []
    async with StablePayClient("http://localhost:8203", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app),
                               on_rfis=told.append) as client:
        page = await client.list_rfis(limit=7)
    assert told == [page.data] and len(page.data) == 7


# --- what is checked before anything is sent -----------------------------------------------------------------------


async def test_an_empty_id_is_refused_by_its_name_before_any_request(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    for call, name in [
        (client.get_batch_transfer, "transfer ID"),
        (client.refresh_onramp_quote, "onramp ID"),
        (client.run_metric, "metric ID"),
    ]:
        with pytest.raises(ValueError) as refused:
            await call(" ")
        assert str(refused.value) == f"The {name} is empty."
    with pytest.raises(ValueError) as refused:
        await client.list_rfis(RfiFilters(user_id=""))
    assert str(refused.value) == "The user ID is empty."
    assert recorder.requests == []


# --- the key check -------------------------------------------------------------------------------------------------


async def test_where_the_key_check_answered_is_remembered_for_that_server_only() -> None:
    elsewhere = Recorder(Sandbox(ping_path="/v2/ping"))
    async with StablePayClient("http://localhost:8204", SANDBOX_KEY, transport=elsewhere) as client:
        await client.ping()
    usual = Recorder(Sandbox())
    async with StablePayClient("http://localhost:8205", SANDBOX_KEY, transport=usual) as client:
        await client.ping()
    assert [r.url.path for r in elsewhere.requests] == ["/ping", "/v2/ping"]
    assert [r.url.path for r in usual.requests] == ["/ping"], "another server is asked where the contract says"


# --- retries -------------------------------------------------------------------------------------------------------


def test_only_a_get_answered_429_or_a_gateways_error_is_retried() -> None:
    retry = default_retry()
    assert [s for s in range(400, 600) if retry.is_retry("GET", s, has_retry_after=False)] == [429, 502, 503, 504]
    assert not retry.is_retry("POST", 503, has_retry_after=False), "a quote refresh is never sent twice"
    assert retry.total == 3


def test_the_wait_before_a_retry_doubles_from_half_a_second_and_never_passes_ten() -> None:
    steady = default_retry().copy_with(backoff_jitter=0.0)
    assert [steady.copy_with(attempts_made=n).backoff_strategy() for n in range(7)] == [
        0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0
    ]


def test_the_waits_of_one_call_add_up_to_twenty_seconds_at_most() -> None:
    retry = default_retry()
    assert not retry.copy_with(elapsed_sleep=19.9).is_exhausted()
    assert retry.copy_with(elapsed_sleep=20.0).is_exhausted()


# --- the words of each failure -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda c: c.get_batch_transfer(BATCH_SMALL_ID), f"GET /v2/wallets/transfers/batches/{BATCH_SMALL_ID}"),
        (lambda c: c.refresh_onramp_quote(ONRAMP_OPEN_ID), f"POST /v2/onramps/{ONRAMP_OPEN_ID}/quote/refresh"),
        (lambda c: c.list_rfis(), "GET /v2/rfis"),
    ],
    ids=["batch", "quote-refresh", "rfis"],
)
async def test_a_refused_connection_names_the_request_and_the_server(call, said) -> None:  # type: ignore[no-untyped-def]
    port = closed_port()
    async with StablePayClient(f"http://127.0.0.1:{port}", SANDBOX_KEY, retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as failed:
            await call(client)
    assert failed.value.message == f"{said}: could not connect to http://127.0.0.1:{port} (ConnectError)."


async def test_a_connection_that_timed_out_says_the_server_did_not_answer_in_time() -> None:
    transport = Breaks(httpx.ConnectTimeout("timed out"))
    async with StablePayClient("http://localhost:8206", SANDBOX_KEY, transport=transport, retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as failed:
            await client.get_batch_transfer(BATCH_SMALL_ID)
    assert failed.value.message == (
        f"GET /v2/wallets/transfers/batches/{BATCH_SMALL_ID}: the server did not answer in time."
    )


async def test_a_server_speaking_no_http_is_named_with_the_first_200_characters_of_what_went_wrong() -> None:
    async def garbage(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"NOT-HTTP " + b"z" * 400 + b"\r\n\r\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(garbage, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, StablePayClient(f"http://127.0.0.1:{port}", SANDBOX_KEY, retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as failed:
            await client.run_metric(METRIC_DAILY_VOLUME_ID)
    start = f"GET /v2/reporting/metrics/{METRIC_DAILY_VOLUME_ID}/results: the connection failed (RemoteProtocolError: "
    text = failed.value.message
    assert text.startswith(start + "illegal status line") and text.endswith("…).")
    assert len(text) == len(start) + 200 + len(").")


async def test_a_broken_transport_is_named_with_the_first_200_characters_of_its_error() -> None:
    transport = Breaks(RuntimeError("the sandbox fell over " + "x" * 300))
    async with StablePayClient("http://localhost:8207", SANDBOX_KEY, transport=transport, retry=NO_RETRY) as client:
        with pytest.raises(TransportError) as failed:
            await client.ping()
    start = "GET /ping: the request failed (RuntimeError: the sandbox fell over "
    text = failed.value.message
    assert text.startswith(start) and text.endswith("x…).")
    assert len(text) == len("GET /ping: the request failed (RuntimeError: ") + 200 + len(").")


async def test_a_broken_transport_is_logged_by_its_kind_alone(caplog: pytest.LogCaptureFixture) -> None:
    transport = Breaks(RuntimeError(f"the sandbox fell over holding {SANDBOX_KEY}"))
    async with StablePayClient("http://localhost:8208", SANDBOX_KEY, transport=transport, retry=NO_RETRY) as client:
        with caplog.at_level(logging.INFO, logger="stablepay_console.api.client"), pytest.raises(TransportError):
            await client.ping()
    assert [r.getMessage() for r in caplog.records] == ["GET /ping failed inside the transport: RuntimeError"]


# --- the deadline --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "said", "logged"),
    [
        (b"", "no answer came", "no answer"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mess",
         "HTTP 200 came but the body did not finish", "200"),
    ],
)
async def test_a_call_past_its_deadline_says_how_far_the_answer_got(
    answer: bytes, said: str, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The server sends `answer` and then nothing more; the call's total deadline ends it."""
    done = asyncio.Event()

    async def stalls(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(answer)
        await writer.drain()
        await done.wait()
        writer.close()

    server = await asyncio.start_server(stalls, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with StablePayClient(f"http://127.0.0.1:{port}", SANDBOX_KEY, retry=NO_RETRY, deadline=0.05) as client:
            with caplog.at_level(logging.INFO, logger="stablepay_console.api.client"):
                with pytest.raises(DeadlineExceeded) as failed:
                    await client.ping()
    finally:
        done.set()
        server.close()
    assert failed.value.message == f"GET /ping: no complete answer within 0.05 s ({said}); retries included."
    assert failed.value.status == (200 if answer else None)
    assert [r.getMessage() for r in caplog.records] == [f"GET /ping -> {logged} (deadline of 0.05 s passed)"]


# --- through a forward proxy ---------------------------------------------------------------------------------------


async def test_a_proxy_that_refuses_the_connection_is_named_as_the_one_that_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxy_port = closed_port()
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    async with StablePayClient("http://127.0.0.1:8209", SANDBOX_KEY, retry=NO_RETRY) as client:
        assert client.proxy is not None
        with pytest.raises(TransportError) as failed:
            await client.ping()
    assert failed.value.message == (
        f"GET /ping: could not connect to http://127.0.0.1:8209: the proxy at 127.0.0.1:{proxy_port} refused the "
        "connection."
    )


async def blocked_by_policy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A server (or a proxy) that answers every request with its own HTML page: 403, not the API's JSON."""
    await reader.readuntil(b"\r\n\r\n")
    page = b"<html><body>Blocked by policy</body></html>"
    writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/html\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n%s" % (len(page), page))
    await writer.drain()
    writer.close()


async def test_an_answer_through_a_proxy_that_is_not_the_apis_is_said_to_be_maybe_the_proxys_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    proxy = await asyncio.start_server(blocked_by_policy, "127.0.0.1", 0)
    proxy_port = proxy.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy_port}")
    async with proxy, StablePayClient("http://127.0.0.1:8210", SANDBOX_KEY, retry=NO_RETRY) as client:
        with pytest.raises(MalformedResponse) as failed:
            await client.run_metric(METRIC_DAILY_VOLUME_ID)
    error = failed.value
    assert error.message == (
        "The server answered HTTP 403 with a body that is not valid JSON (text/html). "
        f"It came through the proxy at 127.0.0.1:{proxy_port}, and may be the proxy's own (403 Forbidden)."
    )
    assert error.status == 403 and error.response is not None and error.response.status_code == 403


async def test_an_answer_without_a_proxy_that_is_not_the_apis_says_nothing_of_a_proxy() -> None:
    server = await asyncio.start_server(blocked_by_policy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, StablePayClient(f"http://127.0.0.1:{port}", SANDBOX_KEY, retry=NO_RETRY) as client:
        with pytest.raises(MalformedResponse) as failed:
            await client.run_metric(METRIC_DAILY_VOLUME_ID)
    assert failed.value.message == "The server answered HTTP 403 with a body that is not valid JSON (text/html)."
    assert failed.value.status == 403


# --- an answer too large -------------------------------------------------------------------------------------------


def test_an_answer_too_large_is_said_with_the_cap_and_a_larger_declared_length() -> None:
    mib = 1024 * 1024
    assert _too_large_message("GET", "/v2/rfis", 200, BodyTooLarge(100 * mib, 100 * mib)) == (
        "GET /v2/rfis: the server's answer is larger than this console accepts (100.0 MiB); it was dropped unread."
    )
    assert _too_large_message("GET", "/v2/rfis", 200, BodyTooLarge(mib - 1, 100 * mib)) == (
        "GET /v2/rfis: the server's answer is larger than this console accepts (1,048,575 bytes) "
        "(it declared 100.0 MiB); it was dropped unread."
    )
    assert _too_large_message("GET", "/ping", 200, BodyTooLarge(mib)).endswith(" (1.0 MiB); it was dropped unread.")


# --- what a client shows of itself ---------------------------------------------------------------------------------


def test_a_client_shows_its_server_its_masked_key_and_its_proxy_never_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    direct = StablePayClient("http://localhost:8211", SANDBOX_KEY)
    assert repr(direct) == f"StablePayClient('http://localhost:8211', key={direct.key.masked!r})"
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.internal:3128")
    proxied = StablePayClient("http://localhost:8211/", SANDBOX_KEY)
    masked = direct.key.masked
    assert repr(proxied) == f"StablePayClient('http://localhost:8211', key={masked!r}, proxy='proxy.internal:3128')"
    assert SANDBOX_KEY not in repr(direct) + repr(proxied)


# --- what every request carries ------------------------------------------------------------------------------------


async def test_every_request_names_the_console_asks_for_json_and_says_which_encodings_it_reads(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    await client.ping()
    headers = recorder.requests[0].headers
    assert (headers["User-Agent"], headers["Accept"], headers["Accept-Encoding"]) == (
        "stablepay-console", "application/json", ACCEPT_ENCODING
    )


async def test_every_request_has_the_default_limits_for_connecting_reading_writing_and_waiting_for_a_connection(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    await client.ping()
    assert recorder.requests[0].extensions["timeout"] == {"connect": 5.0, "read": 20.0, "write": 10.0, "pool": 5.0}


class Redirects(httpx.AsyncBaseTransport):
    """A server that answers every request with a redirect to another of its paths."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return httpx.Response(302, headers={"Location": "/elsewhere"}, request=request)


async def test_a_redirect_is_never_followed() -> None:
    server = Redirects()
    async with StablePayClient("http://localhost:8212", SANDBOX_KEY, transport=server) as client:
        with pytest.raises(APIError):
            await client.get_batch_transfer(BATCH_SMALL_ID)
    assert server.paths == [f"/v2/wallets/transfers/batches/{BATCH_SMALL_ID}"], "the key goes nowhere else"


async def test_a_client_retries_as_the_policy_it_is_given_says() -> None:
    transport = Breaks(httpx.ConnectError("refused"))
    once = Retry(total=1, backoff_factor=0.0)
    async with StablePayClient("http://localhost:8213", SANDBOX_KEY, transport=transport, retry=once) as client:
        with pytest.raises(TransportError):
            await client.ping()
    assert transport.calls == 2, "the first attempt and the one retry the policy allows"


def test_a_walk_has_at_least_one_page_in_flight() -> None:
    assert StablePayClient("http://localhost:8214", SANDBOX_KEY, export_concurrency=0).export_concurrency == 1
    assert StablePayClient("http://localhost:8214", SANDBOX_KEY, export_concurrency=3).export_concurrency == 3
    assert StablePayClient("http://localhost:8214", SANDBOX_KEY).export_concurrency is None


async def test_a_client_given_its_own_transport_goes_through_no_proxy(
    monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{closed_port()}")
    async with StablePayClient("http://localhost:8215", SANDBOX_KEY,
                               transport=httpx.ASGITransport(app=sandbox.app)) as client:
        assert client.proxy is None
        assert (await client.ping()).message == "pong"


async def test_every_request_carries_only_the_headers_the_console_means_to_send(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    await client.ping()
    assert sorted(recorder.requests[0].headers.keys()) == [
        "accept", "accept-encoding", "authorization", "connection", "host", "user-agent"
    ]


def test_a_base_url_keeps_its_path_and_loses_only_its_trailing_slashes() -> None:
    assert StablePayClient("http://localhost:8216/sandboxX/", SANDBOX_KEY).base_url == "http://localhost:8216/sandboxX"


def test_a_client_given_a_key_keeps_that_key() -> None:
    key = ApiKey(SANDBOX_KEY)
    assert StablePayClient("http://localhost:8216", key).key is key


async def test_a_walk_by_pages_asks_for_pages_of_a_hundred_unless_told(
    recorded: tuple[StablePayClient, Recorder],
) -> None:
    client, recorder = recorded
    assert sum([len(rows) async for rows in client.iter_rfi_pages()]) == 240
    assert {r.url.params["limit"] for r in recorder.requests} == {"100"}


async def test_each_answer_is_logged_with_its_request_and_status(
    recorded: tuple[StablePayClient, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    client, _ = recorded
    with caplog.at_level(logging.INFO, logger="stablepay_console.api.client"):
        await client.run_metric(METRIC_DAILY_VOLUME_ID)
    assert [r.getMessage() for r in caplog.records] == [
        f"GET /v2/reporting/metrics/{METRIC_DAILY_VOLUME_ID}/results -> 200"
    ]


async def test_an_answer_over_the_cap_is_dropped_and_said_with_its_request_and_the_cap(
    sandbox: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    async with StablePayClient("http://localhost:8217", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app),
                               max_body_bytes=100) as client:
        with caplog.at_level(logging.INFO, logger="stablepay_console.api.client"):
            with pytest.raises(ResponseTooLarge) as failed:
                await client.list_rfis()
    assert failed.value.message.startswith(
        "GET /v2/rfis: the server's answer is larger than this console accepts (100 bytes)"
    )
    assert failed.value.status == 200 and failed.value.limit == 100
    assert [r.getMessage() for r in caplog.records] == ["GET /v2/rfis -> 200 (body over 100 bytes, dropped)"]


class HoldsBack(httpx.AsyncBaseTransport):
    """A server that answers every request 429, asking for an hour's pause."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "3600"}, request=request)


async def test_a_servers_pause_holds_that_servers_gate_and_no_other() -> None:
    async with StablePayClient("http://localhost:8218", SANDBOX_KEY, transport=HoldsBack(), retry=NO_RETRY) as client:
        with pytest.raises(APIError):
            await client.ping()
    assert gate_for("http://localhost:8218").held_for() > 0
    assert gate_for("http://localhost:8219").held_for() == 0


def test_an_https_client_checks_certificates_with_the_one_verified_context_directly_and_through_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def context(client: StablePayClient) -> object:
        return client._http._transport._async_transport.inner._pool._ssl_context  # type: ignore[attr-defined]

    assert context(StablePayClient("https://api.stablepay.example", SANDBOX_KEY)) is verified_tls()
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    proxied = StablePayClient("https://api.stablepay.example", SANDBOX_KEY)
    assert proxied.proxy is not None and context(proxied) is verified_tls()
