"""Loopback-only control routes: change the sandbox's world the way compliance would, for tests and demos.

The spec names no operation that opens a round or raises a request (its transitions are "not shown"),
so these live beside the dashboard stand-ins under `/_sandbox`, answer only callers on a loopback
address, and are never part of the API the console talks to.

- `POST /_sandbox/rfis` raises a new issued request at the top of the list.
- `POST /_sandbox/rfis/{rfi_id}/rounds` asks again: a new round with its own items and deadline,
  the status back to `issued` and the earlier link gone (spec 3.1, rules 3 and 4).
- `POST /_sandbox/rfis/{rfi_id}/answer` answers the open round as the hosted page would: status
  `submitted`, `submittedAt` now, the link gone (rule 3).
- `POST /_sandbox/rfis/{rfi_id}/close` closes the request as compliance decides it: status `resolved`,
  the link gone (rule 3).

The first two take an optional JSON body `{"expiresInMinutes": N}` (default 72 hours; raising also takes
`"kind": "transaction"` or `"onboarding"`, default either); each answers 201 with the request as the list
would send it. Each change of a transaction request is told to the sandbox's webhook sender, when there is
one (`sandbox serve --webhook-url`).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from stablepay_console.api.models import Rfi, RfiRound
from stablepay_console.api.urls import is_loopback

if TYPE_CHECKING:
    from stablepay_console.sandbox.data import SandboxData
    from stablepay_console.sandbox.state import SandboxState

DEFAULT_EXPIRY = timedelta(hours=72)
MAX_MINUTES = 60 * 24 * 365


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _index_of(data: SandboxData, rfi_id: str) -> int | None:
    # Rows are the model's JSON, `id` first: a prefix test finds one among 50,000 without parsing them.
    prefix = b'{"id":"' + rfi_id.encode() + b'"'
    return next((i for i, row in enumerate(data.rfis.rows) if row.wire.startswith(prefix)), None)


def open_round(data: SandboxData, rng: random.Random, rfi_id: str, expires_in: timedelta = DEFAULT_EXPIRY) -> Rfi:
    """Compliance asks again on `rfi_id`: round N+1, status issued. KeyError when there is no such request."""
    index = _index_of(data, rfi_id)
    if index is None:
        raise KeyError(rfi_id)
    rfi = data.rfis[index]
    number = max(rfi.current_round or 0, rfi.round.round if rfi.round is not None else 0) + 1
    now = data.now_moving()
    round_ = RfiRound(
        id=_uuid(rng),
        round=number,
        issued_at=now,
        expires_at=now + expires_in,
        submitted_at=None,
        items=data._items(rng, number),
        link=f"https://sandbox.stablepay.example/rfi/respond/{_uuid(rng)}",
    )
    updated = rfi.model_copy(update={"status": "issued", "current_round": number, "round": round_})
    data.rfis[index] = updated
    return updated


def answer(data: SandboxData, rfi_id: str) -> Rfi:
    """The open round is answered: status submitted. KeyError when there is no such request."""
    index = _index_of(data, rfi_id)
    if index is None:
        raise KeyError(rfi_id)
    rfi = data.rfis[index]
    round_ = rfi.round
    if round_ is not None:
        round_ = round_.model_copy(update={"submitted_at": data.now_moving(), "link": None})
    updated = rfi.model_copy(update={"status": "submitted", "round": round_})
    data.rfis[index] = updated
    return updated


def close(data: SandboxData, rfi_id: str) -> Rfi:
    """Compliance decides the request: status resolved. KeyError when there is no such request."""
    index = _index_of(data, rfi_id)
    if index is None:
        raise KeyError(rfi_id)
    rfi = data.rfis[index]
    round_ = rfi.round.model_copy(update={"link": None}) if rfi.round is not None else None
    updated = rfi.model_copy(update={"status": "resolved", "round": round_})
    data.rfis[index] = updated
    return updated


def add_request(data: SandboxData, rng: random.Random, expires_in: timedelta = DEFAULT_EXPIRY,
                kind: str | None = None) -> Rfi:
    """A new issued request, newest of all, with round 1 open (`kind`: either, by chance, when not given)."""
    now = data.now_moving()
    drawn = rng.choice(["transaction", "onboarding"])
    kind = kind or drawn
    round_ = RfiRound(
        id=_uuid(rng),
        round=1,
        issued_at=now,
        expires_at=now + expires_in,
        items=data._items(rng, 1),
        link=f"https://sandbox.stablepay.example/rfi/respond/{_uuid(rng)}",
    )
    rfi = Rfi(
        id=_uuid(rng),
        kind=kind,
        status="issued",
        subject_type=rng.choice(["individual", "business"]),
        user_id=rng.choice(data.users),
        transfer_id=_uuid(rng) if kind == "transaction" else None,
        flow_type=rng.choice(["onramp", "offramp"]) if kind == "transaction" else None,
        created_at=now,
        current_round=1,
        round=round_,
    )
    data.rfis.insert(0, rfi)
    return rfi


def _refused(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"status": "error", "error": {"code": code, "message": message}}, status_code=status)


async def _body(request: Request) -> dict[str, Any] | JSONResponse:
    try:
        body: Any = await request.json() if await request.body() else {}
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return _refused(400, "INVALID_BODY", "The body must be a JSON object.")
    return body


async def _expiry(request: Request) -> timedelta | JSONResponse:
    body = await _body(request)
    if isinstance(body, JSONResponse):
        return body
    minutes = body.get("expiresInMinutes", None)
    if minutes is None:
        return DEFAULT_EXPIRY
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not -MAX_MINUTES <= minutes <= MAX_MINUTES:
        return _refused(400, "INVALID_BODY", "expiresInMinutes must be a whole number of minutes within a year.")
    return timedelta(minutes=minutes)


def control_routes(state: SandboxState) -> list[BaseRoute]:
    """The routes, bound to one sandbox's state."""

    def local_only(request: Request) -> JSONResponse | None:
        host = request.client.host if request.client is not None else ""
        if not is_loopback(host):
            return _refused(403, "FORBIDDEN", "Sandbox control is answered on loopback only.")
        return None

    async def raise_request(request: Request) -> Response:
        if (refused := local_only(request)) is not None:
            return refused
        expiry = await _expiry(request)
        if isinstance(expiry, JSONResponse):
            return expiry
        body = await _body(request)
        kind = body.get("kind") if isinstance(body, dict) else None
        if kind not in (None, "transaction", "onboarding"):
            return _refused(400, "INVALID_BODY", "kind must be transaction or onboarding.")
        rfi = add_request(state.data, state.rng, expiry, kind)
        state.rfi_changed(rfi, "raised")
        return JSONResponse(rfi.to_wire(), status_code=201)

    async def ask_again(request: Request) -> Response:
        if (refused := local_only(request)) is not None:
            return refused
        expiry = await _expiry(request)
        if isinstance(expiry, JSONResponse):
            return expiry
        rfi_id = str(request.path_params["rfi_id"]).lower()
        try:
            rfi = open_round(state.data, state.rng, rfi_id, expiry)
        except KeyError:
            return _refused(404, "NOT_FOUND", f"No request with ID {rfi_id[:40]}")
        state.rfi_changed(rfi, "asked again")
        return JSONResponse(rfi.to_wire(), status_code=201)

    def decided(change: Callable[[SandboxData, str], Rfi], action: str) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            if (refused := local_only(request)) is not None:
                return refused
            rfi_id = str(request.path_params["rfi_id"]).lower()
            try:
                rfi = change(state.data, rfi_id)
            except KeyError:
                return _refused(404, "NOT_FOUND", f"No request with ID {rfi_id[:40]}")
            state.rfi_changed(rfi, action)
            return JSONResponse(rfi.to_wire(), status_code=201)

        return route

    return [
        Route("/_sandbox/rfis", raise_request, methods=["POST"]),
        Route("/_sandbox/rfis/{rfi_id}/rounds", ask_again, methods=["POST"]),
        Route("/_sandbox/rfis/{rfi_id}/answer", decided(answer, "answered"), methods=["POST"]),
        Route("/_sandbox/rfis/{rfi_id}/close", decided(close, "closed"), methods=["POST"]),
    ]
