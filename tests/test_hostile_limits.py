"""Bounded responses: a size cap on the decoded body while it streams, and a total deadline per request."""

from __future__ import annotations

import asyncio
import gzip
import random
import zlib
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace

import httpx
import pytest

from stablepay_console.api import APIError, MalformedResponse, StablePayClient, TransportError, body, default_retry
from stablepay_console.api.body import DEFAULT_MAX_BODY
from stablepay_console.api.client import DEFAULT_DEADLINE
from stablepay_console.api.errors import DeadlineExceeded, ResponseTooLarge
from tests.hostile_payloads import HUGE_BODY, RAW_CHARS, TRICKLE_BYTES
from tests.hostile_server import HostileServer, hostile_server_fixture, mock_transport  # noqa: F401

BATCH_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000050"
ONRAMP_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
METRIC_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000d1"
GUARD_SECONDS = 60.0
"""Ends a test whose deadline failed to fire, as a failure (TimeoutError) rather than a hang: a bound, not a timing."""


async def every_endpoint(client: StablePayClient) -> list[BaseException | object]:
    calls = [
        client.ping(),
        client.list_rfis(),
        client.get_batch_transfer(BATCH_ID),
        client.refresh_onramp_quote(ONRAMP_ID),
        client.run_metric(METRIC_ID),
    ]
    results: list[BaseException | object] = []
    for call in calls:
        try:
            results.append(await call)
        except APIError as exc:
            results.append(exc)
    return results


# --- size ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["gzip-bomb", "huge"])
async def test_an_oversized_body_is_a_clear_typed_error_on_every_endpoint(
    hostile_server: HostileServer, case: str
) -> None:
    async with StablePayClient(hostile_server.url(case), "k") as client:
        results = await every_endpoint(client)
    for result in results:
        assert isinstance(result, ResponseTooLarge), result
        assert result.status == 200 and result.limit == DEFAULT_MAX_BODY
        assert "larger than this console accepts (16.0 MiB)" in str(result)
        assert result.kind == "Response too large"
    # The 200 MB body was dropped early, not read to its end: every endpoint's request together was sent less than
    # half of one body. (What the server gets rid of before the client closes is what the kernel's socket buffers
    # take, a few MB a connection and more when they grow: a tenth of a body for all five was once 20.1 MB.)
    assert hostile_server.bytes_sent[case] < HUGE_BODY // 2


async def test_a_large_legal_body_under_the_cap_is_read(hostile_server: HostileServer) -> None:
    async with StablePayClient(hostile_server.url("big-batch"), "k") as client:
        transfer = await client.get_batch_transfer(BATCH_ID)
    assert len(transfer.details.destination.batch) == 100_000


async def test_the_cap_holds_for_a_chunked_body_that_declares_no_length() -> None:
    async def endless() -> AsyncIterator[bytes]:
        for _ in range(10_000):  # 640 MB if it were all read
            yield b" " * 65536

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json"}, content=endless())

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler),
                               max_body_bytes=1_000_000) as client:
        with pytest.raises(ResponseTooLarge, match="larger than this console accepts"):
            await client.ping()


async def test_a_bomb_in_process_is_capped_too() -> None:
    async with StablePayClient("http://127.0.0.1", "k", transport=mock_transport("gzip-bomb")) as client:
        with pytest.raises(ResponseTooLarge):
            await client.list_rfis()


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(b'{"message": "pong"}', mtime=0)),  # mtime 0: the same bytes in every worker
        ("deflate", zlib.compress(b'{"message": "pong"}')),
        ("deflate", zlib.compress(b'{"message": "pong"}')[2:-4]),  # raw deflate, as some servers send it
        ("identity", b'{"message": "pong"}'),
        ("x-gzip", gzip.compress(b'{"message": "pong"}', mtime=0)),
        ("gzip,identity", gzip.compress(b'{"message": "pong"}', mtime=0)),
        ("gzip, identity", gzip.compress(b'{"message": "pong"}', mtime=0)),
    ],
    ids=["gzip", "zlib-deflate", "raw-deflate", "identity", "x-gzip", "gzip-identity-listed", "gzip-identity-spaced"],
)
async def test_compressed_answers_are_read(encoding: str, body: bytes) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["accept-encoding"] == "gzip, deflate"
        return httpx.Response(200, headers={"content-encoding": encoding}, stream=httpx.ByteStream(body))

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler)) as client:
        assert (await client.ping()).message == "pong"


