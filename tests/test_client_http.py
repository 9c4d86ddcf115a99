"""The client over real loopback HTTP against `stablepay-console sandbox serve`, started as the user would."""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
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
    Unauthorized,
)
from stablepay_console.api.filters import RfiFilters
from stablepay_console.sandbox.data import (
    BATCH_50_ID,
    METRIC_DAILY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
    SANDBOX_KEY,
)

STARTUP_SECONDS = 30.0
FAST_RETRY = Retry(total=2, allowed_methods=["GET"], backoff_factor=0.01, max_backoff_wait=0.05)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cli() -> list[str]:
    """The installed entry point beside this interpreter, or the module if it is missing."""
    script = Path(sys.executable).parent / "stablepay-console"
    return [str(script)] if script.exists() else [sys.executable, "-m", "stablepay_console"]


@dataclass
class Served:
    process: subprocess.Popen[str]
    base_url: str
    key: str
    banner: list[str] = field(default_factory=list)

    def stop(self) -> tuple[int, str, str]:
        """Ctrl+C, then the exit code and the rest of stdout and stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=20)
        return self.process.returncode, out, err


def _read_banner(process: subprocess.Popen[str]) -> list[str]:
    """The lines printed up to "Press Ctrl+C", read straight from the pipe (no buffer hides a line)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    raw = b""
    deadline = time.monotonic() + STARTUP_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while time.monotonic() < deadline and b"Press Ctrl+C" not in raw:
            if selector.select(timeout=0.5):
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                raw += chunk
            elif process.poll() is not None:
                break
    lines = raw.decode().splitlines()
    if any(line.startswith("Press Ctrl+C") for line in lines):
        return lines
    process.kill()
    _, err = process.communicate(timeout=10)
    raise AssertionError(f"the sandbox did not start: stdout={lines!r} stderr={err!r}")


