"""The sandbox: a Starlette app that answers the five endpoints as the spec describes."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from stablepay_console.api.models import OPEN_QUOTE, RFI_KINDS, RFI_STATUSES
from stablepay_console.sandbox.control import control_routes
from stablepay_console.sandbox.data import SANDBOX_KEY, SandboxData
from stablepay_console.sandbox.faults import Faults

ENVIRONMENTS = ("sandbox", "production")


@dataclass
class SandboxState:
    """The sandbox's mutable world: its data, its keys and its faults."""

    data: SandboxData
    environment: str = "sandbox"
    keys: dict[str, str] = field(default_factory=dict)
    """key value -> descriptive name; only these keys are accepted."""
    faults: Faults = field(default_factory=Faults)
    rng: random.Random = field(default_factory=lambda: random.Random(99))
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(method, path) of every API request received, for tests that count requests."""
    _index: dict[tuple[str | None, str | None, str | None], list[bytes]] = field(default_factory=dict)
    _index_version: int = -1

    def matching(self, status: str | None, kind: str | None, user_id: str | None) -> list[bytes]:
        """The wire JSON of every RFI matching the filters, newest first (cached until the data changes)."""
        if self._index_version != self.data.rfis.version:
            self._index.clear()
            self._index_version = self.data.rfis.version
        key = (status, kind, user_id)
        found = self._index.get(key)
        if found is None:
            found = [
                row.wire
                for row in self.data.rfis.rows
                if (status is None or row.status == status)
                and (kind is None or row.kind == kind)
                and (user_id is None or row.user_id == user_id)
            ]
            self._index[key] = found
        return found


def _unauthorized(path: str) -> JSONResponse:
    if path == "/ping":
        return JSONResponse({"error": "Not authorized"}, status_code=401)
    return JSONResponse(
        {"code": 401, "error": "Unauthorized", "errorDetails": "Missing or invalid API key"},
        status_code=401,
    )


def _status_error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"status": "error", "error": {"code": code, "message": message}}, status_code=status)


def _fault_response(fault: str, state: SandboxState, path: str) -> Response | None:
    if fault == "500":
        return JSONResponse(
            {"type": "INTERNAL_SERVER_ERROR", "message": "Simulated internal failure (sandbox fault injection)"},
            status_code=500,
        )
    if fault == "429":
        return JSONResponse(
            {"code": 429, "error": "Too many requests", "errorDetails": "Rate limit reached; retry later"},
            status_code=429,
            headers={"Retry-After": str(state.faults.retry_after)},
        )
    if fault == "502_html":
        return Response(
            "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>",
            status_code=502,
            media_type="text/html",
        )
    if fault == "invalid_json":
        return Response("{'data': [oops", status_code=200, media_type="application/json")
    if fault == "truncated":
        return Response('{"data": [{"id": "6f1c2a10-5b7e', status_code=200, media_type="application/json")
    if fault == "401":
        return _unauthorized(path)
    return None


def _field(code: str, name: str, message: str) -> dict[str, str]:
    return {"code": code, "field": name, "message": message}


def _int_param(
    raw: str | None, name: str, default: int, low: int, high: int | None, errors: list[dict[str, str]]
) -> int:
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        errors.append(_field("invalid_type", name, f"{name} must be an integer"))
        return default
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        errors.append(_field("out_of_range", name, f"{name} must be {bound}"))
    return value


def build_app(state: SandboxState) -> Starlette:
    async def guard(request: Request) -> Response | None:
        """Latency, faults and auth, in the order a real gateway would apply them."""
        path = request.url.path
        state.calls.append((request.method, path))
        if state.faults.latency:
            await asyncio.sleep(state.faults.latency)
        fault = state.faults.pick()
        if fault is not None:
            return _fault_response(fault, state, path)
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or token.strip() not in state.keys:
            return _unauthorized(path)
        return None

    async def list_rfis(request: Request) -> Response:
        if (refused := await guard(request)) is not None:
            return refused
        q = request.query_params
        errors: list[dict[str, str]] = []
        status = q.get("status")
        if status is not None and status not in RFI_STATUSES:
            errors.append(_field("invalid_enum", "status", f"status must be one of {', '.join(RFI_STATUSES)}"))
        kind = q.get("kind")
        if kind is not None and kind not in RFI_KINDS:
            errors.append(_field("invalid_enum", "kind", f"kind must be one of {', '.join(RFI_KINDS)}"))
        user_id = q.get("userId")
        if user_id is not None:
            try:
                user_id = str(uuid.UUID(user_id))
            except ValueError:
                errors.append(_field("invalid_uuid", "userId", "userId must be a UUID"))
        limit = _int_param(q.get("limit"), "limit", 20, 1, 100, errors)
        offset = _int_param(q.get("offset"), "offset", 0, 0, None, errors)
        if errors:
            return JSONResponse(
                {"type": "VALIDATION_ERROR", "message": "Invalid query parameters", "fields": errors},
                status_code=400,
            )
        found = state.matching(status, kind, user_id)
        # The stored wire JSON goes out as it is: no model is built or re-serialised per request.
        pagination = json.dumps({"limit": limit, "offset": offset, "total": len(found)}).encode()
        body = b'{"data":[' + b",".join(found[offset : offset + limit]) + b'],"pagination":' + pagination + b"}"
        return Response(body, media_type="application/json")

    async def get_batch(request: Request) -> Response:
        if (refused := await guard(request)) is not None:
            return refused
        tid = request.path_params["transfer_id"].lower()
        batch = state.data.batches.get(tid)
        if batch is None:
            return _status_error(404, "NOT_FOUND", f"No batch transfer with ID {tid}")
        return JSONResponse(batch.to_wire())

    async def refresh_quote(request: Request) -> Response:
        if (refused := await guard(request)) is not None:
            return refused
        tid = request.path_params["transfer_id"].lower()
        onramp = state.data.onramps.get(tid)
        if onramp is None:
            return _status_error(404, "NOT_FOUND", f"No onramp with ID {tid}")
        if onramp.details.status != OPEN_QUOTE:
            return _status_error(
                409,
                "INVALID_STATUS",
                f"Quote refresh is only allowed in status OPEN_QUOTE; this onramp is {onramp.details.status}",
            )
        refreshed = state.data.refresh_quote(tid, state.rng)
        wire = refreshed.to_wire()
        # The spec sends source.amount as a JSON number.
        amount = refreshed.details.source.amount
        wire["transferDetails"]["source"]["amount"] = float(amount) if amount is not None else None
        quote = wire["transferDetails"].get("quoteInformation")
        if quote is not None and quote.get("expiresAt") is None:
            quote["expiresAt"] = "N/A"  # the spec's literal for "no expiry"
        return JSONResponse(wire)

    async def run_metric(request: Request) -> Response:
        if (refused := await guard(request)) is not None:
            return refused
        mid = request.path_params["metric_id"].lower()
        body = state.data.metrics.get(mid)
        if body is None:
            return _status_error(404, "NOT_FOUND", f"No saved metric with ID {mid}")
        return JSONResponse(body)

    async def ping(request: Request) -> Response:
        if (refused := await guard(request)) is not None:
            return refused
        return JSONResponse({"message": "pong"})

    async def dashboard_create_key(request: Request) -> Response:
        """Sandbox-only stand-in for the dashboard's "create API key" (spec 5.3)."""
        body = await _json_body(request)
        name = str(body.get("name") or "unnamed key")
        key = f"sk_{state.environment}_{secrets.token_hex(16)}"
        state.keys[key] = name
        return JSONResponse({"key": key, "name": name, "environment": state.environment}, status_code=201)

    async def dashboard_delete_key(request: Request) -> Response:
        """Sandbox-only stand-in for the dashboard's "delete API key" (spec 5.5); the key travels in the body."""
        body = await _json_body(request)
        key = str(body.get("key") or "")
        if state.keys.pop(key, None) is None:
            return _status_error(404, "NOT_FOUND", "No such key")
        return Response(status_code=204)

    async def hosted_page(request: Request) -> Response:
        return Response(
            "<html><body><h1>StablePay sandbox</h1>"
            "<p>This is where the hosted RFI reply form would be.</p></body></html>",
            media_type="text/html",
        )

    return Starlette(
        routes=[
            Route("/v2/rfis", list_rfis, methods=["GET"]),
            Route("/v2/wallets/transfers/batches/{transfer_id}", get_batch, methods=["GET"]),
            Route("/v2/onramps/{transfer_id}/quote/refresh", refresh_quote, methods=["POST"]),
            Route("/v2/reporting/metrics/{metric_id}/results", run_metric, methods=["GET"]),
            Route("/ping", ping, methods=["GET"]),
            Route("/_sandbox/keys", dashboard_create_key, methods=["POST"]),
            Route("/_sandbox/keys/delete", dashboard_delete_key, methods=["POST"]),
            Route("/rfi/respond/{token}", hosted_page, methods=["GET"]),
            *control_routes(state),
        ]
    )


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