@pytest.mark.parametrize(
    ("encoding", "body", "fragment"),
    [
        ("gzip", b"\x1f\x8b\x08\x00garbage", "gzip stream is cut short"),
        ("gzip", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff", "gzip stream is corrupt"),
        ("br", b"\x0b\x02\x80pong", "did not ask for"),
        ("gzip", zlib.compress(b'{"message": "pong"}')[2:-4], "gzip stream is corrupt"),  # raw deflate is no gzip
        ("deflate", b"\xff\xff\xff\xff", "deflate stream is corrupt"),  # neither zlib-wrapped nor raw
        ("x" * 60, b"pong", f"encoded as '{'x' * 40}', which"),  # the server's name for it, cut to 40 characters
    ],
    ids=["gzip-cut-short", "gzip-corrupt", "br", "gzip-labelled-raw-deflate", "deflate-garbage", "long-name"],
)
async def test_a_corrupt_or_unasked_encoding_is_malformed(encoding: str, body: bytes, fragment: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": encoding}, stream=httpx.ByteStream(body))

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(MalformedResponse, match=fragment) as caught:
            await client.ping()
    assert caught.value.status == 200


class CountingInflate:
    """zlib's decompressobj, counting every byte it inflates."""

    inflated: list[int] = []

    def __init__(self, wbits: int) -> None:
        self._inner = zlib.decompressobj(wbits)

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out = self._inner.decompress(data, max_length)
        CountingInflate.inflated.append(len(out))
        return out

    @property
    def eof(self) -> bool:
        return self._inner.eof

    @property
    def unconsumed_tail(self) -> bytes:
        return self._inner.unconsumed_tail


async def test_the_gzip_bomb_is_inflated_one_byte_past_the_cap_and_no_further(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1 GiB inflated used to cost over 4 GB. Now no more than the cap plus one byte is ever inflated, so the
    bomb costs about the cap in memory (`benchmarks/memory.py` prints the peak it adds)."""
    counting = SimpleNamespace(decompressobj=CountingInflate, MAX_WBITS=zlib.MAX_WBITS, error=zlib.error)
    monkeypatch.setattr(body, "zlib", counting)
    monkeypatch.setattr(CountingInflate, "inflated", [])
    async with StablePayClient(hostile_server.url("gzip-bomb"), "k") as client:
        with pytest.raises(ResponseTooLarge):
            await client.list_rfis()
    assert sum(CountingInflate.inflated) == DEFAULT_MAX_BODY + 1


PONG = b'{"message": "pong"}'


def pong_handler(*, read: bool, length: bool) -> Callable[[httpx.Request], httpx.Response]:
    """An answer of PONG: already read (a test double's bytes) or streamed, with or without its Content-Length."""
    def handler(request: httpx.Request) -> httpx.Response:
        if read:
            return httpx.Response(200, content=PONG)
        headers = {"content-length": str(len(PONG))} if length else {}
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(PONG))
    return handler


@pytest.mark.parametrize(("read", "length"), [(True, True), (False, True), (False, False)],
                         ids=["already-read", "streamed-with-length", "streamed-without-length"])
async def test_a_body_of_exactly_the_cap_is_read_and_one_byte_more_is_refused(read: bool, length: bool) -> None:
    transport = httpx.MockTransport(pong_handler(read=read, length=length))
    async with StablePayClient("http://127.0.0.1", "k", transport=transport, max_body_bytes=len(PONG)) as client:
        assert (await client.ping()).message == "pong"
    async with StablePayClient("http://127.0.0.1", "k", transport=transport, max_body_bytes=len(PONG) - 1) as client:
        with pytest.raises(ResponseTooLarge, match=f"larger than this console accepts \\({len(PONG) - 1} bytes\\)"):
            await client.ping()


async def test_a_body_declared_larger_than_the_cap_is_refused_naming_the_size_it_declared() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-length": "5000"}, stream=httpx.ByteStream(b" " * 5000))

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler),
                               max_body_bytes=1000) as client:
        with pytest.raises(ResponseTooLarge, match=r"\(1,000 bytes\) \(it declared 5,000 bytes\)"):
            await client.ping()


async def test_bytes_after_the_end_of_a_gzip_stream_are_ignored() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield gzip.compress(PONG, mtime=0)
        yield b"trailing bytes"

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=chunks())

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler)) as client:
        assert (await client.ping()).message == "pong"


