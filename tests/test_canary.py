"""A canary key used for real requests shows up in no log, repr, exception text or crash traceback."""

from __future__ import annotations

import copy
import io
import logging
import os
import pickle
import re
import subprocess
import sys
import traceback
from pathlib import Path

import httpx
import pytest
from httpx_retries import Retry
from rich.console import Console
from rich.pretty import pretty_repr
from rich.traceback import Traceback

from stablepay_console.api import APIError, ApiKey, StablePayClient, TransportError, Unauthorized
from stablepay_console.api.filters import RfiFilters
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import BATCH_50_ID, METRIC_DAILY_VOLUME_ID, ONRAMP_COMPLETED_ID, ONRAMP_OPEN_ID
from tests.conftest import CANARY_KEY
from tests.test_client_http import serve

TAIL = CANARY_KEY[-12:]


def leaks(text: str) -> bool:
    """Whether the canary (or its last 12 characters) appears, even when wrapped across lines or boxes."""
    squeezed = re.sub(r"[^0-9A-Za-z_]", "", text)
    return CANARY_KEY in text or TAIL in text or TAIL in squeezed


def test_leaks_detects_the_canary_even_wrapped() -> None:
    assert leaks(f"x {CANARY_KEY} y")
    assert leaks(f"│ ... {CANARY_KEY[:-6]}│\n│{CANARY_KEY[-6:]} │")
    assert not leaks(ApiKey(CANARY_KEY).masked)


@pytest.fixture
def canary_sandbox(sandbox: Sandbox) -> Sandbox:
    sandbox.add_key(CANARY_KEY, "canary")
    return sandbox


def canary_client(sandbox: Sandbox, **kw: object) -> StablePayClient:
    return StablePayClient(
        "http://localhost", CANARY_KEY, transport=httpx.ASGITransport(app=sandbox.app), **kw  # type: ignore[arg-type]
    )


async def every_call(client: StablePayClient) -> list[APIError]:
    """Call every endpoint, successes and refusals; return the errors raised."""
    errors: list[APIError] = []
    await client.ping()
    await client.list_rfis(RfiFilters(status="issued"))
    await client.get_batch_transfer(BATCH_50_ID)
    await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
    await client.run_metric(METRIC_DAILY_VOLUME_ID)
    for failing in (client.refresh_onramp_quote(ONRAMP_COMPLETED_ID), client.run_metric(BATCH_50_ID)):
        try:
            await failing
        except APIError as exc:
            errors.append(exc)
    return errors


# --- logs --------------------------------------------------------------------------------------


def _all_log_text(records: list[logging.LogRecord]) -> str:
    parts = []
    for record in records:
        parts.append(record.getMessage())
        parts.append(repr(record.args))
        parts.append(repr(record.__dict__))
    return "\n".join(parts)


async def test_no_canary_in_logs_in_process(canary_sandbox: Sandbox, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "httpx_retries", "stablepay_console", "asyncio"):
        caplog.set_level(logging.DEBUG, logger=name)
    canary_sandbox.faults.force, canary_sandbox.faults.force_count = "429", 1  # a retry, with its debug lines
    canary_sandbox.faults.retry_after = 0
    async with canary_client(canary_sandbox, retry=Retry(total=2, allowed_methods=["GET"])) as client:
        errors = await every_call(client)
    assert len(errors) == 2
    assert ("GET", "/ping") in canary_sandbox.api_calls()  # the canary really was sent and accepted
    assert caplog.records, "nothing was logged, so this test would prove nothing"
    assert any(r.name.startswith("httpx") for r in caplog.records)
    assert not leaks(caplog.text)
    assert not leaks(_all_log_text(caplog.records))


async def test_no_canary_in_logs_over_http(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "httpx_retries", "stablepay_console"):
        caplog.set_level(logging.DEBUG, logger=name)
    with serve("--rfis", "5") as served:
        async with StablePayClient(served.base_url, CANARY_KEY) as client:
            # The served sandbox only knows its own key: every call is refused, but the canary goes on the wire.
            with pytest.raises(Unauthorized) as refused:
                await client.ping()
            with pytest.raises(Unauthorized):
                await client.refresh_onramp_quote(ONRAMP_OPEN_ID)
        served.stop()
    assert any(r.name.startswith("httpcore") for r in caplog.records)  # the wire-level debug lines were captured
    assert not leaks(caplog.text)
    assert not leaks(_all_log_text(caplog.records))
    assert not leaks(str(refused.value)) and not leaks(repr(refused.value))


# --- reprs and exception text --------------------------------------------------------------------


