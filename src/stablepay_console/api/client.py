"""The async client of the StablePay API: one httpx.AsyncClient, typed methods."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator
from contextlib import aclosing
from datetime import datetime
from typing import Any

import httpx
from httpx_retries import Retry

from stablepay_console.api.body import (
    ACCEPT_ENCODING,
    DEFAULT_MAX_BODY,
    BodyTooLarge,
    UnreadableEncoding,
    read_capped,
    settled,
)
from stablepay_console.api.decoding import M, decode, error_from
from stablepay_console.api.errors import DeadlineExceeded, MalformedResponse, ResponseTooLarge, TransportError
from stablepay_console.api.filters import ANY, RfiFilters
from stablepay_console.api.gate import BULK, PoliteTransport, gate_for
from stablepay_console.api.key_check import check_key
from stablepay_console.api.models import (
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    Pong,
    Rfi,
    RfiPage,
)
from stablepay_console.api.paging import PagingReport, walk_pages
from stablepay_console.api.proxies import ProxyChoice, failure_through, proxy_answer, proxy_for
from stablepay_console.api.sanitize import clean
from stablepay_console.api.secret import ApiKey
from stablepay_console.api.tls import tls_for
from stablepay_console.api.urls import check_base_url
from stablepay_console.api.validation import (
    check_kind,
    check_limit,
    check_offset,
    check_status,
    parse_uuid,
)

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BODY",
    "DEFAULT_TIMEOUT",
    "StablePayClient",
    "decode",
    "default_retry",
    "error_from",
]

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=20.0, write=10.0, pool=5.0)
DEFAULT_DEADLINE = 30.0
"""Seconds one call may take in all: connecting, every retry and its wait, and reading the whole body."""
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


DECODE_IN_THREAD = 256 * 1024
"""Bodies larger than this are decoded in a worker thread, so a UI on the same loop keeps answering keys."""


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
        export_concurrency: int | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY,
        deadline: float = DEFAULT_DEADLINE,
        on_rfis: Callable[[list[Rfi]], None] | None = None,
    ) -> None:
        url = check_base_url(base_url)
        self.base_url = str(url).rstrip("/")
        self.key = api_key if isinstance(api_key, ApiKey) else ApiKey(api_key)
        self.export_concurrency = None if export_concurrency is None else max(1, export_concurrency)
        """Pages a walk (`iter_rfis`) has in flight; None: as many as the server's gate gives a bulk walk."""
        self.max_body_bytes = max_body_bytes
        self.deadline = deadline
        self.on_rfis = on_rfis
        """Told of every page of RFIs received (the local record listens here); it must not block."""
        self.proxy: ProxyChoice | None = proxy_for(url) if transport is None else None
        """The forward proxy every request goes through (HTTPS_PROXY and NO_PROXY: `api.proxies`); None: direct."""
        if transport is None:
            verify = tls_for(url)
            transport = self.proxy.transport(verify) if self.proxy else httpx.AsyncHTTPTransport(verify=verify)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            auth=BearerAuth(self.key),
            # Every attempt, retries included, waits at the server's one gate (see `api.gate`).
            transport=PoliteTransport(transport, self.base_url, retry or default_retry()),
            timeout=timeout,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING},
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        via = "" if self.proxy is None else f", proxy={self.proxy.where!r}"
        return f"StablePayClient({self.base_url!r}, key={self.key.masked!r}{via})"

    async def __aenter__(self) -> StablePayClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- endpoints -------------------------------------------------------------

    async def list_rfis(
        self, filters: RfiFilters = ANY, limit: int = 20, offset: int = 0, *, bulk: bool = False
    ) -> RfiPage:
        """One page of RFIs matching `filters`, newest first (GET /v2/rfis). `bulk`: a page of a walk, which lets
        the pages a person asked for go first at the server's gate."""
        return await self._rfis_page(await self._rfis_answer(filters, limit, offset, bulk))

    async def _rfis_answer(self, filters: RfiFilters, limit: int, offset: int, bulk: bool) -> httpx.Response:
        params: dict[str, str | int] = {"limit": check_limit(limit), "offset": check_offset(offset)}
        if (status := check_status(filters.status)) is not None:
            params["status"] = status
        if (kind := check_kind(filters.kind)) is not None:
            params["kind"] = kind
        if filters.user_id is not None:
            params["userId"] = parse_uuid(filters.user_id, "user ID")
        ready = None if RfiPage.__pydantic_complete__ else _build_page_models
        return await self._exchange("GET", "/v2/rfis", params=params, bulk=bulk, meanwhile=ready)

    async def _rfis_page(self, answer: httpx.Response,
                         between: Callable[[], Awaitable[None]] | None = None) -> RfiPage:
        """A page of RFIs from its answer; `on_rfis` is told of it (the local record). A walk awaits `between`
        after decoding the page and after telling of it (`_answers_in`)."""
        page = await self._decoded(answer, RfiPage)
        if between is not None:
            await between()
        if self.on_rfis is not None:
            self.on_rfis(page.data)
        if between is not None:
            await between()
        return page

    async def iter_rfis(
        self,
        filters: RfiFilters = ANY,
        page_size: int = 100,
        report: PagingReport | None = None,
        older_than: datetime | None = None,
    ) -> AsyncGenerator[Rfi, None]:
        """Every distinct RFI matching the filters, newest first, a few pages in flight at a time.

        Paging trusts nothing the server says (see `api.paging`); `report` is filled in as the
        pages come (distinct rows, duplicates skipped, pages re-read, why it stopped). With
        `older_than`, paging stops after a page whose rows are all older (the list is newest first).
        """
        pages = self.iter_rfi_pages(filters, page_size, report, older_than)
        async with aclosing(pages):
            async for rows in pages:
                for rfi in rows:
                    yield rfi

    async def iter_rfi_pages(
        self,
        filters: RfiFilters = ANY,
        page_size: int = 100,
        report: PagingReport | None = None,
        older_than: datetime | None = None,
    ) -> AsyncGenerator[list[Rfi], None]:
        """`iter_rfis`, a page's new rows at a time (a walk of every issued request steps through lists)."""
        check_limit(page_size)
        places = self.export_concurrency or gate_for(self.base_url).bulk_places
        own = asyncio.Semaphore(places)

        async def fetch(limit: int, offset: int) -> RfiPage:
            # This walk's own bound, and the server's gate (one limit shared with every other caller), hold
            # a place while the page is on the wire only: the next page is sent before this one is parsed.
            async with own:
                answer = await self._rfis_answer(filters, limit, offset, bulk=True)
            await asyncio.sleep(0)  # the page waiting for the place just given back goes out first
            return await self._rfis_page(answer, between=_answers_in)

        pages = walk_pages(fetch, page_size, places, report, older_than)
        async with aclosing(pages):  # pages still in flight are cancelled when the caller stops early
            async for rows in pages:
                yield rows

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
        """GET /ping (or /v2/ping where only that answers: `api/key_check.py`): does this key work here?"""
        return await check_key(self.base_url, lambda path: self._get(path, Pong))

    # --- plumbing --------------------------------------------------------------

    async def _get(self, path: str, model: type[M], params: dict[str, Any] | None = None, bulk: bool = False) -> M:
        return await self._send("GET", path, model, params=params, bulk=bulk)

    async def _send(
        self, method: str, path: str, model: type[M], params: dict[str, Any] | None = None, bulk: bool = False
    ) -> M:
        return await self._decoded(await self._exchange(method, path, params, bulk), model)

    async def _exchange(
        self, method: str, path: str, params: dict[str, Any] | None = None, bulk: bool = False,
        meanwhile: Callable[[], object] | None = None,
    ) -> httpx.Response:
        """One request and its whole (capped) body; a typed error for anything but an answer to decode.
        `meanwhile` runs once the request is sent, while its answer is awaited (where the transport says so)."""
        failure: str | None = None
        unreadable: str | None = None
        too_large: BodyTooLarge | None = None
        expired = False
        status = 0
        try:
            # One total deadline: per-read timeouts alone let a server that trickles a byte at a time, or
            # keeps asking for retries, hold the call for ever.
            extensions: dict[str, Any] = {BULK: True} if bulk else {}
            if meanwhile is not None:
                extensions["trace"] = _when_sent(meanwhile)
            async with (
                asyncio.timeout(self.deadline),
                self._http.stream(method, path, params=params, extensions=extensions) as streamed,
            ):
                status = streamed.status_code
                body = await read_capped(streamed, self.max_body_bytes)
                response = settled(streamed, body)
        except TimeoutError:
            expired = True
        except BodyTooLarge as exc:
            too_large = exc
        except UnreadableEncoding as exc:
            unreadable = f"{method} {path}: the server's answer cannot be read: {exc}."
        except (httpx.ProxyError, httpx.ConnectError, httpx.ConnectTimeout) as exc:
            failure = f"{method} {path}: {self._not_connected(exc)}."
        except httpx.TimeoutException:
            failure = f"{method} {path}: the server did not answer in time."
        except httpx.HTTPError as exc:
            failure = f"{method} {path}: the connection failed ({type(exc).__name__}: {clean(exc, 200)})."
        except Exception as exc:
            # Anything else (a broken transport, the in-process sandbox failing) would carry frames whose
            # locals hold the request headers, key included, into a crash traceback: re-raise it bare.
            failure = f"{method} {path}: the request failed ({type(exc).__name__}: {clean(exc, 200)})."
            log.warning("%s %s failed inside the transport: %s", method, path, type(exc).__name__)
        # Raised outside the except blocks so no httpx frame (or its locals) rides along.
        if expired:
            log.info("%s %s -> %s (deadline of %s s passed)", method, path, status or "no answer", self.deadline)
            said = f"HTTP {status} came but the body did not finish" if status else "no answer came"
            raise DeadlineExceeded(
                f"{method} {path}: no complete answer within {self.deadline:g} s ({said}); retries included.",
                status=status or None,
            )
        if too_large is not None:
            log.info("%s %s -> %s (body over %s bytes, dropped)", method, path, status, too_large.cap)
            raise ResponseTooLarge(_too_large_message(method, path, status, too_large), limit=too_large.cap,
                                   status=status)
        if unreadable is not None:
            raise MalformedResponse(unreadable, status=status)
        if failure is not None:
            raise TransportError(failure)
        log.info("%s %s -> %s", method, path, response.status_code)
        return response

    def _not_connected(self, exc: httpx.TransportError) -> str:
        """Why no connection to the server was made: through a proxy, what the proxy did."""
        if self.proxy is not None:
            return failure_through(exc, self.proxy, self.base_url)
        if isinstance(exc, httpx.ConnectTimeout):
            return "the server did not answer in time"
        return f"could not connect to {self.base_url} ({type(exc).__name__})"

    async def _decoded(self, response: httpx.Response, model: type[M]) -> M:
        """The answer as `model`, or the typed error its status and body make."""
        try:
            if len(response.content) > DECODE_IN_THREAD:
                # A large legal body (100,000 recipients) takes most of a second to validate: off the event loop.
                return await asyncio.to_thread(decode, response, model)
            return decode(response, model)
        except MalformedResponse as exc:
            if self.proxy is None or not response.is_error:
                raise
            message = proxy_answer(exc.message, response, self.proxy)
        # Not the API's answer, through a proxy: most likely the proxy's own refusal, said as the proxy's.
        raise MalformedResponse(message, status=response.status_code, response=response)


