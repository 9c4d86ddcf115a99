"""The async client of the StablePay API: one httpx.AsyncClient, typed methods."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Generator
from decimal import Decimal
from typing import Any, TypeVar

import httpx
from httpx_retries import Retry, RetryTransport
from pydantic import ValidationError

from stablepay_console.api.errors import (
    APIError,
    FieldError,
    MalformedResponse,
    ServerError,
    StatusError,
    TransportError,
    Unauthorized,
    ValidationFailed,
)
from stablepay_console.api.models import (
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    Pong,
    Rfi,
    RfiPage,
    WireModel,
)
from stablepay_console.api.secret import ApiKey
from stablepay_console.api.urls import check_base_url
from stablepay_console.api.validation import (
    check_kind,
    check_limit,
    check_offset,
    check_status,
    parse_uuid,
)

log = logging.getLogger(__name__)

M = TypeVar("M", bound=WireModel)

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=20.0, write=10.0, pool=5.0)
USER_AGENT = "stablepay-console"


def default_retry() -> Retry:
    """GETs only: connect errors, timeouts, 429 (Retry-After honoured) and 502/503/504."""
    return Retry(
        total=3,
        allowed_methods=["GET"],
        status_forcelist=[429, 502, 503, 504],
        backoff_factor=0.5,
        backoff_jitter=1.0,
        max_backoff_wait=10.0,
        total_timeout=20.0,
    )


class BearerAuth(httpx.Auth):
    """Adds the key to each request; the only place the plain value is read."""

    def __init__(self, key: ApiKey) -> None:
        self._key = key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        # Written straight into the headers, never into a local, so no traceback shows it.
        request.headers["Authorization"] = "Bearer " + self._key.reveal()
        yield request

    def __repr__(self) -> str:
        return f"BearerAuth({self._key!r})"


class StablePayClient:
    """Typed access to the API. Use as ``async with StablePayClient(url, key) as c: ...``."""

    def __init__(
        self,
        base_url: str,
        api_key: str | ApiKey,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: Retry | None = None,
        export_concurrency: int = 8,
    ) -> None:
        url = check_base_url(base_url)
        self.base_url = str(url).rstrip("/")
        self.key = api_key if isinstance(api_key, ApiKey) else ApiKey(api_key)
        self.export_concurrency = max(1, export_concurrency)
        inner = transport if transport is not None else httpx.AsyncHTTPTransport()
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            auth=BearerAuth(self.key),
            transport=RetryTransport(transport=inner, retry=retry or default_retry()),
            timeout=timeout,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"StablePayClient({self.base_url!r}, key={self.key.masked!r})"

    async def __aenter__(self) -> StablePayClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- endpoints -------------------------------------------------------------

    async def list_rfis(
        self,
        status: str | None = None,
        kind: str | None = None,
        user_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> RfiPage:
        """One page of RFIs, newest first (GET /v2/rfis)."""
        params: dict[str, str | int] = {"limit": check_limit(limit), "offset": check_offset(offset)}
        if check_status(status) is not None:
            params["status"] = status  # type: ignore[assignment]
        if check_kind(kind) is not None:
            params["kind"] = kind  # type: ignore[assignment]
        if user_id is not None:
            params["userId"] = parse_uuid(user_id, "user ID")
        return await self._get("/v2/rfis", RfiPage, params=params)

    async def iter_rfis(
        self,
        status: str | None = None,
        kind: str | None = None,
        user_id: str | None = None,
        page_size: int = 100,
    ) -> AsyncIterator[Rfi]:
        """Every RFI matching the filters, newest first, pages fetched a few at a time."""
        first = await self.list_rfis(status, kind, user_id, limit=page_size, offset=0)
        for rfi in first.data:
            yield rfi
        offsets = list(range(page_size, first.pagination.total, page_size))
        gate = asyncio.Semaphore(self.export_concurrency)

        async def fetch(offset: int) -> RfiPage:
            async with gate:
                return await self.list_rfis(status, kind, user_id, limit=page_size, offset=offset)

        # A sliding window keeps memory bounded and preserves order.
        window = self.export_concurrency * 2
        pending: list[asyncio.Task[RfiPage]] = []
        try:
            for offset in offsets:
                pending.append(asyncio.ensure_future(fetch(offset)))
                if len(pending) >= window:
                    for rfi in (await pending.pop(0)).data:
                        yield rfi
            while pending:
                for rfi in (await pending.pop(0)).data:
                    yield rfi
        finally:
            for task in pending:
                task.cancel()

    async def get_batch_transfer(self, transfer_id: str) -> BatchTransfer:
        """GET /v2/wallets/transfers/batches/{transferId}."""
        tid = parse_uuid(transfer_id, "transfer ID")
        return await self._get(f"/v2/wallets/transfers/batches/{tid}", BatchTransfer)

    async def refresh_onramp_quote(self, transfer_id: str) -> OnrampTransfer:
        """POST /v2/onramps/{transferId}/quote/refresh. Never retried automatically."""
        tid = parse_uuid(transfer_id, "onramp ID")
        return await self._send("POST", f"/v2/onramps/{tid}/quote/refresh", OnrampTransfer)

    async def run_metric(self, metric_id: str) -> MetricResult:
        """GET /v2/reporting/metrics/{id}/results."""
        mid = parse_uuid(metric_id, "metric ID")
        return await self._get(f"/v2/reporting/metrics/{mid}/results", MetricResult)

    async def ping(self) -> Pong:
        """GET /ping: does this key work against this base URL?"""
        return await self._get("/ping", Pong)

    # --- plumbing --------------------------------------------------------------

    async def _get(self, path: str, model: type[M], params: dict[str, Any] | None = None) -> M:
        return await self._send("GET", path, model, params=params)

    async def _send(self, method: str, path: str, model: type[M], params: dict[str, Any] | None = None) -> M:
        failure: str | None = None
        try:
            response = await self._http.request(method, path, params=params)
        except httpx.TimeoutException:
            failure = f"{method} {path}: the server did not answer in time."
        except httpx.ConnectError as exc:
            failure = f"{method} {path}: could not connect to {self.base_url} ({type(exc).__name__})."
        except httpx.HTTPError as exc:
            failure = f"{method} {path}: the connection failed ({type(exc).__name__}: {exc})."
        except Exception as exc:
            # Anything else (a broken transport, the in-process sandbox failing) would carry frames whose
            # locals hold the request headers, key included, into a crash traceback: re-raise it bare.
            failure = f"{method} {path}: the request failed ({type(exc).__name__}: {exc})."
            log.warning("%s %s failed inside the transport: %s", method, path, type(exc).__name__)
        if failure is not None:
            # Raised outside the except block so no httpx frame (or its locals) rides along.
            raise TransportError(failure)
        log.info("%s %s -> %s", method, path, response.status_code)
        return decode(response, model)


def _load_json(response: httpx.Response, exact: bool) -> Any:
    if exact:
        return json.loads(response.content, parse_float=Decimal)
    return json.loads(response.content)


def decode(response: httpx.Response, model: type[M]) -> M:
    """The model of a successful response, or the typed error the response stands for."""
    status = response.status_code
    exact = getattr(model, "exact_numbers", False)
    if 200 <= status < 300 and not exact:
        # Fast path: pydantic parses and validates in one pass (a 100-RFI page in about half the time).
        try:
            parsed = model.model_validate_json(response.content)
        except (ValidationError, ValueError):
            parsed = None  # not JSON or not this shape: the full path below says which
        if parsed is not None and not _is_error_body(_top_level(parsed)):
            return parsed
    try:
        body = _load_json(response, exact)
    except (ValueError, UnicodeDecodeError, RecursionError):
        # RecursionError: a body nested thousands deep (hostile or broken proxy) is just unreadable.
        body = _NOT_JSON
    if not 200 <= status < 300 or _is_error_body(body):
        raise error_from(response, body)
    if body is _NOT_JSON:
        raise MalformedResponse(_not_json_message(response), status=status, response=response)
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:3]
        )
        raise MalformedResponse(
            f"The server's answer does not have the expected shape ({problems}).",
            status=status,
            response=response,
        ) from None


_NOT_JSON = object()


def _top_level(parsed: WireModel) -> dict[str, Any]:
    """The top-level keys the body carried, with their values: enough for `_is_error_body`."""
    fields = type(parsed).model_fields
    sent = {fields[name].alias or name: getattr(parsed, name) for name in parsed.model_fields_set if name in fields}
    return {**sent, **(parsed.model_extra or {})}


def _not_json_message(response: httpx.Response) -> str:
    ctype = response.headers.get("content-type", "no content type").split(";")[0]
    if not response.content:
        return f"The server answered HTTP {response.status_code} with an empty body."
    return f"The server answered HTTP {response.status_code} with a body that is not valid JSON ({ctype})."


def _is_error_body(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if body.get("status") == "error" and "error" in body:
        return True
    # The RFI error shape sent with a 2xx status still carries the server's own message.
    if isinstance(body.get("type"), str) and isinstance(body.get("message"), str):
        return not any(key in body for key in ("data", "pagination", "transferDetails"))
    # The ping endpoint's refusal: {"error": "Not authorized"} with no payload fields.
    return isinstance(body.get("error"), str) and "message" not in body and "data" not in body


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def error_from(response: httpx.Response, body: Any) -> APIError:
    """Map a failed response onto the error hierarchy (spec section 7)."""
    status = response.status_code
    kw: dict[str, Any] = {"status": status, "response": response}
    if body is _NOT_JSON or not isinstance(body, dict):
        if body is _NOT_JSON:
            return MalformedResponse(_not_json_message(response), **kw)
        return MalformedResponse(f"The server answered HTTP {status} with an unexpected body.", **kw)

    # RFI error shape: {type, message, fields?}
    if isinstance(body.get("type"), str) and "message" in body:
        message = _text(body["message"])
        code = body["type"]
        if code == "VALIDATION_ERROR" or status == 400:
            fields = [
                FieldError(
                    field=_text(f.get("field", "")),
                    message=_text(f.get("message", "")),
                    code=_text(f.get("code", "")),
                )
                for f in (body["fields"] if isinstance(body.get("fields"), list) else [])
                if isinstance(f, dict)
            ]
            return ValidationFailed(message, fields=fields, code=code, **kw)
        if status == 401:
            return Unauthorized(message, code=code, **kw)
        if code == "INTERNAL_SERVER_ERROR" or status >= 500:
            return ServerError(message, code=code, **kw)
        return APIError(message, code=code, **kw)

    # Status-error shape: {status: "error", error: {code, message}}
    if body.get("status") == "error" and isinstance(body.get("error"), dict):
        inner = body["error"]
        message = _text(inner.get("message", "")) or f"HTTP {status}"
        code = _text(inner["code"]) if "code" in inner else None
        if status == 401:
            return Unauthorized(message, code=code, **kw)
        if status >= 500:
            return ServerError(message, code=code, **kw)
        return StatusError(message, code=code, **kw)

    # Unauthorized shape {code, error, errorDetails}, or the bare {"error": "..."}.
    if isinstance(body.get("error"), str):
        message = body["error"]
        details = body.get("errorDetails")
        if isinstance(details, str) and details and details != message:
            message = f"{message}: {details}"
        code = str(body["code"]) if "code" in body else None
        if status == 401 or "not authorized" in body["error"].lower() or "unauthorized" in body["error"].lower():
            return Unauthorized(message, code=code, **kw)
        if status >= 500:
            return ServerError(message, code=code, **kw)
        return StatusError(message, code=code, **kw)

    if status == 401:
        return Unauthorized("Not authorized.", **kw)
    if status >= 500:
        return ServerError(f"The server failed with HTTP {status}.", **kw)
    return MalformedResponse(f"The server answered HTTP {status} with a body of no known error shape.", **kw)
