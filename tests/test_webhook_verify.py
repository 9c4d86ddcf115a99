"""The webhook receiver refuses every forged, oversized, slow or unreadable delivery before anything is done
with it: the `process` step (asking the API, recording) is never reached, and one escaped line says why."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from stablepay_console.services.webhooks.envelope import Envelope
from stablepay_console.services.webhooks.receiver import Outcome, Receiver
from stablepay_console.services.webhooks.verify import KeyFileError, load_public_key
from tests.webhook_keys import (
    body_of,
    envelope,
    hs256_with_public_key,
    private_pem,
    public_pem,
    token,
    unsigned,
    write_keys,
)


class Harness:
    def __init__(self, folder: Path, body_seconds: float = 10.0) -> None:
        public, _ = write_keys(folder)
        self.processed: list[Envelope] = []
        self.said: list[str] = []
        self.receiver = Receiver(load_public_key(public), self.process, self.said.append, body_seconds=body_seconds)

    async def process(self, envelope: Envelope) -> Outcome:
        self.processed.append(envelope)
        return Outcome(200, "taken")

    async def post(self, content: bytes | AsyncIterator[bytes], bearer: str | None,
                   headers: dict[str, str] | None = None) -> httpx.Response:
        sent = {"content-type": "application/json", **(headers or {})}
        if bearer is not None:
            sent["authorization"] = f"Bearer {bearer}"
        transport = httpx.ASGITransport(app=self.receiver.app, client=("203.0.113.9", 4000))
        async with httpx.AsyncClient(transport=transport, base_url="http://watcher") as client:
            return await client.post("/webhooks", content=content, headers=sent)


@pytest.fixture
def hooks(tmp_path: Path) -> Harness:
    return Harness(tmp_path)


def refused_once(h: Harness, status: int, why: str) -> None:
    assert h.processed == [], "nothing of a refused delivery is processed"
    assert len(h.said) == 1 and f", {status}): " in h.said[0] and why in h.said[0], h.said
    assert h.said[0].isascii() and h.said[0].isprintable(), "one plain line"


async def test_a_delivery_signed_by_the_provider_is_processed(hooks: Harness) -> None:
    doc = envelope()
    body = body_of(doc)
    answer = await hooks.post(body, token(body))
    assert answer.status_code == 200
    assert [e.event_id for e in hooks.processed] == [doc["eventId"]]
    assert hooks.processed[0].transfer_id == doc["data"]["transferDetails"]["id"]
    assert hooks.said == []


async def test_another_key_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    answer = await hooks.post(body, token(body, which="other"))
    assert answer.status_code == 401
    refused_once(hooks, 401, "signature is not the provider's")


async def test_alg_none_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    assert (await hooks.post(body, unsigned(body))).status_code == 401
    refused_once(hooks, 401, "algorithm none is refused")


async def test_hs256_with_the_public_key_as_secret_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    assert (await hooks.post(body, hs256_with_public_key(body))).status_code == 401
    refused_once(hooks, 401, "algorithm HS256 is refused")


async def test_a_valid_token_with_another_body_is_refused(hooks: Harness) -> None:
    signed = body_of(envelope())
    other = body_of(envelope(event_id="forged"))
    assert (await hooks.post(other, token(signed))).status_code == 401
    refused_once(hooks, 401, "bodySha256 does not match")


async def test_no_token_is_refused(hooks: Harness) -> None:
    assert (await hooks.post(body_of(envelope()), None)).status_code == 401
    refused_once(hooks, 401, "no Authorization header")


async def test_a_token_that_is_not_bearer_or_not_a_jwt_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    assert (await hooks.post(body, "not-a-jwt")).status_code == 401
    refused_once(hooks, 401, "not a JWT")


async def test_an_expired_token_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    an_hour_ago = time.time() - 3600
    assert (await hooks.post(body, token(body, iat=an_hour_ago, exp=an_hour_ago + 300))).status_code == 401
    refused_once(hooks, 401, "expired")


async def test_a_token_issued_in_the_future_is_refused(hooks: Harness) -> None:
    body = body_of(envelope())
    assert (await hooks.post(body, token(body, iat=time.time() + 3600))).status_code == 401
    refused_once(hooks, 401, "not valid yet")


async def test_a_2_mb_body_is_refused_by_its_length(hooks: Harness) -> None:
    body = b"{" + b" " * (2 * 1024 * 1024) + b"}"
    assert (await hooks.post(body, token(body))).status_code == 413
    refused_once(hooks, 413, "Content-Length")


async def test_a_2_mb_body_without_a_length_is_refused_as_it_passes_256_kib(hooks: Harness) -> None:
    sent: list[int] = []
    chunk = b" " * 65536

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(32):  # 2 MiB, streamed (chunked: no Content-Length)
            sent.append(len(chunk))
            yield chunk

    body = b" " * (2 * 1024 * 1024)
    assert (await hooks.post(chunks(), token(body))).status_code == 413
    refused_once(hooks, 413, "body over 256 KiB")
    assert sum(sent) < 2 * 1024 * 1024, "the rest of the body was never read"


async def test_a_slow_body_is_refused(tmp_path: Path) -> None:
    h = Harness(tmp_path, body_seconds=0.5)
    body = body_of(envelope())

    async def trickle() -> AsyncIterator[bytes]:
        for byte in body:
            yield bytes([byte])
            await asyncio.sleep(0.05)  # the whole body would take several seconds

    assert (await h.post(trickle(), token(body))).status_code == 408
    refused_once(h, 408, "not received within 0.5 s")


async def test_a_signed_body_that_is_not_json_is_refused(hooks: Harness) -> None:
    body = b"<xml>not json</xml>"
    assert (await hooks.post(body, token(body))).status_code == 400
    refused_once(hooks, 400, "not JSON")


async def test_an_unknown_event_type_is_acknowledged_and_ignored(hooks: Harness) -> None:
    body = body_of(envelope(event_type="WALLET.TRANSFER.COMPLETED"))
    answer = await hooks.post(body, token(body))
    assert answer.status_code == 202, "acknowledged: a retry would not make it an RFI event"
    assert hooks.processed == []
    assert len(hooks.said) == 1 and "WALLET.TRANSFER.COMPLETED is not an RFI event" in hooks.said[0]


async def test_hostile_text_in_a_refused_delivery_is_never_echoed(hooks: Harness) -> None:
    body = body_of(envelope())
    answer = await hooks.post(body, "\x1b]0;pwned\x07", headers={"x-evil": "\x1b[2J"})
    assert answer.status_code == 401
    assert "\x1b" not in hooks.said[0] and "pwned" not in hooks.said[0]


def test_the_key_file_must_be_an_rsa_public_key(tmp_path: Path) -> None:
    private = tmp_path / "private.pem"
    private.write_bytes(private_pem())
    with pytest.raises(KeyFileError, match="holds a private key"):
        load_public_key(private)
    junk = tmp_path / "junk.pem"
    junk.write_text("hello")
    with pytest.raises(KeyFileError, match="not a PEM public key"):
        load_public_key(junk)
    with pytest.raises(KeyFileError, match="Cannot read"):
        load_public_key(tmp_path / "missing.pem")
    good = tmp_path / "public.pem"
    good.write_bytes(public_pem())
    assert load_public_key(good).key_size == 2048


# --- on a real uvicorn, as `rfis watch --webhooks` serves it ------------------------------------------------------


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Harness, int]]:
    from stablepay_console.cli.webhooks import Listen, server
    from tests.cli_e2e import free_port

    h = Harness(tmp_path)
    port = free_port()
    running = server(h.receiver.app, Listen("127.0.0.1", port), head_seconds=0.5)
    await running.start()
    try:
        yield h, port
    finally:
        await running.stop()


async def test_a_head_that_never_ends_is_closed(served: tuple[Harness, int]) -> None:
    h, port = served
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /webhooks HTTP/1.1\r\nHost: watcher\r\nContent-Type: application/json\r\n")  # no end
    await writer.drain()
    assert await asyncio.wait_for(reader.read(), 10) == b"", "the server closed the connection"
    writer.close()
    assert h.processed == []


async def test_a_2_mb_chunked_body_is_refused_without_reading_it_whole(served: tuple[Harness, int]) -> None:
    h, port = served
    body = b" " * (2 * 1024 * 1024)
    head = (f"POST /webhooks HTTP/1.1\r\nHost: watcher\r\nAuthorization: Bearer {token(body)}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n").encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    answer = b""
    for _ in range(32):  # 64 KiB chunks, stopping as soon as the server has answered
        writer.write(b"10000\r\n" + body[:65536] + b"\r\n")
        try:
            await writer.drain()
        except ConnectionError:
            break
        with contextlib.suppress(TimeoutError):
            answer += await asyncio.wait_for(reader.read(4096), 0.05)
        if answer:
            break
    if not answer:
        answer = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 413"), answer[:80]
    assert h.processed == [] and "body over 256 KiB" in h.said[0]
