"""One gate per server: a 429's Retry-After holds every caller, and the requests in flight stay bounded."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from typing import Any, TypeVar

import httpx
import pytest

from stablepay_console.api import StablePayClient, StatusError
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.gate import (
    BULK,
    BULK_PLACES,
    PER_SERVER,
    HeldBack,
    ServerGate,
    _Gated,
    _Leaving,
    gate_for,
    held_answer,
    retry_after_seconds,
    serving_no_person,
)
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox

URL = "http://localhost"
DEADLINE = 5.0
"""Seconds a test waits for what a working gate does at once; past it the test fails (it never hangs)."""

T = TypeVar("T")


async def until(done: Callable[[], bool], what: str) -> None:
    """Poll `done` until it holds; fail with `what` once DEADLINE has passed."""
    give_up = time.monotonic() + DEADLINE
    while not done():
        assert time.monotonic() < give_up, f"{what} (waited {DEADLINE:.0f} s)"
        await asyncio.sleep(0.005)


async def within_deadline(call: Awaitable[T], what: str) -> T:
    """`call`'s answer; a call still running after DEADLINE fails the test instead of waiting on."""
    try:
        async with asyncio.timeout(DEADLINE):
            return await call
    except TimeoutError:
        raise AssertionError(f"{what} (no answer within {DEADLINE:.0f} s)") from None


