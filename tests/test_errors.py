"""Every error body of spec section 7 (and every broken one) becomes one typed APIError."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from httpx_retries import Retry

from stablepay_console.api import (
    APIError,
    FieldError,
    MalformedResponse,
    MetricResult,
    OnrampTransfer,
    Pong,
    ResponseTooLarge,
    RfiPage,
    ServerError,
    StablePayClient,
    StatusError,
    TransportError,
    Unauthorized,
    ValidationFailed,
)
from stablepay_console.api.client import decode
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import BATCH_50_ID, ONRAMP_OPEN_ID

NO_RETRY = Retry(total=0)


def response(
    status: int, body: Any = None, *, content: bytes | None = None, ctype: str = "application/json"
) -> httpx.Response:
    if content is None:
        return httpx.Response(status, json=body)
    return httpx.Response(status, content=content, headers={"content-type": ctype})


# --- RFI error shape ------------------------------------------------------------------


def test_server_text_in_an_error_is_cleaned_and_cut() -> None:
    said = "x" * 5000 + "\x1b[2J"
    error = ServerError(said, status=500, code="C" * 300 + "\x1b]52;c;")
    assert len(error.message) == 4000 and error.message.endswith("x…")
    assert str(error) == f"HTTP 500: {error.message}"
    assert error.code == "C" * 199 + "…"  # a code is cut at 200
    field = FieldError("f" * 5000, "\x1b[31m" + "m" * 5000, "c" * 5000)
    assert [len(v) for v in (field.field, field.message, field.code)] == [4000, 4000, 4000]
    assert field.message.startswith("\\x1b[31m")  # the escape shown, not sent to the terminal
    assert str(TransportError("connection refused")) == "connection refused"  # no response: no status to show
    too_large = ResponseTooLarge("the answer passed 8 MiB", limit=8 << 20, status=200)
    assert isinstance(too_large, APIError) and too_large.limit == 8 << 20
    assert str(too_large) == "HTTP 200: the answer passed 8 MiB"


def test_validation_error_with_fields() -> None:
    body = {
        "type": "VALIDATION_ERROR",
        "message": "Invalid query parameters",
        "fields": [
            {"code": "out_of_range", "field": "limit", "message": "limit must be between 1 and 100"},
            {"code": "conditional_required", "field": "entries[2].answerText", "message": "answerText is required"},
        ],
    }
    with pytest.raises(ValidationFailed) as caught:
        decode(response(400, body), RfiPage)
    error = caught.value
    assert error.status == 400
    assert error.code == "VALIDATION_ERROR"
    assert error.message == "Invalid query parameters"
    assert error.fields == [
        FieldError(field="limit", message="limit must be between 1 and 100", code="out_of_range"),
        FieldError(field="entries[2].answerText", message="answerText is required", code="conditional_required"),
    ]
    assert str(error) == (
        "HTTP 400: Invalid query parameters (limit: limit must be between 1 and 100; "
        "entries[2].answerText: answerText is required)"
    )
    assert error.kind == "Invalid request"
    assert isinstance(error, APIError)


def test_validation_error_without_fields() -> None:
    with pytest.raises(ValidationFailed) as caught:
        decode(response(400, {"type": "VALIDATION_ERROR", "message": "Bad request"}), RfiPage)
    assert caught.value.fields == []
    assert str(caught.value) == "HTTP 400: Bad request"


@pytest.mark.parametrize("fields", [5, "limit", {"field": "limit"}, None, [1, "x", None]])
def test_validation_error_with_a_malformed_fields_entry(fields: Any) -> None:
    with pytest.raises(ValidationFailed) as caught:
        decode(response(400, {"type": "VALIDATION_ERROR", "message": "Bad", "fields": fields}), RfiPage)
    assert caught.value.fields == []


def test_internal_server_error_shape() -> None:
    with pytest.raises(ServerError) as caught:
        decode(response(500, {"type": "INTERNAL_SERVER_ERROR", "message": "Something broke on our side"}), RfiPage)
    assert (caught.value.status, caught.value.code) == (500, "INTERNAL_SERVER_ERROR")
    assert str(caught.value) == "HTTP 500: Something broke on our side"
    assert caught.value.kind == "Server error"


def test_an_unnamed_rfi_error_type_keeps_its_code() -> None:
    with pytest.raises(APIError) as caught:
        decode(response(403, {"type": "FORBIDDEN", "message": "Not your user"}), RfiPage)
    assert type(caught.value) is APIError
    assert (caught.value.status, caught.value.code, caught.value.message) == (403, "FORBIDDEN", "Not your user")


# --- Unauthorized shape and the bare ping refusal -------------------------------------------


def test_unauthorized_shape() -> None:
    body = {"code": 401, "error": "Unauthorized", "errorDetails": "Missing or invalid API key"}
    with pytest.raises(Unauthorized) as caught:
        decode(response(401, body), RfiPage)
    assert (caught.value.status, caught.value.code) == (401, "401")
    assert caught.value.message == "Unauthorized: Missing or invalid API key"
    assert caught.value.kind == "Not authorized"


def test_unauthorized_shape_used_for_another_status() -> None:
    body = {"code": 403, "error": "Forbidden", "errorDetails": "Key belongs to production"}
    with pytest.raises(StatusError) as caught:
        decode(response(403, body), OnrampTransfer)
    assert (caught.value.status, caught.value.message) == (403, "Forbidden: Key belongs to production")


@pytest.mark.parametrize("status", [401, 403, 200])
def test_bare_not_authorized(status: int) -> None:
    with pytest.raises(Unauthorized) as caught:
        decode(response(status, {"error": "Not authorized"}), Pong)
    assert caught.value.status == status
    assert caught.value.message == "Not authorized"


def test_a_401_with_no_known_shape_is_still_unauthorized() -> None:
    with pytest.raises(Unauthorized) as caught:
        decode(response(401, {"detail": "nope"}), Pong)
    assert caught.value.status == 401


# --- Status-error shape ----------------------------------------------------------------------


def test_status_error_shape() -> None:
    body = {"status": "error", "error": {"code": "INVALID_STATUS", "message": "Quote refresh needs OPEN_QUOTE"}}
    with pytest.raises(StatusError) as caught:
        decode(response(409, body), OnrampTransfer)
    assert (caught.value.status, caught.value.code) == (409, "INVALID_STATUS")
    assert str(caught.value) == "HTTP 409: Quote refresh needs OPEN_QUOTE"
    assert caught.value.kind == "Refused"


def test_status_error_shape_on_401_and_5xx() -> None:
    body = {"status": "error", "error": {"code": "X", "message": "m"}}
    with pytest.raises(Unauthorized):
        decode(response(401, body), OnrampTransfer)
    with pytest.raises(ServerError):
        decode(response(503, body), OnrampTransfer)


def test_status_error_without_message() -> None:
    with pytest.raises(StatusError) as caught:
        decode(response(422, {"status": "error", "error": {}}), OnrampTransfer)
    assert caught.value.message == "HTTP 422"
    assert caught.value.code is None


# --- 2xx with an error body -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected", "message"),
    [
        ({"status": "error", "error": {"code": "LOCKED", "message": "Transfer is locked"}}, StatusError,
         "Transfer is locked"),
        ({"code": 401, "error": "Unauthorized", "errorDetails": "Key deleted"}, Unauthorized,
         "Unauthorized: Key deleted"),
        ({"type": "VALIDATION_ERROR", "message": "limit too big"}, ValidationFailed, "limit too big"),
        ({"type": "INTERNAL_SERVER_ERROR", "message": "db down"}, ServerError, "db down"),
    ],
)
@pytest.mark.parametrize("model", [RfiPage, OnrampTransfer, MetricResult, Pong])
def test_a_2xx_carrying_an_error_body_is_an_error(
    body: dict[str, Any], expected: type[APIError], message: str, model: type[Any]
) -> None:
    with pytest.raises(expected) as caught:
        decode(response(200, body), model)
    assert caught.value.status == 200
    assert caught.value.message == message


# --- bodies that match nothing ---------------------------------------------------------------

HTML_502 = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"


@pytest.mark.parametrize(
    ("status", "content", "ctype", "fragment"),
    [
        (502, HTML_502, "text/html", "not valid JSON (text/html)"),
        (200, HTML_502, "text/html; charset=utf-8", "not valid JSON (text/html)"),
        (200, b'{"data": [{"id": "6f1c2a10-5b7e', "application/json", "not valid JSON"),
        (200, b"{'data': [oops", "application/json", "not valid JSON"),
        (500, b"", "application/json", "empty body"),
        (200, b"", "application/json", "empty body"),
        (204, b"", "application/json", "empty body"),
        (200, b"\xff\xfe\x00garbage", "application/octet-stream", "not valid JSON"),
        (200, b"[" * 100_000, "application/json", "not valid JSON"),
    ],
    ids=["html-502", "html-200", "truncated", "invalid", "empty-500", "empty-200", "empty-204", "bytes", "deep"],
)
def test_unreadable_bodies_are_malformed(status: int, content: bytes, ctype: str, fragment: str) -> None:
    with pytest.raises(MalformedResponse) as caught:
        decode(response(status, content=content, ctype=ctype), RfiPage)
    assert caught.value.status == status
    assert fragment in caught.value.message
    assert caught.value.kind == "Unreadable response"
    assert "<html>" not in str(caught.value)  # the proxy's page is not pasted into the message


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (200, [1, 2, 3]),
        (200, "pong"),
        (200, None),
        (200, {"data": "not a list", "pagination": {}}),
        (200, {"data": [{"id": "x"}], "pagination": {"limit": 1, "offset": 0, "total": 1}}),
        (418, {"teapot": True}),
        (404, ["not", "an", "object"]),
        (302, {}),
    ],
)
def test_json_of_the_wrong_shape_is_malformed(status: int, body: Any) -> None:
    with pytest.raises(MalformedResponse) as caught:
        decode(response(status, body), RfiPage)
    assert caught.value.status == status


def test_wrong_shape_message_names_the_field() -> None:
    with pytest.raises(MalformedResponse) as caught:
        decode(response(200, {"data": [], "pagination": {"limit": "many", "offset": 0, "total": 1}}), RfiPage)
    assert "pagination.limit" in caught.value.message


def test_5xx_with_no_known_shape_is_a_server_error() -> None:
    with pytest.raises(ServerError) as caught:
        decode(response(503, {"retry": "later"}), RfiPage)
    assert caught.value.status == 503


def test_error_carries_the_response_and_a_safe_repr() -> None:
    with pytest.raises(StatusError) as caught:
        decode(response(404, {"status": "error", "error": {"code": "NOT_FOUND", "message": "gone"}}), RfiPage)
    assert caught.value.response is not None and caught.value.response.status_code == 404
    assert repr(caught.value) == "StatusError(status=404, message='gone')"


# --- the same shapes end to end, from the sandbox's fault injection --------------------------


@pytest.fixture
async def no_retry_client(sandbox: Sandbox):  # type: ignore[no-untyped-def]
    async with StablePayClient(
        "http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app), retry=NO_RETRY
    ) as c:
        yield c


@pytest.mark.parametrize(
    ("fault", "expected", "status"),
    [
        ("500", ServerError, 500),
        ("429", StatusError, 429),
        ("502_html", MalformedResponse, 502),
        ("invalid_json", MalformedResponse, 200),
        ("truncated", MalformedResponse, 200),
        ("401", Unauthorized, 401),
    ],
)
async def test_sandbox_faults_map_to_typed_errors(
    no_retry_client: StablePayClient, sandbox: Sandbox, fault: str, expected: type[APIError], status: int
) -> None:
    sandbox.faults.force = fault
    sandbox.faults.retry_after = 0  # the gate would hold each next call a second (`test_server_gate.py` holds that)
    calls = (
        no_retry_client.list_rfis(),
        no_retry_client.get_batch_transfer(BATCH_50_ID),
        no_retry_client.refresh_onramp_quote(ONRAMP_OPEN_ID),
        no_retry_client.ping(),
    )
    for call in calls:
        with pytest.raises(expected) as caught:
            await call
        assert caught.value.status == status
    sandbox.faults.clear()
    assert (await no_retry_client.ping()).message == "pong"


async def test_sandbox_500_keeps_the_servers_message(no_retry_client: StablePayClient, sandbox: Sandbox) -> None:
    sandbox.faults.force = "500"
    with pytest.raises(ServerError) as caught:
        await no_retry_client.list_rfis()
    assert caught.value.message == "Simulated internal failure (sandbox fault injection)"
    assert caught.value.code == "INTERNAL_SERVER_ERROR"


async def test_sandbox_429_keeps_the_servers_message(no_retry_client: StablePayClient, sandbox: Sandbox) -> None:
    sandbox.faults.force = "429"
    with pytest.raises(StatusError) as caught:
        await no_retry_client.list_rfis()
    assert caught.value.message == "Too many requests: Rate limit reached; retry later"
    assert caught.value.response is not None and caught.value.response.headers["retry-after"] == "1"


@pytest.mark.parametrize(
    ("raised", "fragment"),
    [
        (httpx.ConnectError("refused"), "could not connect to http://localhost"),
        (httpx.ReadTimeout("slow"), "did not answer in time"),
        (httpx.RemoteProtocolError("peer closed connection"), "connection failed (RemoteProtocolError"),
        (RuntimeError("transport bug"), "request failed (RuntimeError: transport bug)"),
    ],
)
async def test_no_response_is_a_transport_error(raised: Exception, fragment: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise raised

    async with StablePayClient(
        "http://localhost", SANDBOX_KEY, transport=httpx.MockTransport(fail), retry=NO_RETRY
    ) as client:
        with pytest.raises(TransportError) as caught:
            await client.ping()
    assert caught.value.status is None
    assert fragment in str(caught.value)
    assert caught.value.kind == "Network error"
    # Raised clean: no chained httpx exception (whose frames hold the request) rides along.
    assert caught.value.__cause__ is None and caught.value.__context__ is None
