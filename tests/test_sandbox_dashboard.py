"""The client of the sandbox's API Keys page (api/dashboard.py): a key is made under the name asked for and shown
once; the key to delete travels in a POST body, never in a URL; each refusal says what went wrong, never a key."""

from __future__ import annotations

import json

import httpx
import pytest

from stablepay_console.api.dashboard import DashboardError, SandboxDashboard
from stablepay_console.sandbox import Sandbox


class Seen(httpx.AsyncBaseTransport):
    """The sandbox behind a record of each request (URL, body) and of the client's timeout."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = httpx.ASGITransport(app=sandbox.app)
        self.requests: list[tuple[str, str, bytes]] = []
        self.timeouts: list[object] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        self.requests.append((request.method, str(request.url), body))
        self.timeouts.append(request.extensions.get("timeout"))
        return await self.inner.handle_async_request(request)


def answering(status: int, body: bytes = b"") -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(status, content=body))


async def test_a_key_is_made_under_its_name_and_deleted_by_a_post_body(sandbox: Sandbox) -> None:
    seen = Seen(sandbox)
    dashboard = SandboxDashboard("http://localhost:8080/", transport=seen)
    key = await dashboard.create_key("rotation 2026-11")
    assert sandbox.state.keys[key.reveal()] == "rotation 2026-11"
    await dashboard.delete_key(key)
    assert key.reveal() not in sandbox.state.keys
    assert [(m, u) for m, u, _ in seen.requests] == [("POST", "http://localhost:8080/_sandbox/keys"),
                                                     ("POST", "http://localhost:8080/_sandbox/keys/delete")]
    assert json.loads(seen.requests[0][2]) == {"name": "rotation 2026-11"}
    assert json.loads(seen.requests[1][2]) == {"key": key.reveal()}
    assert all(t == {"connect": 10.0, "read": 10.0, "write": 10.0, "pool": 10.0} for t in seen.timeouts)
    with pytest.raises(DashboardError) as refused:
        await dashboard.delete_key(key)
    assert str(refused.value) == f"The sandbox dashboard has no key {key.masked} (already deleted?)."
    assert key.reveal() not in str(refused.value)


def test_the_base_url_loses_its_trailing_slashes_only() -> None:
    assert SandboxDashboard("http://localhost:8080//").base_url == "http://localhost:8080"
    assert SandboxDashboard("https://sandbox.example/v1/").base_url == "https://sandbox.example/v1"
    assert SandboxDashboard("https://sandbox.example/X/").base_url == "https://sandbox.example/X"


@pytest.mark.parametrize(("status", "body", "said"), [
    (500, b"", "The sandbox dashboard did not create the key (HTTP 500)."),
    (200, b'{"key": "sk_sandbox_0123456789abcdef"}', "The sandbox dashboard did not create the key (HTTP 200)."),
    (201, b"not json", "The sandbox dashboard answered without a usable key."),
    (201, b'["sk_sandbox_0123456789abcdef"]', "The sandbox dashboard answered without a usable key."),
    (201, b'{"key": ""}', "The sandbox dashboard answered without a usable key."),
    (201, b'{"name": "no key"}', "The sandbox dashboard answered without a usable key."),
])
async def test_a_key_not_made_says_why(status: int, body: bytes, said: str) -> None:
    with pytest.raises(DashboardError) as refused:
        await SandboxDashboard("http://localhost", transport=answering(status, body)).create_key("x")
    assert str(refused.value) == said


async def test_a_key_not_deleted_says_the_status(sandbox: Sandbox) -> None:
    key = await SandboxDashboard("http://localhost", transport=httpx.ASGITransport(app=sandbox.app)).create_key("x")
    with pytest.raises(DashboardError) as refused:
        await SandboxDashboard("http://localhost", transport=answering(503)).delete_key(key)
    assert str(refused.value) == "The sandbox dashboard did not delete the key (HTTP 503)."