class Arrivals:
    """ASGI middleware in front of the sandbox: when each request reached it, and the Retry-After point it set."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.log: list[tuple[float, str, int]] = []
        """(arrival, path, status answered) of every request, in arrival order."""
        self.not_before: float | None = None
        """The server's own clock plus the Retry-After of the 429 it sent."""
        self.in_flight = self.most_in_flight = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        arrived = time.monotonic()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        status = 0

        async def sending(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = dict(message.get("headers", []))
                if status == 429 and b"retry-after" in headers:
                    self.not_before = arrived + float(headers[b"retry-after"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self.in_flight -= 1
            self.log.append((arrived, scope["path"], status))


def client(front: Arrivals) -> StablePayClient:
    return StablePayClient(URL, SANDBOX_KEY, transport=httpx.ASGITransport(app=front))


async def test_a_429_slows_every_caller(sandbox: Sandbox) -> None:
    front = Arrivals(sandbox.app)
    sandbox.faults.retry_after = 1
    sandbox.faults.force, sandbox.faults.force_count = "429", 1  # the first request is told to wait 1 s
    async with client(front) as radar, client(front) as inbox:
        first = asyncio.create_task(radar.list_rfis(RfiFilters(status="issued")))
        await until(lambda: gate_for(URL).held_for() > 0,
                    "the radar's 429 never held the gate: its Retry-After was not learnt")
        second = await inbox.list_rfis()  # another caller of the same server, after the 429
        assert (await first).data and second.data
    assert front.not_before is not None
    statuses = [status for _, _, status in front.log]
    assert statuses == [429, 200, 200], "one 429, then the radar's retry and the inbox's page"
    later = [arrived for arrived, _, _ in front.log[1:]]
    assert all(arrived >= front.not_before for arrived in later), "nobody came back before the Retry-After point"


async def test_a_long_retry_after_answers_every_caller_at_once_without_sending(sandbox: Sandbox) -> None:
    front = Arrivals(sandbox.app)
    sandbox.faults.retry_after = 600
    sandbox.faults.force, sandbox.faults.force_count = "429", 1
    async with client(front) as radar, client(front) as export:
        try:
            await within_deadline(radar.list_rfis(), "the radar waited out a 600 s Retry-After instead of failing")
        except StatusError as exc:
            assert exc.status == 429
        try:
            expired = export.list_rfis(RfiFilters(status="expired"))
            await within_deadline(expired, "the export queued behind a 600 s pause")
        except StatusError as exc:
            assert exc.status == 429 and exc.response is not None
            assert 500 < int(exc.response.headers["Retry-After"]) <= 600
        else:
            raise AssertionError("the export's request went out during the server's pause")
    assert [status for _, _, status in front.log] == [429], "only the first request reached the server"


async def test_every_caller_together_stays_within_the_servers_limit(sandbox: Sandbox) -> None:
    front = Arrivals(sandbox.app)
    sandbox.faults.latency = 0.02
    async with client(front) as one, client(front) as two:
        async def walk(c: StablePayClient, status: str) -> int:
            return len([r async for r in c.iter_rfis(RfiFilters(status=status), page_size=10)])

        pages = [one.list_rfis(offset=n * 20) for n in range(6)]
        counts = await asyncio.gather(walk(one, "issued"), walk(two, "resolved"), *pages)
    assert counts[0] and counts[1]
    assert len(front.log) > 2 * PER_SERVER
    assert front.most_in_flight <= PER_SERVER


def test_retry_after_is_capped_at_max_hold() -> None:
    hour, day = 3600.0, 86400.0
    now = [1000.0]
    gate = ServerGate(clock=lambda: now[0])  # the gate's own clock, moved by hand: no waiting
    gate.learn(httpx.Response(429, headers={"Retry-After": "86400"}))
    assert 0 < gate.held_for() <= hour, "a server's Retry-After held the console for more than an hour"
    answer = held_answer(httpx.Request("GET", URL), gate.held_for())
    assert 0 < int(answer.headers["Retry-After"]) <= hour
    now[0] += hour
    assert gate.held_for() == 0, "the gate was still held an hour later"
    gate.hold(day)
    assert 0 < gate.held_for() <= hour
    tomorrow = formatdate(1_000_000.0 + day, usegmt=True)
    assert 0 < (retry_after_seconds(httpx.Headers({"Retry-After": tomorrow}), now=1_000_000.0) or 0) <= hour
    assert retry_after_seconds(httpx.Headers({"Retry-After": "99999999999999999999"})) == hour


def test_what_holds_the_gate_and_for_how_long() -> None:
    now = [50.0]
    gate = ServerGate(clock=lambda: now[0])
    for status, headers in ((200, {"Retry-After": "30"}), (500, {"Retry-After": "30"}), (503, {}),
                            (429, {"Retry-After": "0"})):
        gate.learn(httpx.Response(status, headers=headers))
        assert (gate.held_for(), gate.holds) == (0, 0), (status, headers)
    gate.learn(httpx.Response(429))  # no Retry-After: a second
    assert (gate.held_for(), gate.holds) == (1.0, 1)
    gate.learn(httpx.Response(503, headers={"Retry-After": " 30 "}))
    assert (gate.held_for(), gate.holds) == (30.0, 2)
    gate.hold(2.0)  # a shorter hold never shortens a longer one
    assert gate.held_for() == 30.0
    now[0] += 31
    assert gate.held_for() == 0


def test_a_retry_after_is_read_as_seconds_or_a_date() -> None:
    def read(value: str, now: float | None = 1_000_000.0) -> float | None:
        return retry_after_seconds(httpx.Headers({"Retry-After": value}), now=now)

    assert retry_after_seconds(httpx.Headers()) is None
    assert [read(v) for v in ("", "  ", "soon", "-5", "1.5")] == [None] * 5
    assert read(" 30 ") == 30.0
    assert read(formatdate(1_000_000.0 + 90, usegmt=True)) == 90.0
    assert read(formatdate(1_000_000.0 - 90, usegmt=True)) == 0.0  # already past: no wait
    soon = read(formatdate(time.time() + 60, usegmt=True), now=None)  # against the wall clock when none is given
    assert soon is not None and 0 < soon <= 60


def test_the_consoles_own_429_says_how_long_and_that_nothing_was_sent() -> None:
    request = httpx.Request("GET", URL + "/v1/rfis")
    for seconds, said in ((2.1, "3"), (0.2, "1"), (600.0, "600")):
        answer = held_answer(request, seconds)
        assert (answer.status_code, answer.headers["Retry-After"], answer.request) == (429, said, request)
        assert answer.json() == {"code": 429, "error": "Too many requests", "errorDetails": (
            f"the server asked for a pause; nothing is sent to it for {said} s more (not sent)")}


def test_a_bulk_walk_leaves_one_place_where_a_person_may_ask() -> None:
    assert (ServerGate().limit, ServerGate().bulk_places) == (PER_SERVER, PER_SERVER - 1)
    assert ServerGate(keep_place=False).bulk_places == PER_SERVER
    assert (ServerGate(limit=1).bulk_places, ServerGate(limit=0).limit) == (1, 1)


async def test_a_request_waits_out_a_hold_of_a_second_and_one_too_long_is_refused_at_once() -> None:
    now = [0.0]
    gate = ServerGate(clock=lambda: now[0])  # the hold is read on the gate's clock, moved by hand
    gate.learn(httpx.Response(429))  # held for DEFAULT_HOLD, a second
    entering = asyncio.create_task(gate.enter())
    await asyncio.sleep(0)  # let it reach the hold
    assert not entering.done() and gate.sent == 0
    now[0] += 1.0
    await until(entering.done, "the request never went once the hold had passed")
    assert (gate.sent, gate.in_flight) == (1, 1)
    gate.leave()
    gate.hold(10.0)  # exactly the longest wait: waited out, not refused
    waiting = asyncio.create_task(gate.enter())
    await asyncio.sleep(0)
    assert not waiting.done()
    waiting.cancel()
    gate.hold(10.5)
    with pytest.raises(HeldBack):
        await gate.enter()
    assert (gate.sent, gate.in_flight) == (1, 0)


async def test_a_cancelled_wait_gives_its_place_on() -> None:
    gate = ServerGate(limit=2)
    await gate.enter(bulk=True)
    assert gate.in_flight == 1
    second_bulk = asyncio.create_task(gate.enter(bulk=True))  # bulk pages leave the last place free
    await asyncio.sleep(0)
    assert not second_bulk.done()
    await gate.enter()  # a person's page takes it at once
    assert gate.in_flight == 2
    third_bulk = asyncio.create_task(gate.enter(bulk=True))
    await asyncio.sleep(0)
    third_bulk.cancel()  # given up while waiting: it leaves the queue
    with pytest.raises(asyncio.CancelledError):
        await third_bulk
    gate.leave()
    gate.leave()
    await until(second_bulk.done, "the waiting bulk page never got the place given back")
    assert gate.in_flight == 1 and gate.sent == 3


async def test_a_response_body_gives_the_place_back_once_closed() -> None:
    class Body(httpx.AsyncByteStream):
        closed = 0

        async def __aiter__(self):  # type: ignore[no-untyped-def]
            yield b"page"

        async def aclose(self) -> None:
            self.closed += 1

    inner, left = Body(), []
    body = _Leaving(inner, lambda: left.append(1))
    assert [chunk async for chunk in body] == [b"page"]
    await body.aclose()
    await body.aclose()  # closed twice, given back once
    assert (inner.closed, left) == (2, [1])


async def test_places_freed_go_to_who_may_take_them() -> None:
    gate = ServerGate(limit=2)
    await gate.enter(bulk=True)
    await gate.enter()  # full: one bulk page, one page a person asked for
    person, bulk = asyncio.create_task(gate.enter()), asyncio.create_task(gate.enter(bulk=True))
    await asyncio.sleep(0)
    gate.leave()  # the person's place: the person waiting gets it
    await until(person.done, "a place freed was not given to the person waiting")
    assert not bulk.done()
    gate.leave()  # one left in flight: the last place stays kept for a person, the bulk page waits
    await asyncio.sleep(0)
    assert not bulk.done() and gate.in_flight == 1
    gate.leave()
    await until(bulk.done, "the bulk page never got a place")


async def test_a_bulk_request_through_the_transport_leaves_a_person_a_place() -> None:
    release = asyncio.Event()
    arrived: list[str] = []

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        arrived.append(scope["path"])
        await release.wait()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    transport = _Gated(httpx.ASGITransport(app=slow), "http://gated.example")

    async def get(path: str, bulk: bool) -> int:
        request = httpx.Request("GET", "http://gated.example" + path, extensions={BULK: True} if bulk else {})
        response = await transport.handle_async_request(request)
        await response.aread()
        await response.aclose()
        return response.status_code

    walk = [asyncio.create_task(get(f"/bulk/{n}", True)) for n in range(BULK_PLACES + 1)]
    await until(lambda: len(arrived) == BULK_PLACES, "the bulk pages did not all start")
    asked = asyncio.create_task(get("/asked", False))
    await until(lambda: "/asked" in arrived, "a person's page waited behind a bulk walk")
    assert len(arrived) == BULK_PLACES + 1 and f"/bulk/{BULK_PLACES}" not in arrived
    release.set()
    assert await asyncio.gather(asked, *walk) == [200] * (BULK_PLACES + 2)


async def test_a_page_asked_for_goes_before_the_bulk_pages_waiting() -> None:
    gate = ServerGate(limit=1)
    await gate.enter()
    order: list[str] = []

    async def wait(name: str, bulk: bool) -> None:
        await gate.enter(bulk)
        order.append(name)
        gate.leave()

    bulk = [asyncio.create_task(wait(f"bulk {n}", True)) for n in range(3)]
    await asyncio.sleep(0)
    asked = asyncio.create_task(wait("asked", False))
    await asyncio.sleep(0)
    gate.leave()
    await asyncio.gather(*bulk, asked)
    assert order == ["asked", "bulk 0", "bulk 1", "bulk 2"]
    assert gate.in_flight == 0


async def test_a_bulk_walk_keeps_a_place_for_a_person_but_not_in_a_shell_command(sandbox: Sandbox) -> None:
    sandbox.faults.latency = 0.02

    async def walk() -> int:
        front = Arrivals(sandbox.app)
        async with client(front) as c:
            assert len([r async for r in c.iter_rfis(page_size=5)]) > 20 * PER_SERVER
        return front.most_in_flight

    assert await walk() == PER_SERVER - 1, "in the console, a walk leaves one place for a page a person asks for"

    async def in_a_command() -> int:
        serving_no_person()  # as every shell command's event loop says before its first request
        return await walk()

    # A loop of its own (a thread's), as a command's: the gates of this test's loop are not touched.
    assert await asyncio.to_thread(asyncio.run, in_a_command()) == PER_SERVER, "a command's walk has every place"
    assert gate_for(URL).bulk_places == PER_SERVER - 1, "the console's loop still keeps its place"


async def test_a_walk_sends_the_next_page_before_it_parses_the_last(sandbox: Sandbox) -> None:
    events: list[str] = []

    async def noting(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            events.append(f"sent {dict(httpx.QueryParams(scope['query_string'].decode())).get('offset')}")
        await sandbox.app(scope, receive, send)

    transport = httpx.ASGITransport(app=noting)
    async with StablePayClient(URL, SANDBOX_KEY, transport=transport, export_concurrency=1,
                               on_rfis=lambda page: events.append("parsed")) as c:
        assert len([r async for r in c.iter_rfis(page_size=20)]) == 240
    sent = [n for n, e in enumerate(events) if e.startswith("sent")]
    # Page 0 first; after it, one place: each later page is on its way before the one before it is parsed.
    assert events[:3] == ["sent 0", "parsed", "sent 20"], events[:6]
    assert events[3:5] == ["sent 40", "parsed"], events[:8]
    assert len(sent) == 12 and events[-1] == "parsed"
