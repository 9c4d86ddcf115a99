"""`sandbox serve --webhook-url --webhook-signing-key`: the provider's signed deliveries, retried with backoff
when they fail (a 5xx or no answer), never after a 4xx, each outcome printed."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import jwt
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from stablepay_console.cli.webhooks import Listen, server
from stablepay_console.sandbox.control import add_request
from stablepay_console.sandbox.data import SandboxData
from stablepay_console.sandbox.webhooks import WebhookSender, load_signing_key
from stablepay_console.services.webhooks.envelope import parse
from stablepay_console.services.webhooks.verify import load_public_key, verify_token
from tests.cli_e2e import free_port
from tests.webhook_keys import write_keys


class Provider:
    """A receiver that answers the statuses it is given, in turn, and keeps what it got."""

    def __init__(self, statuses: list[int]) -> None:
        self.statuses = statuses
        self.got: list[tuple[str, bytes]] = []
        self.app = Starlette(routes=[Route("/webhooks", self.take, methods=["POST"])])

    async def take(self, request: Request) -> Response:
        self.got.append((request.headers.get("authorization", ""), await request.body()))
        return Response(status_code=self.statuses[min(len(self.got), len(self.statuses)) - 1])


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    return write_keys(tmp_path)


async def deliver(provider: Provider, private: Path, count: int = 1) -> tuple[WebhookSender, list[str]]:
    port = free_port()
    running = server(provider.app, Listen("127.0.0.1", port))
    await running.start()
    said: list[str] = []
    sender = WebhookSender(f"http://127.0.0.1:{port}/webhooks", load_signing_key(private), say=said.append,
                           backoff=(0.05, 0.05, 0.05, 0.05))
    data = SandboxData(seed=7, rfi_count=10)
    rng = random.Random(1)
    try:
        for _ in range(count):
            sender.announce(add_request(data, rng, kind="transaction"), "raised")
        deadline = time.monotonic() + 20
        while len(sender.sent) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    finally:
        await running.stop()
    return sender, said


async def test_a_delivery_is_the_providers_envelope_signed_rs256(keys: tuple[Path, Path]) -> None:
    public, private = keys
    provider = Provider([200])
    _, said = await deliver(provider, private)
    [(authorization, body)] = provider.got
    verified = verify_token(authorization.removeprefix("Bearer "), load_public_key(public))
    verified.check_body(body)  # bodySha256 is the body's
    claims = verified.claims
    assert set(claims) == {"iat", "exp", "bodySha256"} and claims["exp"] - claims["iat"] == 300
    assert jwt.get_unverified_header(authorization.removeprefix("Bearer "))["alg"] == "RS256"
    envelope = parse(body)
    assert envelope.known and envelope.event_type.endswith(".RFI.OPEN")
    assert envelope.transfer_id and envelope.user_id
    assert len(said) == 1 and said[0].endswith(": 200 (attempt 1)")


async def test_a_failed_delivery_is_retried_with_backoff_and_a_4xx_is_not(keys: tuple[Path, Path]) -> None:
    _, private = keys
    flaky = Provider([503, 500, 200])
    sender, said = await deliver(flaky, private)
    assert len(flaky.got) == 3 and sender.sent[0][1] == 200
    assert "503 (attempt 1), again in 0.05 s" in said[0] and said[-1].endswith("200 (attempt 3)")
    assert len({auth for auth, _ in flaky.got}) >= 1 and len({body for _, body in flaky.got}) == 1, "the same body"

    refusing = Provider([401])
    sender, said = await deliver(refusing, private)
    assert len(refusing.got) == 1 and said == [said[0]] and said[0].endswith("401 (attempt 1)")

    down = Provider([503])
    sender, said = await deliver(down, private)
    assert len(down.got) == 5, "five attempts in all, then it gives up"
    assert said[-1].endswith("503 (attempt 5), given up")


def test_onboarding_requests_have_no_event(keys: tuple[Path, Path]) -> None:
    _, private = keys
    sender = WebhookSender("http://127.0.0.1:9/webhooks", load_signing_key(private))
    onboarding = add_request(SandboxData(seed=7, rfi_count=10), random.Random(1), kind="onboarding")
    sender.announce(onboarding, "raised")  # outside a running loop too: nothing is queued
    assert sender.sent == [] and sender._queue is None