class Sandbox:
    """A sandbox instance: its state and its ASGI app.

    ``Sandbox()`` gives the default world (240 RFIs, the well-known key).
    """

    def __init__(
        self,
        *,
        seed: int = 7,
        rfis: int = 240,
        now: datetime | None = None,
        environment: str = "sandbox",
        faults: Faults | None = None,
        keys: dict[str, str] | None = None,
    ) -> None:
        if environment not in ENVIRONMENTS:
            raise ValueError(f"Unknown environment {environment!r}.")
        if now is None:
            data = SandboxData(seed=seed, rfi_count=rfis)
        else:
            data = SandboxData(seed=seed, rfi_count=rfis, now=now, frozen=True)
        default_keys = {SANDBOX_KEY: "default sandbox key"} if environment == "sandbox" else {}
        self.state = SandboxState(
            data=data,
            environment=environment,
            keys=dict(keys) if keys is not None else default_keys,
            faults=faults or Faults(),
        )
        self.app = build_app(self.state)

    @property
    def data(self) -> SandboxData:
        return self.state.data

    @property
    def faults(self) -> Faults:
        return self.state.faults

    def add_key(self, key: str, name: str = "test key") -> None:
        self.state.keys[key] = name

    def api_calls(self) -> list[tuple[str, str]]:
        return [c for c in self.state.calls if not c[1].startswith(("/_sandbox", "/rfi/"))]
