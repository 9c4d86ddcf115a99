"""`POST /webhooks`: the receiver of the provider's deliveries, as a Starlette app (UI-free).

In order, and each step before the next costs anything:

1. the token (`Authorization: Bearer`) is verified, RS256 with the dashboard's key only (see `verify`):
   no token, another key, another algorithm, an expired one: **401**;
2. the body is bounded: a `Content-Length` over `MAX_BODY` is refused (**413**) unread; otherwise it is
   read chunk by chunk and refused as soon as it passes `MAX_BODY`, and it must arrive within
   `BODY_SECONDS` (**408**);
3. the body must be the one signed (`bodySha256`, where the token has it): **401** otherwise;
4. only then is it parsed: not an envelope, **400**; an event type that is not an RFI event, **202** and
   ignored (it is the provider's, and a retry would not make it one);
5. `process` decides the rest (what the API says, recorded once): its status is the answer (200 taken,
   200 taken before, 503 while the record cannot be written, so the provider retries).

A refused delivery is said in one line through `say` (plain ASCII: nothing of the request but the peer's
address), and nothing else is done. A 4xx is never retried by the provider; a 5xx is, for 24 hours.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from stablepay_console.services.webhooks.envelope import Envelope, NotAnEvent, parse
from stablepay_console.services.webhooks.verify import Refused, bearer, verify_token

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

MAX_BODY = 256 * 1024
BODY_SECONDS = 10.0
PATH = "/webhooks"


@dataclass(frozen=True)
class Outcome:
    status: int
    said: str
    """What the answer's body says (`taken`, `taken before`, `record unavailable`...)."""


Process = Callable[[Envelope], Awaitable[Outcome]]
Say = Callable[[str], None]


class TooLarge(Exception):
    pass


async def read_bounded(request: Request, limit: int) -> bytes:
    """The body, chunk by chunk; TooLarge as soon as it passes `limit` (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _peer(request: Request) -> str:
    host = request.client.host if request.client is not None else "?"
    return "".join(c for c in host if c.isascii() and c.isprintable())[:60] or "?"


def _answer(status: int, said: str) -> JSONResponse:
    # A refused delivery's connection is closed: whatever of its body is still coming is not read.
    headers = {"connection": "close"} if status in (408, 413) else None
    return JSONResponse({"status": said}, status_code=status, headers=headers)


class Receiver:
    """The `/webhooks` route bound to a key, a `process` and a `say` (standard error, in `rfis watch`)."""

    def __init__(self, key: RSAPublicKey, process: Process, say: Say, *, max_body: int = MAX_BODY,
                 body_seconds: float = BODY_SECONDS) -> None:
        self.key = key
        self.process = process
        self.say = say
        self.max_body = max_body
        self.body_seconds = body_seconds
        self.app = Starlette(routes=[Route(PATH, self.deliver, methods=["POST"])])

    def refuse(self, request: Request, status: int, reason: str) -> Response:
        self.say(f"webhook refused ({_peer(request)}, {status}): {reason}")
        return _answer(status, "refused")

    async def deliver(self, request: Request) -> Response:
        try:
            verified = verify_token(bearer(request.headers.get("authorization")), self.key)
        except Refused as exc:
            return self.refuse(request, 401, exc.reason)
        length = request.headers.get("content-length")
        if length is not None and (not length.strip().isdigit() or int(length) > self.max_body):
            return self.refuse(request, 413, f"body over {self.max_body // 1024} KiB (Content-Length)")
        try:
            body = await asyncio.wait_for(read_bounded(request, self.max_body), self.body_seconds)
        except TooLarge:
            return self.refuse(request, 413, f"body over {self.max_body // 1024} KiB")
        except TimeoutError:
            return self.refuse(request, 408, f"body not received within {self.body_seconds:g} s")
        try:
            verified.check_body(body)
        except Refused as exc:
            return self.refuse(request, 401, exc.reason)
        try:
            envelope = parse(body)
        except NotAnEvent as exc:
            return self.refuse(request, 400, str(exc))
        if not envelope.known:
            self.say(f"webhook ignored ({_peer(request)}): event type {envelope.event_type} is not an RFI event")
            return _answer(202, "ignored")
        outcome = await self.process(envelope)
        return _answer(outcome.status, outcome.said)
