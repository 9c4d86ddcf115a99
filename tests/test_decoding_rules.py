"""How an answer's status and body decide between the model and the typed error (api/decoding.py)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, ClassVar

import httpx
import pytest

from stablepay_console.api import APIError, MalformedResponse, ServerError, StatusError, Unauthorized, ValidationFailed
from stablepay_console.api.client import decode
from stablepay_console.api.errors import FieldError
from stablepay_console.api.models import Pong
from stablepay_console.api.wire import WireModel


class Anything(WireModel):
    """A payload whose fields are all optional."""

    data: Any = None


class ExactAmount(WireModel):
    exact_numbers: ClassVar[bool] = True

    amount: Any = None


class PlainAmount(WireModel):
    amount: Any = None


class FourFields(WireModel):
    a: int
    b: int
    c: int
    d: int


def answer(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.Response(status, headers=headers, content=content)


@pytest.mark.parametrize(
    "body",
    [
        {"message": "pong", "error": {"detail": 1}},
        {"message": "pong", "status": "error"},
        {"type": "notice", "message": "pong", "data": []},
        {"type": "notice", "message": "pong", "pagination": {}},
        {"type": "notice", "message": "pong", "transferDetails": {}},
        {"error": "a note", "message": "pong"},
    ],
    ids=["error-object-without-status", "status-without-error", "rfi-shape-with-data", "rfi-shape-with-pagination",
         "rfi-shape-with-transfer-details", "error-text-with-message"],
)
def test_a_successful_answer_that_carries_its_payload_is_the_payload_not_an_error(body: dict[str, Any]) -> None:
    assert decode(answer(200, body), Pong).message == "pong"


def test_a_successful_answer_with_an_error_text_and_data_is_the_data() -> None:
    assert decode(answer(200, {"error": "a note", "data": 7}), Anything).data == 7


def test_exact_models_read_numbers_exactly_and_the_others_as_floats() -> None:
    content = b'{"amount": 0.10000000000000000001}'
    exact = decode(httpx.Response(200, content=content), ExactAmount).amount
    assert isinstance(exact, Decimal) and str(exact) == "0.10000000000000000001"
    assert decode(httpx.Response(200, content=content), PlainAmount).amount == 0.1


@pytest.mark.parametrize("status", [300, 404])
def test_an_answer_outside_2xx_is_an_error_even_when_it_has_the_models_shape(status: int) -> None:
    with pytest.raises(MalformedResponse, match=f"HTTP {status} with a body of no known error shape"):
        decode(answer(status, {"message": "pong"}), Pong)


def test_a_successful_answer_that_is_not_an_object_is_named_as_the_wrong_shape() -> None:
    with pytest.raises(MalformedResponse, match=r"expected shape \(body: "):
        decode(answer(200, []), Pong)


def test_a_wrong_shape_names_its_first_three_problems() -> None:
    with pytest.raises(MalformedResponse) as caught:
        decode(answer(200, {}), FourFields)
    assert "(a: Field required; b: Field required; c: Field required)" in caught.value.message


def test_an_answer_that_is_not_json_and_names_no_type_says_so() -> None:
    with pytest.raises(MalformedResponse, match=r"not valid JSON \(no content type\)"):
        decode(answer(200, b"<html>"), Pong)


E = type[APIError]


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (404, {"error": {"message": "gone"}}, MalformedResponse, "HTTP 404 with a body of no known error shape."),
        (404, [], MalformedResponse, "The server answered HTTP 404 with an unexpected body."),
        (404, {}, MalformedResponse, "The server answered HTTP 404 with a body of no known error shape."),
        (401, {}, Unauthorized, "Not authorized."),
        (500, {}, ServerError, "The server failed with HTTP 500."),
        (500, {"error": "boom"}, ServerError, "boom"),
        (401, {"error": "Nope", "errorDetails": ""}, Unauthorized, "Nope"),
        (401, {"error": "Nope", "errorDetails": "Nope"}, Unauthorized, "Nope"),
        (409, {"status": "error", "error": {"message": "taken"}}, StatusError, "taken"),
        (400, {"type": "BAD", "message": 42}, ValidationFailed, "42"),
    ],
    ids=["error-object-without-status", "not-an-object", "empty-object", "bare-401", "bare-500", "500-error-text",
         "empty-details", "details-repeating-the-error", "status-shape", "number-as-message"],
)
def test_each_error_answer_becomes_its_error_and_message(status: int, body: Any, kind: E, message: str) -> None:
    with pytest.raises(APIError) as caught:
        decode(answer(status, body), Pong)
    assert type(caught.value) is kind
    assert caught.value.message.endswith(message)


def test_a_number_as_the_message_of_an_exact_model_is_written_as_its_digits() -> None:
    with pytest.raises(APIError) as caught:
        decode(httpx.Response(400, content=b'{"type": "BAD", "message": 1.5}'), ExactAmount)
    assert caught.value.message == '"1.5"'


def test_a_400_of_the_rfi_shape_is_a_validation_error_whose_empty_fields_stay_empty() -> None:
    with pytest.raises(ValidationFailed) as caught:
        decode(answer(400, {"type": "BAD_REQUEST", "message": "no", "fields": [{}]}), Pong)
    assert caught.value.fields == [FieldError(field="", message="", code="")]