async def test_no_canary_in_any_repr(canary_sandbox: Sandbox) -> None:
    key = ApiKey(CANARY_KEY)
    seen: list[httpx.Request] = []

    async def keep(request: httpx.Request) -> None:
        seen.append(request)

    async with canary_client(canary_sandbox) as client:
        client._http.event_hooks["request"].append(keep)
        errors = await every_call(client)
        texts = [
            "%s %r" % (key, key),  # noqa: UP031 - the old formatting path too
            repr(key), str(key), f"{key}", f"{key:>80}", key.masked,
            repr(client), str(client), pretty_repr(vars(client)), pretty_repr(vars(client._http)),
            repr(client._http.auth), repr(client._http.headers),
            *(repr(r) for r in seen), *(repr(r.headers) for r in seen), *(str(r.headers) for r in seen),
            *(repr(e) for e in errors), *(str(e) for e in errors),
            *(repr(e.response) for e in errors), *(repr(e.response.request.headers) for e in errors if e.response),
        ]
    assert seen and all(r.headers["authorization"] == f"Bearer {CANARY_KEY}" for r in seen)
    for text in texts:
        assert not leaks(text), text


def test_the_key_cannot_be_dumped() -> None:
    key = ApiKey(CANARY_KEY)
    with pytest.raises(TypeError) as pickled:
        pickle.dumps(key)
    assert not leaks(str(pickled.value))
    with pytest.raises(TypeError):
        copy.deepcopy(key)
    with pytest.raises(TypeError):
        vars(key)
    assert not hasattr(key, "__dict__")
    assert key == ApiKey(CANARY_KEY) and key != ApiKey(CANARY_KEY + "x")
    assert key.reveal() == CANARY_KEY


@pytest.mark.parametrize(
    "raised",
    [httpx.ReadError("connection reset by peer"), httpx.ConnectError("refused"), RuntimeError("transport bug")],
)
async def test_no_canary_in_exception_text_or_rich_traceback(raised: Exception) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == f"Bearer {CANARY_KEY}"
        raise raised

    client = StablePayClient("http://localhost", CANARY_KEY, transport=httpx.MockTransport(fail), retry=Retry(total=0))
    with pytest.raises(TransportError) as caught:
        await client.list_rfis()
    await client.aclose()
    error = caught.value
    plain = "".join(traceback.format_exception(error))
    assert "TransportError" in plain
    assert not leaks(plain) and not leaks(str(error)) and not leaks(repr(error))
    # Rendered as Textual renders a crash (locals shown), and more generously still.
    for max_length in (5, 1000):
        out = io.StringIO()
        Console(file=out, width=300, color_system=None).print(
            Traceback.from_exception(
                type(error), error, error.__traceback__, show_locals=True, locals_max_length=max_length,
                locals_max_string=1000,
            )
        )
        rendered = out.getvalue()
        assert "locals" in rendered and "TransportError" in rendered
        assert not leaks(rendered)


# --- a real Textual crash ------------------------------------------------------------------------

CRASHING_APP = '''
import asyncio, sys
import httpx
from textual.app import App, ComposeResult
from textual.widgets import Static
from stablepay_console.api import StablePayClient

MODE, KEY = sys.argv[1], sys.argv[2]


class MidRequest(httpx.AsyncBaseTransport):
    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer " + KEY  # the key is on the wire by now
        if MODE == "read_error":
            raise httpx.ReadError("connection reset by peer")
        raise RuntimeError("the transport broke mid-request")


async def broken_server(scope, receive, send):
    raise RuntimeError("the in-process server broke mid-request")


class Crashing(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("loading")

    def on_mount(self) -> None:
        self.run_worker(self.load(), exit_on_error=True)

    async def load(self) -> None:
        transport = httpx.ASGITransport(app=broken_server) if MODE == "asgi" else MidRequest()
        client = StablePayClient("http://localhost", KEY, transport=transport)
        await client.refresh_onramp_quote("2b7d9e40-8c1a-4f6e-b2d5-00000000a001")


async def main() -> None:
    app = Crashing()
    try:
        async with app.run_test() as pilot:
            for _ in range(200):
                await pilot.pause()
                if app.return_code is not None:
                    break
    except Exception as exc:
        print("run_test raised", type(exc).__name__)


asyncio.run(main())
'''


@pytest.mark.parametrize("mode", ["read_error", "runtime_error", "asgi"])
def test_no_canary_in_a_textual_crash_traceback(tmp_path: Path, mode: str) -> None:
    script = tmp_path / "crashing_app.py"
    script.write_text(CRASHING_APP)
    env = {**os.environ, "COLUMNS": "250", "LINES": "60", "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, str(script), mode, CANARY_KEY],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    output = result.stdout + result.stderr
    # The crash really happened and Textual really printed its traceback with locals.
    assert "run_test raised WorkerFailed" in result.stdout, output
    assert "Traceback" in result.stderr and "locals" in result.stderr, output
    assert "TransportError" in result.stderr
    assert not leaks(output)
