"""Fuzzing the response handling: any body, any status, gives a model or an APIError, never anything else.

The default profile (`ci`) runs 2,000 examples per model; `STABLEPAY_FUZZ_PROFILE=quick` runs 200.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stablepay_console.api import (
    APIError,
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    Pong,
    RfiPage,
    ValidationFailed,
)
from stablepay_console.api.client import decode
from stablepay_console.api.models import WireModel
from stablepay_console.sandbox.data import (
    BATCH_SMALL_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
    SandboxData,
)
from tests.conftest import FIXED_NOW

_COMMON = {
    "deadline": None,
    "database": None,
    "derandomize": False,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
}
settings.register_profile("stablepay-fuzz-ci", max_examples=2000, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("stablepay-fuzz-quick", max_examples=200, **_COMMON)  # type: ignore[arg-type]
FUZZ = settings(settings.get_profile(f"stablepay-fuzz-{os.environ.get('STABLEPAY_FUZZ_PROFILE', 'ci')}"))

# --- sample bodies the sandbox really sends, to mutate ------------------------------------------

_DATA = SandboxData(now=FIXED_NOW, frozen=True)
_metric = copy.deepcopy(_DATA.metrics[METRIC_TX_COUNT_ID])
_metric["data"] = _metric["data"][:4]
_onramp = _DATA.onramps[ONRAMP_OPEN_NO_EXPIRY_ID].to_wire()
_onramp["transferDetails"]["quoteInformation"]["expiresAt"] = "N/A"
VALID: dict[type[WireModel], dict[str, Any]] = {
    RfiPage: {
        "data": [r.to_wire() for r in _DATA.rfis[:3]],
        "pagination": {"limit": 3, "offset": 0, "total": len(_DATA.rfis)},
    },
    BatchTransfer: _DATA.batches[BATCH_SMALL_ID].to_wire(),
    OnrampTransfer: _onramp,
    MetricResult: _metric,
    Pong: {"message": "pong"},
}
MODELS = list(VALID)

# --- strategies ------------------------------------------------------------------------------------

WIRE_KEYS = sorted(
    {
        "data", "pagination", "limit", "offset", "total", "type", "message", "fields", "field", "code",
        "status", "error", "errorDetails", "transferType", "transferDetails", "periodStart", "amount",
        "expiresAt", "rate", "metadata", "filters", "values", "round", "items", "docType", "createdAt",
    }
)
TRICKY_STRINGS = st.sampled_from(
    [
        "", "N/A", "pong", "error", "success", "VALIDATION_ERROR", "INTERNAL_SERVER_ERROR", "Not authorized",
        "2026-11-20", "2026-11-20T09:30:00Z", "2026-11-20T09:30:00+00:00", "2026-13-45T99:00:00Z",
        "1e999999", "-0.00", "NaN", "Infinity", "12.345678901234567890", "\x00\x1b[31m", "é✓",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | TRICKY_STRINGS
)
KEYS = st.sampled_from(WIRE_KEYS) | st.text(max_size=12)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=12,
)
STATUSES = st.integers(min_value=100, max_value=599)
CONTENT_TYPES = st.sampled_from(["application/json", "application/json; charset=utf-8", "text/html", "text/plain", ""])

ERROR_SHAPES = st.one_of(
    st.fixed_dictionaries({"type": JSON, "message": JSON}, optional={"fields": JSON}),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["VALIDATION_ERROR", "INTERNAL_SERVER_ERROR", "X"]), "message": st.text()},
        optional={"fields": st.lists(st.dictionaries(st.sampled_from(["code", "message", "field"]), JSON))},
    ),
    st.fixed_dictionaries({"code": JSON, "error": JSON, "errorDetails": JSON}),
    st.fixed_dictionaries({"status": st.just("error") | JSON, "error": JSON | st.dictionaries(KEYS, JSON)}),
    st.fixed_dictionaries({"error": st.text() | TRICKY_STRINGS}),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found.extend(_paths(value, (*prefix, key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_paths(value, (*prefix, index)))
    return found


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    """A real body with a few values replaced, deleted, or added."""
    body = copy.deepcopy(base)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        paths = _paths(body)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent: Any = body
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(KEYS)] = draw(JSON)
        else:
            parent[path[-1]] = draw(JSON)
    return body


def as_bytes(body: Any) -> bytes:
    return json.dumps(body).encode()


def bodies_for(model: type[WireModel]) -> st.SearchStrategy[bytes]:
    valid = as_bytes(VALID[model])
    near_valid = mutated(VALID[model]).map(as_bytes)
    return st.one_of(
        near_valid,
        near_valid,
        JSON.map(as_bytes),
        ERROR_SHAPES.map(as_bytes),
        st.integers(min_value=0, max_value=len(valid)).map(lambda n: valid[:n]),  # truncated
        st.binary(max_size=200),
        st.just(valid),
    )


def check(model: type[WireModel], status: int, content: bytes, ctype: str) -> None:
    headers = {"content-type": ctype} if ctype else {}
    response = httpx.Response(status, content=content, headers=headers)
    try:
        result = decode(response, model)
    except APIError as error:
        assert error.status == status
        assert isinstance(str(error), str) and isinstance(repr(error), str)
        assert isinstance(error.kind, str) and error.kind
        if isinstance(error, ValidationFailed):
            assert all(isinstance(f.field, str) and isinstance(f.message, str) for f in error.fields)
        return
    assert isinstance(result, model)
    assert 200 <= status < 300, "a failed status must never give a model"
    result.to_wire()  # a model that was read can be written back


def fuzz_test(model: type[WireModel]) -> Any:
    """One hypothesis test per model, with that model's bodies."""
    bodies = bodies_for(model)

    @FUZZ
    @given(content=bodies, status=STATUSES, ctype=CONTENT_TYPES)
    def test(content: bytes, status: int, ctype: str) -> None:
        check(model, status, content, ctype)

    test.__doc__ = f"Any body with any status, read as {model.__name__}: a model or an APIError."
    return test


test_fuzz_rfi_page = fuzz_test(RfiPage)
test_fuzz_batch_transfer = fuzz_test(BatchTransfer)
test_fuzz_onramp_transfer = fuzz_test(OnrampTransfer)
test_fuzz_metric_result = fuzz_test(MetricResult)
test_fuzz_pong = fuzz_test(Pong)


@pytest.mark.parametrize("model", MODELS, ids=[m.__name__ for m in MODELS])
def test_the_unmutated_samples_are_read(model: type[WireModel]) -> None:
    """The fuzz starts from bodies the client reads, so the mutations are near misses, not noise."""
    assert isinstance(decode(httpx.Response(200, content=as_bytes(VALID[model])), model), model)
