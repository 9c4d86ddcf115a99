"""One gate per server: a bounded number of requests in flight, and a 429's `Retry-After` for everyone.

Every `StablePayClient` of a base URL sends through the same `ServerGate` on the running event loop:
the inbox and its prefetch, the deadline radar, the needs-action view, an export, a headless command.

- At most `PER_SERVER` requests are in flight to one server. A page the user asked for goes ahead
  of the pages of a bulk walk (an export, a sweep) that are still waiting, and bulk pages leave one
  place free for it (they have `BULK_PLACES`). A shell command's event loop serves no person
  (`serving_no_person`): there a bulk walk has every place.
- A 429 (or 503) with `Retry-After` holds the gate: nobody sends to that server before the time the
  server named (a 429 without one holds it for `DEFAULT_HOLD`). A request that would wait longer
  than `LONGEST_WAIT` is answered at once with a 429 of the console's own, carrying the time left
  in its `Retry-After`, so callers fail fast and back off instead of queueing.
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from httpx_retries import Retry, RetryTransport

BULK_PLACES = 8
"""Requests in flight to one server for bulk walks (sweeps, exports, `rfis due`), whoever sends them."""
PER_SERVER = BULK_PLACES + 1
"""Requests in flight to one server in all: the bulk walks' places, and one kept for a page a person asks for."""
LONGEST_WAIT = 10.0
"""Seconds a request waits at a held gate; beyond that it is answered with the console's own 429."""
DEFAULT_HOLD = 1.0
"""Seconds a 429 without `Retry-After` holds the gate."""
MAX_HOLD = 3600.0
"""The longest hold taken from a `Retry-After` (a server cannot stop the console for a day)."""
BULK = "stablepay.bulk"
"""Request extension: True for a page of a bulk walk, which yields to the pages a person asked for."""


def retry_after_seconds(headers: httpx.Headers, now: float | None = None) -> float | None:
    """`Retry-After` in seconds (a number, or an HTTP date), capped at MAX_HOLD; None when absent or unreadable."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        return min(float(value), MAX_HOLD)
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, OverflowError):
        return None
    return max(0.0, min(when - (time.time() if now is None else now), MAX_HOLD))


class HeldBack(Exception):
    """The gate is held for longer than a request may wait (`seconds` left): no retry is worth making.

    `response` is the server's own 429 when it is what set the hold; None when the request was not sent."""

    def __init__(self, seconds: float, response: httpx.Response | None = None) -> None:
        super().__init__(f"held for {seconds:.1f} s")
        self.seconds = seconds
        self.response = response


class ServerGate:
    """The in-flight limit and the `Retry-After` hold of one server, on one event loop."""

    def __init__(self, limit: int = PER_SERVER, clock: Callable[[], float] = time.monotonic,
                 keep_place: bool = True) -> None:
        self.limit = max(1, limit)
        self.clock = clock
        self.keep_place = keep_place
        """Whether bulk pages leave a place free for a page a person asks for (not in a shell command)."""
        self.in_flight = 0
        self.not_before = 0.0
        """The clock's time before which nothing is sent (a server's `Retry-After`)."""
        self.sent = 0
        self.holds = 0
        """How many times a server's answer held the gate."""
        self._asked: deque[asyncio.Future[None]] = deque()
        self._bulk: deque[asyncio.Future[None]] = deque()

    def held_for(self) -> float:
        """Seconds left before anything may be sent (0: not held)."""
        return max(0.0, self.not_before - self.clock())

    def hold(self, seconds: float) -> None:
        self.holds += 1
        self.not_before = max(self.not_before, self.clock() + min(seconds, MAX_HOLD))

    def learn(self, response: httpx.Response) -> None:
        """A 429, or a 503 with `Retry-After`, holds the gate for everyone."""
        if response.status_code not in (429, 503):
            return
        seconds = retry_after_seconds(response.headers)
        if seconds is None and response.status_code == 429:
            seconds = DEFAULT_HOLD
        if seconds:
            self.hold(seconds)

    async def enter(self, bulk: bool = False) -> None:
        """Wait for the hold to pass and for a free place; raises HeldBack when the hold is too long to wait."""
        while True:
            await self._wait_hold()
            await self._take(bulk)
            if not self.held_for():
                self.sent += 1
                return
            self.leave()  # a 429 came while this one queued: wait for it too

    async def _wait_hold(self) -> None:
        while (wait := self.held_for()) > 0:
            if wait > LONGEST_WAIT:
                raise HeldBack(wait)
            await asyncio.sleep(wait)

    @property
    def bulk_places(self) -> int:
        """Places a bulk walk may take: one is kept for the pages a person asks for, where one may ask."""
        return self.limit - 1 if self.keep_place and self.limit > 1 else self.limit

    def _room(self, bulk: bool) -> bool:
        # One place is kept for the pages a person asks for: a sweep never makes the inbox wait on it.
        return self.in_flight < (self.bulk_places if bulk else self.limit)

    async def _take(self, bulk: bool) -> None:
        ahead = self._asked or (bulk and self._bulk)
        if not ahead and self._room(bulk):
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._bulk if bulk else self._asked
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.leave()  # the place was handed over as the wait was cancelled: give it on
            elif waiter in queue:
                queue.remove(waiter)
            raise

    def leave(self) -> None:
        """Free a place and hand what is free to the waiters: a person's requests first, then the bulk ones."""
        self.in_flight = max(0, self.in_flight - 1)
        for queue, bulk in ((self._asked, False), (self._bulk, True)):
            while queue and self._room(bulk):
                waiter = queue.popleft()
                if not waiter.done():
                    self.in_flight += 1
                    waiter.set_result(None)