async def test_a_gzip_body_in_many_small_chunks_is_inflated_one_byte_past_the_cap_and_no_further(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each chunk inflates to less than the cap; the chunk that passes it is inflated only up to the cap plus one."""
    packed = gzip.compress(random.Random(0).randbytes(20_000), compresslevel=0, mtime=0)

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(packed), 100):
            yield packed[start:start + 100]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": "gzip"}, content=chunks())

    counting = SimpleNamespace(decompressobj=CountingInflate, MAX_WBITS=zlib.MAX_WBITS, error=zlib.error)
    monkeypatch.setattr(body, "zlib", counting)
    monkeypatch.setattr(CountingInflate, "inflated", [])
    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler),
                               max_body_bytes=1000) as client:
        with pytest.raises(ResponseTooLarge):
            await client.ping()
    assert len(CountingInflate.inflated) > 5  # many chunks were inflated, each under the cap
    assert sum(CountingInflate.inflated) == 1001


async def test_a_streamed_answer_that_is_not_json_is_named_by_its_content_type() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/html; charset=utf-8"},
                              stream=httpx.ByteStream(b"<html>Bad Gateway</html>"))

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(APIError, match=r"not valid JSON \(text/html\)"):
            await client.ping()


# --- time ------------------------------------------------------------------------------------


async def test_a_body_trickled_a_byte_every_two_seconds_stops_at_the_deadline() -> None:
    with HostileServer(trickle=2.0) as server:
        async with StablePayClient(server.url("trickle"), "k", deadline=3.0) as client:
            with pytest.raises(DeadlineExceeded) as caught:
                # Without the deadline this would take TRICKLE_BYTES pauses: the guard ends it as a failure.
                await asyncio.wait_for(client.ping(), GUARD_SECONDS)
    # The per-read timeout (20 s) never fires on a byte every 2 s: only the total deadline stops it, mid-body.
    assert 0 < server.bytes_sent["trickle"] < TRICKLE_BYTES
    assert caught.value.status == 200 and caught.value.kind == "Timed out"
    assert "no complete answer within 3 s (HTTP 200 came but the body did not finish)" in str(caught.value)
    assert isinstance(caught.value, TransportError)


async def test_the_default_deadline_is_finite_and_covers_the_retry_budget() -> None:
    client = StablePayClient("https://api.stablepay.example", "k")
    assert client.deadline == DEFAULT_DEADLINE <= 60
    retry = default_retry()
    assert retry.total_timeout is not None and retry.total_timeout < client.deadline
    await client.aclose()


async def test_a_server_that_never_answers_is_cut_by_the_deadline() -> None:
    async def never(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async with StablePayClient("http://127.0.0.1", "k", transport=httpx.MockTransport(never), deadline=0.5) as client:
        with pytest.raises(DeadlineExceeded, match=r"within 0\.5 s \(no answer came\)") as caught:
            await asyncio.wait_for(client.list_rfis(), GUARD_SECONDS)  # not the hour the server would take
    assert caught.value.status is None


# --- error bodies ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["error-escapes", "unauthorized-escapes"])
async def test_error_bodies_with_escapes_become_errors_with_none_left_raw(case: str) -> None:
    async with StablePayClient("http://127.0.0.1", "k", transport=mock_transport(case)) as client:
        results = await every_endpoint(client)
    for result in results:
        assert isinstance(result, APIError), result
        fields = getattr(result, "fields", [])
        texts = [str(result), repr(result), result.message, result.code or "",
                 *(f"{f.field} {f.message} {f.code}" for f in fields)]
        for text in texts:
            assert not set(text) & RAW_CHARS, text
        assert "\\x1b]52;" in result.message  # what the server attempted stays visible
    assert results[0].status == 401 or case == "error-escapes"
