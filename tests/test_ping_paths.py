"""The key check at `/ping` (the contract) or `/v2/ping` (the provider's published description).

A 404 from `/ping` is followed by one try of `/v2/ping`; the path that answered is remembered per server, so
each later check is one request; a 404 from both is the error it always was.
"""

from __future__ import annotations

import httpx
import pytest

from stablepay_console.api import StablePayClient
from stablepay_console.api.errors import StatusError, Unauthorized
from stablepay_console.api.key_check import PING_PATHS
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import SANDBOX_KEY
from tests.cli_e2e import run, serve
from tests.test_cli_commands import cli, failed


@pytest.fixture(autouse=True)
def a_fresh_process() -> None:
    """Each test starts with no path remembered, as a new process does (a test run twice in one process, as the
    mutation run does, would otherwise find the first run's)."""
    PING_PATHS.clear()


class Recorder(httpx.AsyncBaseTransport):
    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = httpx.ASGITransport(app=sandbox.app)
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        return await self.inner.handle_async_request(request)


def client_of(sandbox: Sandbox, base_url: str, key: str = SANDBOX_KEY) -> tuple[StablePayClient, Recorder]:
    """Each test its own base URL: what a server answers at is remembered per base URL for the process."""
    recorder = Recorder(sandbox)
    return StablePayClient(base_url, key, transport=recorder), recorder


async def test_a_server_answering_only_v2_ping_is_checked_there_once_found() -> None:
    sandbox = Sandbox(ping_path="/v2/ping")
    client, recorder = client_of(sandbox, "http://localhost:8101")
    async with client:
        assert (await client.ping()).message == "pong"
        assert recorder.paths == ["/ping", "/v2/ping"]
    again, recorder = client_of(sandbox, "http://localhost:8101")  # a new client (another command) for that server
    async with again:
        assert (await again.ping()).message == "pong"
        await again.ping()
        assert recorder.paths == ["/v2/ping", "/v2/ping"], "one request a check once the server's path is known"


async def test_a_server_answering_ping_is_asked_once_per_check() -> None:
    client, recorder = client_of(Sandbox(), "http://localhost:8102")
    async with client:
        await client.ping()
        await client.ping()
    assert recorder.paths == ["/ping", "/ping"]


async def test_a_refused_key_at_v2_ping_is_that_refusal_and_the_path_is_kept() -> None:
    sandbox = Sandbox(ping_path="/v2/ping")
    client, recorder = client_of(sandbox, "http://localhost:8103", key="sk_sandbox_not_the_right_key_0000000000")
    async with client:
        with pytest.raises(Unauthorized):
            await client.ping()
        with pytest.raises(Unauthorized):
            await client.ping()
    assert recorder.paths == ["/ping", "/v2/ping", "/v2/ping"]


async def test_a_404_from_both_is_the_error_of_ping() -> None:
    sandbox = Sandbox(ping_path="/nowhere")
    client, recorder = client_of(sandbox, "http://localhost:8104")
    async with client:
        with pytest.raises(StatusError) as raised:
            await client.ping()
    assert raised.value.status == 404 and "Route not found" in str(raised.value)
    assert raised.value.response is not None and raised.value.response.request.url.path == "/ping"
    assert recorder.paths == ["/ping", "/v2/ping"]


async def test_a_server_that_answers_at_neither_is_asked_at_ping_first_again() -> None:
    client, recorder = client_of(Sandbox(ping_path="/nowhere"), "http://localhost:8105")
    async with client:
        for _ in range(2):
            with pytest.raises(StatusError):
                await client.ping()
    assert recorder.paths == ["/ping", "/v2/ping", "/ping", "/v2/ping"], "nothing remembered of a 404"


async def test_a_server_known_at_v2_ping_that_moved_back_to_ping_is_found_there() -> None:
    url = "http://localhost:8106"
    before, _ = client_of(Sandbox(ping_path="/v2/ping"), url)
    async with before:
        await before.ping()
    after, recorder = client_of(Sandbox(), url)  # the same server, upgraded: /ping only
    async with after:
        assert (await after.ping()).message == "pong"
        await after.ping()
    assert recorder.paths == ["/v2/ping", "/ping", "/ping"]


def test_the_ping_command_and_profile_status_work_against_a_server_with_only_v2_ping() -> None:
    with serve("--rfis", "9", "--ping-path", "/v2/ping") as server:
        result = cli(server, "ping")
        assert (result.code, result.out) == (0, "pong\n"), result
        status = run("profile", "status", "--profile", "local", profile="local", key=server.key)
        assert status.code == 0, status
        assert "404" not in status.out + status.err, status
        failed(run("ping", profile="local", key="sk_sandbox_not_the_right_key_0000000000"), 1, "Not authorized")