_GATES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, ServerGate]] = weakref.WeakKeyDictionary()


_NO_PERSON: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def serving_no_person() -> None:
    """Say that the running event loop is a shell command's: no person asks for a page on it, so its gates
    keep no place free for one (a bulk walk has all `PER_SERVER`). Said before its first request."""
    _NO_PERSON.add(asyncio.get_running_loop())


def gate_for(base_url: str) -> ServerGate:
    """The one gate of `base_url` on the running event loop."""
    loop = asyncio.get_running_loop()
    gates = _GATES.setdefault(loop, {})
    gate = gates.get(base_url)
    if gate is None:
        gate = gates[base_url] = ServerGate(keep_place=loop not in _NO_PERSON)
    return gate


class _Leaving(httpx.AsyncByteStream):
    """A response body that gives the gate's place back once it is closed (read or dropped)."""

    def __init__(self, inner: Any, leave: Callable[[], None]) -> None:
        self.inner = inner
        self._leave: Callable[[], None] | None = leave

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            yield chunk

    async def aclose(self) -> None:
        try:
            if hasattr(self.inner, "aclose"):
                await self.inner.aclose()
        finally:
            if self._leave is not None:
                leave, self._leave = self._leave, None
                leave()


class _Gated(httpx.AsyncBaseTransport):
    """Each attempt (a retry included) through the server's gate."""

    def __init__(self, inner: httpx.AsyncBaseTransport, base_url: str) -> None:
        self.inner = inner
        self.base_url = base_url

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        gate = gate_for(self.base_url)
        await gate.enter(bool(request.extensions.get(BULK)))
        try:
            response = await self.inner.handle_async_request(request)
        except BaseException:
            gate.leave()
            raise
        gate.learn(response)  # before the place is given back: whoever goes next sees the hold
        response.stream = _Leaving(response.stream, gate.leave)
        if response.status_code == 429 and gate.held_for() > LONGEST_WAIT:
            raise HeldBack(gate.held_for(), response)  # no retry within this call would be allowed
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class PoliteTransport(RetryTransport):
    """The client's transport: retries (as `RetryTransport`), every attempt through the server's gate."""

    def __init__(self, inner: httpx.AsyncBaseTransport, base_url: str, retry: Retry) -> None:
        super().__init__(transport=_Gated(inner, base_url), retry=retry)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except HeldBack as held:
            return held.response if held.response is not None else held_answer(request, held.seconds)


def held_answer(request: httpx.Request, seconds: float) -> httpx.Response:
    """The console's own 429 while the server's `Retry-After` runs: the request was not sent."""
    wait = max(1, math.ceil(seconds))
    body = {
        "code": 429,
        "error": "Too many requests",
        "errorDetails": f"the server asked for a pause; nothing is sent to it for {wait} s more (not sent)",
    }
    return httpx.Response(429, headers={"Retry-After": str(wait)}, json=body, request=request)
