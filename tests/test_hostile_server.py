"""The hostile test server itself: it serves what each case promises, and it is bounded."""

from __future__ import annotations

import time
import zlib

import httpx
import pytest

from tests.hostile_cases import CASES, ENDPOINTS
from tests.hostile_payloads import BOMB_INFLATED, HOSTILE, gzip_bomb
from tests.hostile_server import HostileServer, hostile_server_fixture, mock_transport  # noqa: F401

PATHS = {
    "rfis": ("GET", "/v2/rfis?limit=5&offset=0"),
    "batch": ("GET", "/v2/wallets/transfers/batches/6f1c2a10-5b7e-4c1d-9a33-000000000050"),
    "quote": ("POST", "/v2/onramps/2b7d9e40-8c1a-4f6e-b2d5-00000000a001/quote/refresh"),
    "metric": ("GET", "/v2/reporting/metrics/9a0e7c55-1d2b-4e3f-8a6b-0000000000d1/results"),
    "ping": ("GET", "/ping"),
}
QUICK = [c for c in CASES if c not in ("gzip-bomb", "huge", "trickle", "trickle-after-probe")]


def test_the_bomb_is_small_and_inflates_to_a_gibibyte() -> None:
    bomb = gzip_bomb()
    assert len(bomb) < 1_200_000
    inflate, inflated, data = zlib.decompressobj(31), 0, bomb
    while data:
        inflated += len(inflate.decompress(data, 1 << 24))
        data = inflate.unconsumed_tail
    assert inflated == BOMB_INFLATED and inflate.eof


def test_every_quick_case_answers_every_endpoint_over_http(hostile_server: HostileServer) -> None:
    with httpx.Client(timeout=30) as http:
        for case in QUICK:
            for endpoint in ENDPOINTS:
                method, path = PATHS[endpoint]
                response = http.request(method, hostile_server.url(case) + path)
                assert response.status_code in (200, 400, 401, 409, 500), (case, endpoint)
                assert response.content, (case, endpoint)


def test_escapes_reach_the_wire_raw(hostile_server: HostileServer) -> None:
    response = httpx.get(hostile_server.url("escapes") + "/v2/rfis")
    assert HOSTILE in response.json()["data"][0]["round"]["items"][0]["label"]


def test_the_mock_transport_gives_the_same_answers() -> None:
    with httpx.Client(transport=mock_transport("unauthorized-escapes"), base_url="http://127.0.0.1") as http:
        response = http.get("/ping")
    assert response.status_code == 401 and HOSTILE in response.json()["error"]


def test_the_trickle_sends_one_byte_per_pause_and_the_server_stops_it() -> None:
    with HostileServer(trickle=0.2) as server, httpx.stream("GET", server.url("trickle") + "/ping") as response:
        chunks = response.iter_raw()
        first = time.monotonic()
        received = [next(chunks) for _ in range(3)]
        assert [len(chunk) for chunk in received] == [1, 1, 1]
        assert time.monotonic() - first >= 0.3
    # Leaving the block stopped the server: the port no longer answers.
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url("normal") + "/ping", timeout=2)


def test_the_server_stops_itself_after_its_lifetime() -> None:
    server = HostileServer(lifetime=0.5)
    with server:
        deadline = time.monotonic() + 10
        while server._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not server._thread.is_alive()
