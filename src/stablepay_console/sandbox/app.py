"""The sandbox: a Starlette app that answers the five endpoints as the spec describes."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from stablepay_console.api.models import OPEN_QUOTE, RFI_KINDS, RFI_STATUSES
from stablepay_console.sandbox.control import control_routes
from stablepay_console.sandbox.dashboard import dashboard_routes
from stablepay_console.sandbox.data import SANDBOX_KEY, SandboxData
from stablepay_console.sandbox.faults import Faults
from stablepay_console.sandbox.state import SandboxState

__all__ = ["Sandbox", "SandboxState", "build_app"]

ENVIRONMENTS = ("sandbox", "production")


def _unauthorized(path: str) -> JSONResponse:
    if path in ("/ping", "/v2/ping"):
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
        if request.url.path != state.ping_path:  # an unknown route on this server, whatever the key
            state.calls.append((request.method, request.url.path))
            return _status_error(404, "NOT_FOUND", "Route not found")
        if (refused := await guard(request)) is not None:
            return refused
        return JSONResponse({"message": "pong"})

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
            Route("/v2/ping", ping, methods=["GET"]),
            *dashboard_routes(state),
            Route("/rfi/respond/{token}", hosted_page, methods=["GET"]),
            *control_routes(state),
        ]
    )


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
        ping_path: str = "/ping",
        anchor: datetime | None = None,
    ) -> None:
        if environment not in ENVIRONMENTS:
            raise ValueError(f"Unknown environment {environment!r}.")
        if now is None:
            # `anchor`: the moment its requests are made relative to, while its clock runs on (the console's
            # built-in sandbox keeps one between starts); `now` freezes the clock too (tests).
            if anchor is None:
                data = SandboxData(seed=seed, rfi_count=rfis)
            else:
                data = SandboxData(seed=seed, rfi_count=rfis, now=anchor)
        else:
            data = SandboxData(seed=seed, rfi_count=rfis, now=now, frozen=True)
        default_keys = {SANDBOX_KEY: "default sandbox key"} if environment == "sandbox" else {}
        self.state = SandboxState(
            data=data,
            environment=environment,
            keys=dict(keys) if keys is not None else default_keys,
            faults=faults or Faults(),
            ping_path=ping_path,
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
        self.state.keys_changed()

    def api_calls(self) -> list[tuple[str, str]]:
        return [c for c in self.state.calls if not c[1].startswith(("/_sandbox", "/rfi/"))]
