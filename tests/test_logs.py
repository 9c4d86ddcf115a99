"""The log file: our own records only, method, path and status; no query string, headers, bodies or escapes."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from stablepay_console.api import StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.cli.logs import OUR_LOGGER, PrivacyFilter, setup_logging, without_query
from stablepay_console.cli.main import main
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.storage import locations
from tests.conftest import CANARY_KEY
from tests.hostile_payloads import HOSTILE, RAW_CHARS

USER = "0cb1e29c-658c-4a14-95e6-0af593bd04cf"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def log_path(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "console.log"
    handler = setup_logging(path)
    yield path
    logging.getLogger(OUR_LOGGER).removeHandler(handler)
    handler.close()


async def test_requests_are_logged_as_method_path_and_status_only(log_path: Path) -> None:
    sandbox = Sandbox()
    sandbox.add_key(CANARY_KEY)
    transport = httpx.ASGITransport(app=sandbox.app)
    async with StablePayClient("http://localhost", CANARY_KEY, transport=transport) as client:
        await client.list_rfis(RfiFilters(status="issued", user_id=USER), limit=5)
        await client.ping()
    text = log_path.read_text(encoding="utf-8")
    assert "GET /v2/rfis -> 200" in text and "GET /ping -> 200" in text
    for absent in (USER, "userId", "status=issued", "?", CANARY_KEY, CANARY_KEY[-8:], "Bearer", "Authorization",
                   "HTTP Request", "httpx", '"data"'):
        assert absent not in text, absent


async def test_library_loggers_never_reach_the_file_even_at_debug(log_path: Path) -> None:
    for name in ("httpx", "httpcore", "httpx_retries"):
        logging.getLogger(name).warning("GET https://api.example/v2/rfis?userId=%s Retry-After: %s", USER, HOSTILE)
    async with StablePayClient("http://localhost", SANDBOX_KEY,
                               transport=httpx.ASGITransport(app=Sandbox().app)) as client:
        await client.ping()
    text = log_path.read_text(encoding="utf-8")
    assert "GET /ping -> 200" in text
    assert USER not in text and "Retry-After" not in text and "api.example" not in text


def test_our_records_lose_query_strings_escapes_and_traceback_text(log_path: Path) -> None:
    log = logging.getLogger(f"{OUR_LOGGER}.test")
    log.info("GET /v2/rfis?userId=%s&status=issued -> %s", USER, 200)
    log.warning("Opened https://hosted.example/rfi/1?token=secret#frag for %s", "someone")
    log.warning("Server said %s", HOSTILE)
    try:
        raise ValueError("the server said " + HOSTILE)
    except ValueError:
        log.exception("The record could not be kept")
    text = log_path.read_text(encoding="utf-8")
    assert "GET /v2/rfis -> 200" in text
    assert "Opened https://hosted.example/rfi/1 for someone" in text
    assert "token" not in text and USER not in text
    assert not set(text) & RAW_CHARS and "\\x1b]52;" in text
    assert "The record could not be kept (ValueError)" in text
    assert "Traceback" not in text and "the server said" not in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("GET /v2/rfis?limit=20&offset=40 -> 200", "GET /v2/rfis -> 200"),
        ("https://a.example/x?y=1", "https://a.example/x"),
        ("GET /ping -> 401", "GET /ping -> 401"),
        ("Why? Because.", "Why? Because."),
        ("/path#frag and more", "/path and more"),
    ],
)
def test_without_query(text: str, expected: str) -> None:
    assert without_query(text) == expected


def test_a_record_with_arguments_that_do_not_fit_is_kept_without_crashing() -> None:
    record = logging.LogRecord(OUR_LOGGER, logging.INFO, __file__, 1, "%s %s", ("one",), None)
    assert PrivacyFilter().filter(record)
    assert "unformattable" in record.getMessage()


def test_the_headless_export_logs_no_user_id(tmp_path: Path) -> None:
    assert main(["export", "--user-id", USER, "--output", str(tmp_path / "mine.csv")]) == 0
    text = locations.log_file().read_text(encoding="utf-8")
    assert "GET /v2/rfis -> 200" in text
    assert USER not in text and "userId" not in text


RETRY_SCRIPT = """
import asyncio, sys
import httpx
from httpx_retries import Retry
from stablepay_console.api import StablePayClient
from stablepay_console.cli.logs import setup_logging

setup_logging()
answers = [httpx.Response(429, headers={"Retry-After": sys.argv[1]}), httpx.Response(200, json={"message": "pong"})]

async def main():
    retry = Retry(total=2, allowed_methods=["GET"], status_forcelist=[429], backoff_factor=0.01)
    transport = httpx.MockTransport(lambda request: answers.pop(0))
    async with StablePayClient("http://localhost", "sk_test_0123456789", transport=transport, retry=retry) as c:
        print((await c.ping()).message)

asyncio.run(main())
"""


def test_a_hostile_retry_after_reaches_neither_the_terminal_nor_the_file(isolated_config: Path) -> None:
    """httpx-retries warns with the server's Retry-After text; in a real process it must go nowhere."""
    hostile_value = "Fri \x1b]52;c;cGFzdGVk\x07 never"
    result = subprocess.run([sys.executable, "-c", RETRY_SCRIPT, hostile_value], capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pong"
    assert result.stderr == ""
    text = locations.log_file().read_text(encoding="utf-8")
    assert "GET /ping -> 200" in text and "Retry-After" not in text and "\x1b" not in text