@contextmanager
def serve(*args: str) -> Iterator[Served]:
    port = free_port()
    process = subprocess.Popen(
        [*cli(), "sandbox", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        banner = _read_banner(process)
        assert banner[0] == f"Sandbox serving at http://127.0.0.1:{port}"
        assert banner[1].startswith("Sandbox key: ")
        base_url = banner[0].removeprefix("Sandbox serving at ")
        yield Served(process, base_url, banner[1].removeprefix("Sandbox key: "), banner)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    with serve("--seed", "7", "--rfis", "240") as served:
        yield served


def connect(served: Served, key: str | None = None, **kw: object) -> StablePayClient:
    return StablePayClient(served.base_url, key or served.key, **kw)  # type: ignore[arg-type]


# --- every endpoint over HTTP ---------------------------------------------------------------


async def test_banner_prints_url_and_the_sandbox_key(server: Served) -> None:
    assert server.key == SANDBOX_KEY
    assert server.base_url.startswith("http://127.0.0.1:")


async def test_ping_over_http(server: Served) -> None:
    async with connect(server) as client:
        assert (await client.ping()).message == "pong"


async def test_rfis_over_http(server: Served) -> None:
    async with connect(server) as client:
        first = await client.list_rfis()
        assert (first.pagination.limit, first.pagination.offset, first.pagination.total) == (20, 0, 240)
        issued = await client.list_rfis(RfiFilters(status="issued", kind="transaction"), limit=100)
        assert issued.data and all(r.status == "issued" and r.kind == "transaction" for r in issued.data)
        last = await client.list_rfis(limit=100, offset=200)
        assert len(last.data) == 40
        past = await client.list_rfis(limit=100, offset=241)
        assert past.data == [] and past.pagination.total == 240
        everything = [r.id async for r in client.iter_rfis(page_size=50)]
        assert len(everything) == len(set(everything)) == 240
        assert everything[:20] == [r.id for r in first.data]


async def test_batch_refresh_and_metrics_over_http(server: Served) -> None:
    async with connect(server) as client:
        batch = await client.get_batch_transfer(BATCH_50_ID)
        assert len(batch.details.destination.batch) == 50 and isinstance(batch.total, Decimal)
        before = await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
        after = await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
        assert before.quote is not None and after.quote is not None
        assert before.quote.rate != after.quote.rate
        no_expiry = await client.refresh_onramp_quote(ONRAMP_OPEN_NO_EXPIRY_ID)
        assert no_expiry.quote is not None and no_expiry.quote.expires_at is None
        daily = await client.run_metric(METRIC_DAILY_VOLUME_ID)
        assert daily.metadata.template == "GROSS_VOLUME"
        counts = await client.run_metric(METRIC_TX_COUNT_ID)
        assert counts.metadata.breakdowns == ["transactionType", "transactionStatus"]


async def test_error_shapes_over_http(server: Served) -> None:
    async with connect(server) as client:
        with pytest.raises(StatusError) as not_open:
            await client.refresh_onramp_quote(ONRAMP_COMPLETED_ID)
        assert (not_open.value.status, not_open.value.code) == (409, "INVALID_STATUS")
        with pytest.raises(StatusError) as missing:
            await client.get_batch_transfer("0d000000-0000-4000-8000-000000000000")
        assert missing.value.status == 404
    async with connect(server, key="sk_sandbox_not_a_real_key_000000") as stranger:
        with pytest.raises(Unauthorized) as ping_refused:
            await stranger.ping()
        assert ping_refused.value.message == "Not authorized"
        with pytest.raises(Unauthorized) as list_refused:
            await stranger.list_rfis()
        assert list_refused.value.message == "Unauthorized: Missing or invalid API key"


async def test_invalid_query_over_http(server: Served) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as raw:
        response = await raw.get(
            "/v2/rfis", params={"limit": "500", "offset": "-1"}, headers={"Authorization": f"Bearer {server.key}"}
        )
    assert response.status_code == 400
    assert response.json()["type"] == "VALIDATION_ERROR"
    assert {f["field"] for f in response.json()["fields"]} == {"limit", "offset"}


# --- faults over HTTP -------------------------------------------------------------------------


async def test_server_errors_over_http() -> None:
    with serve("--rfis", "5", "--error-rate", "1") as served:
        async with connect(served) as client:
            with pytest.raises(ServerError) as caught:
                await client.list_rfis()
            assert caught.value.code == "INTERNAL_SERVER_ERROR"
            with pytest.raises(ServerError):
                await client.refresh_onramp_quote(ONRAMP_OPEN_ID)


async def test_malformed_bodies_over_http() -> None:
    with serve("--rfis", "5", "--malformed-rate", "1") as served:
        async with connect(served, retry=FAST_RETRY) as client:
            for _ in range(6):
                with pytest.raises(MalformedResponse) as caught:
                    await client.list_rfis()
                assert caught.value.status in (200, 502)


async def test_rate_limit_over_http_honours_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []

    async def record(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(httpx_retries.retry, "asyncio", SimpleNamespace(sleep=record))
    with serve("--rfis", "5", "--rate-limit-rate", "1") as served:
        async with connect(served) as client:
            with pytest.raises(StatusError) as caught:
                await client.ping()
    assert caught.value.status == 429
    assert asked == [1.0, 1.0, 1.0]


@contextmanager
def answering_once_released(release: threading.Event) -> Iterator[str]:
    """A server on loopback whose /ping answers only once `release` is set (503 if it never is, within 20 s)."""
    import uvicorn

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]  # a bare ASGI app
        if scope["type"] != "http":
            return
        released = await asyncio.to_thread(release.wait, 20)
        status, body = (200, b'{"message": "pong"}') if released else (503, b'{"message": "never released"}')
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "the held server never started"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        release.set()
        server.should_exit = True
        thread.join(20)


async def test_work_meant_for_the_wait_runs_once_the_request_is_sent_and_before_its_answer() -> None:
    """The page models are built while the first page is on its way (`_exchange(meanwhile=...)`), not after: the
    server answers only once that work has run, so work that waited for the answer would never be answered."""
    release = threading.Event()
    ran: list[bool] = []

    def meanwhile() -> None:
        ran.append(release.is_set())  # not yet answered: the server is still holding the request
        release.set()

    with answering_once_released(release) as base_url:
        async with StablePayClient(base_url, SANDBOX_KEY) as client:
            answer = await client._exchange("GET", "/ping", meanwhile=meanwhile)
    assert ran == [False], "once, while the request was held"
    assert answer.status_code == 200, "it waited for the answer instead of running while it was awaited"


async def test_a_slow_server_is_a_timeout() -> None:
    with serve("--rfis", "5", "--latency", "1.5") as served:
        async with connect(served, timeout=0.2, retry=FAST_RETRY) as client:
            with pytest.raises(TransportError, match="did not answer in time"):
                await client.ping()


async def test_connection_refused_is_a_transport_error_after_bounded_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float] = []

    async def record(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(httpx_retries.retry, "asyncio", SimpleNamespace(sleep=record))
    port = free_port()  # bound and released: nothing listens there now
    attempts: list[str] = []

    class Counting(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            attempts.append(request.url.path)
            return await super().handle_async_request(request)

    async with StablePayClient(f"http://127.0.0.1:{port}", SANDBOX_KEY, transport=Counting()) as client:
        with pytest.raises(TransportError) as caught:
            await client.list_rfis()
        assert f"could not connect to http://127.0.0.1:{port}" in str(caught.value)
        assert attempts == ["/v2/rfis"] * 4
        assert len(asked) == 3 and all(s <= 10 for s in asked)
        attempts.clear()
        with pytest.raises(TransportError):
            await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
        assert len(attempts) == 1  # the POST is not retried


# --- lifecycle ---------------------------------------------------------------------------------


async def test_ctrl_c_stops_the_server_cleanly() -> None:
    with serve("--rfis", "5") as served:
        async with connect(served) as client:
            assert (await client.ping()).message == "pong"
        code, out, err = served.stop()
    assert code == 0
    assert out.strip().splitlines()[-1] == "Sandbox stopped."
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    async with connect(served, retry=Retry(total=0)) as client:
        with pytest.raises(TransportError):
            await client.ping()


def test_serving_a_non_loopback_host_is_refused() -> None:
    result = subprocess.run(
        [*cli(), "sandbox", "serve", "--host", "0.0.0.0", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "loopback addresses only" in result.stderr
    assert "Sandbox serving" not in result.stdout


def test_serving_on_a_busy_port_fails_without_a_banner() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = subprocess.run(
            [*cli(), "sandbox", "serve", "--port", str(port), "--rfis", "5"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode != 0
    assert "Sandbox serving" not in result.stdout
    assert "address already in use" in result.stderr