async def _answers_in() -> None:
    """Between two stretches of a walk's parsing, the answers that arrived meanwhile are taken in, and the
    pages that waited for their places are sent. It takes two turns of the event loop: an answer's last bytes
    are read in the first, the page waiting for the place it frees is sent in the second. A walk parses about
    as fast as 9 pages in flight arrive: without this, each arrival waited for a whole page's parsing, and
    `rfis due` at 100,000 requests took about 0.1 s longer."""
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def _build_page_models() -> None:
    """The models of a page of requests are built on first use (`defer_build`), here while the
    first page is on its way rather than once it has come."""
    for model in (RfiPage, Rfi):
        model.model_rebuild()


def _when_sent(then: Callable[[], object]) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """An httpcore trace that runs `then` once, as soon as the request is sent and its answer awaited."""
    done = False

    async def trace(event: str, info: dict[str, Any]) -> None:
        nonlocal done
        if not done and event.endswith("receive_response_headers.started"):
            done = True
            asyncio.get_running_loop().call_soon(then)

    return trace


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"


def _too_large_message(method: str, path: str, status: int, exc: BodyTooLarge) -> str:
    said = f" (it declared {_size(exc.declared)})" if exc.declared is not None and exc.declared > exc.cap else ""
    return (
        f"{method} {path}: the server's answer is larger than this console accepts ({_size(exc.cap)}){said}; "
        "it was dropped unread."
    )
