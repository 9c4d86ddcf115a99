"""Fuzzing the response handling: any body, any status, gives a model or an APIError, never anything else;
and past decode(), any valid but extreme body is drawn by every screen's formatters without an exception.

The default profile runs 150 examples per model; `STABLEPAY_FUZZ_PROFILE=full` runs 2,000 (the default until the
whole suite had to fit in five minutes on two cores: about ten seconds of CPU per model), `quick` 60. The rendering
tests run 50 examples each (`STABLEPAY_RENDER_EXAMPLES`; a pilot app draws each). A failure Hypothesis found is kept
in its database and tried first the next run; a deeper search is `STABLEPAY_FUZZ_PROFILE=full
STABLEPAY_RENDER_EXAMPLES=500`.
"""

from __future__ import annotations

import copy
import io
import json
import os
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

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
from stablepay_console.api.models import Money, WireModel
from stablepay_console.sandbox.data import (
    BATCH_SMALL_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
    SandboxData,
)
from stablepay_console.tui.formatters.rfi import held_short, held_transfer, link_absence_reason, status_long
from tests.conftest import FIXED_NOW
from tests.hostile_payloads import HOSTILE, RAW_CHARS, raw, to_json

_COMMON = {
    "deadline": None,
    "database": None,
    "derandomize": False,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
}
settings.register_profile("stablepay-fuzz-default", max_examples=150, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("stablepay-fuzz-full", max_examples=2000, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("stablepay-fuzz-ci", max_examples=2000, **_COMMON)  # type: ignore[arg-type]  # full's old name
settings.register_profile("stablepay-fuzz-quick", max_examples=60, **_COMMON)  # type: ignore[arg-type]
FUZZ = settings(settings.get_profile(f"stablepay-fuzz-{os.environ.get('STABLEPAY_FUZZ_PROFILE', 'default')}"))

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


# --- past decode(): valid but extreme payloads, rendered by every screen's formatters and tables ------------
#
# Bodies built to the spec's shapes with extreme values (numbers past Decimal's and float's range,
# instants at the ends of the calendar with +-14:00 offsets, hostile and huge text, repeated IDs),
# read by decode() as the client does, then turned into what each screen draws: the inbox row and
# the request detail, the batch fields, recipients and summary, the quote lines, changes and
# parties, the metric series, chart axis, legend, table and metadata. Nothing may raise, and no
# unsafe character may come out.

RENDER = settings(
    max_examples=int(os.environ.get("STABLEPAY_RENDER_EXAMPLES", "50")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
"""Bounded: each rendering test takes a few seconds."""

NUMBER_TEXTS = st.sampled_from(
    ["0", "-0.00", "0.01", "12.50", "1e999999999", "-1e999999999", "1e400", "-1e400", "1e-999999", "1e30",
     "1e-30", "1E+28", "99999999999999999999999999999999", "123456789012345678901234567890.123456789", "-5"]
) | st.decimals(allow_nan=False, allow_infinity=False).map(str)
NUMBERS = st.one_of(NUMBER_TEXTS.map(raw), NUMBER_TEXTS)
"""A JSON number literal (even one json.dumps cannot write) or the same as a string."""
OFFSETS = st.sampled_from([timezone.utc, timezone(timedelta(hours=14)), timezone(timedelta(hours=-14))])
INSTANTS = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59), timezones=OFFSETS).map(
        lambda d: d.isoformat()
    ),
    st.sampled_from(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "2026-11-20T09:30:00Z"]),
)
DAYS = st.dates(min_value=datetime(1, 1, 1).date(), max_value=datetime(9999, 12, 31).date()).map(str)
TEXT = st.one_of(
    st.text(max_size=24),
    st.sampled_from([HOSTILE, "", "[red]markup[/red]", "x" * 3000, "issued", "COMPLETED", "FAILED", "PENDING"]),
)
IDS = st.sampled_from(["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]) | TEXT


@st.composite
def rfi_body(draw: st.DrawFn) -> dict[str, Any]:
    items = draw(st.lists(st.fixed_dictionaries({
        "id": IDS, "kind": st.sampled_from(["document", "question"]) | TEXT, "label": TEXT,
        "docType": st.none() | st.sampled_from(["bank_statement", "selfie"]) | TEXT, "detail": st.none() | TEXT,
        "required": st.booleans(),
    }), max_size=5))
    round_ = st.none() | st.fixed_dictionaries({
        "id": IDS, "round": st.integers(-(10**20), 10**20), "issuedAt": INSTANTS,
        "expiresAt": st.none() | INSTANTS, "submittedAt": st.none() | INSTANTS, "items": st.just(items),
        "link": st.none() | TEXT | st.sampled_from(["https://hosted.example/r/1", "javascript:alert(1)"]),
    })
    return draw(st.fixed_dictionaries({
        "id": IDS, "kind": st.sampled_from(["onboarding", "transaction"]) | TEXT,
        "status": st.sampled_from(["issued", "submitted", "resolved", "expired"]) | TEXT, "subjectType": TEXT,
        "userId": st.none() | IDS, "transferId": st.none() | IDS, "flowType": st.none() | TEXT,
        "createdAt": INSTANTS, "currentRound": st.none() | st.integers(-(10**20), 10**20), "round": round_,
    }))


def money_body() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"amount": NUMBERS, "currency": TEXT})


PARTY = st.fixed_dictionaries({"email": st.none() | TEXT, "lastName": st.none() | TEXT,
                               "firstName": st.none() | TEXT, "businessName": st.none() | TEXT})
BODIES: dict[type[WireModel], st.SearchStrategy[Any]] = {
    RfiPage: st.fixed_dictionaries({
        "data": st.lists(rfi_body(), max_size=5),
        "pagination": st.fixed_dictionaries({"limit": st.integers(-5, 10**13), "offset": st.integers(-5, 10**13),
                                             "total": st.integers(-5, 10**13)}),
    }),
    BatchTransfer: st.fixed_dictionaries({"transferType": TEXT, "transferDetails": st.fixed_dictionaries({
        "id": IDS, "requestId": IDS, "createdAt": INSTANTS, "updatedAt": INSTANTS,
        "chain": st.sampled_from(["POLYGON", "SOLANA"]) | TEXT, "currency": TEXT, "contractAddress": TEXT,
        "status": TEXT, "source": st.fixed_dictionaries({"userId": IDS, "walletAddress": TEXT, "walletType": TEXT}),
        "destination": st.fixed_dictionaries({"batch": st.lists(
            st.fixed_dictionaries({"amount": NUMBERS, "userId": IDS}), max_size=8)}),
        "receipt": st.fixed_dictionaries({"transactionHash": st.none() | TEXT | st.just("0x" + "ab" * 32),
                                          "userOpHash": st.none() | TEXT}),
    })}),
    OnrampTransfer: st.fixed_dictionaries({"transferType": TEXT, "transferDetails": st.fixed_dictionaries({
        "id": IDS, "requestId": IDS, "createdAt": INSTANTS, "updatedAt": INSTANTS, "status": TEXT,
        "source": st.fixed_dictionaries({"userId": IDS, "currency": TEXT, "amount": st.none() | NUMBERS,
                                         "user": st.none() | PARTY}),
        "destination": st.fixed_dictionaries({"userId": IDS, "currency": TEXT, "chain": TEXT, "walletAddress": TEXT,
                                              "amount": st.none() | NUMBERS, "user": st.none() | PARTY}),
        "quoteInformation": st.none() | st.fixed_dictionaries({
            "sendGross": money_body(), "sendNet": money_body(), "railFee": money_body(),
            "receiveGross": money_body(), "receiveNet": money_body(), "rate": NUMBERS,
            "expiresAt": st.sampled_from(["N/A", ""]) | INSTANTS,
        }),
    })}),
    MetricResult: st.fixed_dictionaries({
        "status": TEXT,
        "data": st.lists(
            st.dictionaries(st.sampled_from(["grossVolume", "transactionCount", "avgTicket"]) | TEXT,
                            NUMBERS | TEXT | st.booleans() | st.none(), max_size=4)
            .flatmap(lambda row: (DAYS | INSTANTS).map(lambda p: {**row, "periodStart": p})),
            max_size=8,
        ),
        "metadata": st.fixed_dictionaries({
            "template": st.sampled_from(["GROSS_VOLUME", "TRANSACTION_COUNT"]) | TEXT,
            "calculationInterval": st.none() | st.sampled_from(["day", "hour", "month", "year", "week"]) | TEXT,
            "recordCount": st.none() | st.integers(-(10**20), 10**20),
            "filters": st.dictionaries(TEXT, st.fixed_dictionaries({"applied": st.none() | TEXT,
                                                                     "values": st.none() | st.lists(TEXT, max_size=8),
                                                                     "count": st.none() | st.integers(),
                                                                     "note": st.none() | TEXT}), max_size=2),
            "breakdowns": st.none() | st.lists(st.sampled_from(["transactionType", "transactionStatus"]) | TEXT,
                                               max_size=2),
        }),
    }),
}


def read(model: type[WireModel], body: Any) -> Any:
    try:
        return decode(httpx.Response(200, content=to_json(body)), model)
    except APIError:
        assume(False)  # the model refused it: a decode() matter, fuzzed above


def drawn(*things: Any) -> None:
    """Render every Text, string and table row through Rich; nothing unsafe may come out."""
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
    for thing in things:
        if isinstance(thing, (list, tuple)):
            drawn(*thing)
            continue
        cells = getattr(thing, "cells", None)
        if cells is not None:  # a TableRow
            drawn(*cells)
            continue
        shown = getattr(thing, "shown", None)
        if shown is not None:  # a FieldRow
            drawn(shown)
            continue
        text = thing if isinstance(thing, (Text, str)) else str(thing)
        plain = text.plain if isinstance(text, Text) else text
        assert not any(ch in RAW_CHARS for ch in plain), f"unsafe text drawn: {plain!r}"
        console.print(text)


@RENDER
@given(body=BODIES[RfiPage])
def test_render_fuzz_inbox_and_request_detail(body: dict[str, Any]) -> None:
    from stablepay_console.tui.formatters.lists import first_of_each
    from stablepay_console.tui.widgets.inbox.table import deadline_cell, inbox_cells, overdue_cell
    from stablepay_console.tui.widgets.rfi.items import item_row

    page = read(RfiPage, body)
    rows, _ = first_of_each(page.data, lambda r: r.id)
    for rfi in rows:
        drawn(inbox_cells(rfi, FIXED_NOW, deadline_cell(rfi, FIXED_NOW)), held_short(rfi), held_transfer(rfi))
        if rfi.deadline is not None:
            drawn(overdue_cell(rfi, FIXED_NOW))
        drawn(status_long(rfi.status), link_absence_reason(rfi))
        items, _ = first_of_each(rfi.round.items if rfi.round else [], lambda i: i.id)
        drawn([item_row(n, item) for n, item in enumerate(items, start=1)])


@RENDER
@given(body=BODIES[BatchTransfer])
def test_render_fuzz_batch(body: dict[str, Any]) -> None:
    from stablepay_console.tui.widgets.batch.details import batch_rows
    from stablepay_console.tui.widgets.batch.recipients import recipient_row, summary

    batch = read(BatchTransfer, body)
    currency = batch.details.currency
    drawn(batch_rows(batch, FIXED_NOW), summary(batch))
    drawn([recipient_row(i, r, currency) for i, r in enumerate(batch.details.destination.batch)])


@RENDER
@given(first=BODIES[OnrampTransfer], second=BODIES[OnrampTransfer])
def test_render_fuzz_quote_and_its_changes(first: dict[str, Any], second: dict[str, Any]) -> None:
    from stablepay_console.tui.widgets.quote.changes import TRACKED, change_text, compare
    from stablepay_console.tui.widgets.quote.parties import destination_rows, source_rows
    from stablepay_console.tui.widgets.quote.table import LINES, expiry_text, line_value, raw_value

    before, after = read(OnrampTransfer, first), read(OnrampTransfer, second)
    for onramp in (before, after):
        drawn(source_rows(onramp), destination_rows(onramp))
        if onramp.quote is not None:
            drawn([line_value(onramp.quote, name) for _, name in LINES], expiry_text(onramp.quote, FIXED_NOW))
            for _, name in LINES:  # what `c` copies: the value exactly as sent, digits and exponent, no currency
                copied = raw_value(onramp.quote, name)
                value = getattr(onramp.quote, name)
                sent = value.amount if isinstance(value, Money) else value
                assert not any(ch in RAW_CHARS for ch in copied), f"unsafe text copied: {copied!r}"
                assert Decimal(copied).as_tuple() == sent.as_tuple(), f"{name}: copied {copied!r}, sent {sent!r}"
    if before.quote is not None and after.quote is not None:
        changes = compare(before.quote, after.quote)
        drawn([change_text(changes[name]) for name in TRACKED])


@RENDER
@given(body=BODIES[MetricResult], width=st.integers(min_value=20, max_value=200))
def test_render_fuzz_metric_chart_legend_table_and_metadata(body: dict[str, Any], width: int) -> None:
    from stablepay_console.services.metrics.series import build_series, csv_columns, sorted_rows
    from stablepay_console.tui.formatters.metrics import nice_ticks, tick_label
    from stablepay_console.tui.widgets.metrics.chart import _segments, is_count, stacks, y_range
    from stablepay_console.tui.widgets.metrics.info import metadata_rows
    from stablepay_console.tui.widgets.metrics.legend import legend_text
    from stablepay_console.tui.widgets.metrics.table import cell, numeric_columns, total_cell

    result = read(MetricResult, body)
    series = build_series(result)
    drawn(legend_text(series, width, max_lines=6), [label for _, label in metadata_rows(result)], metadata_rows(result))
    for name in series.fields:
        lines = series.for_field(name)
        for style in ("line", "bar"):
            span = y_range(lines, style, len(series.periods))  # type: ignore[arg-type]
            ticks = nice_ticks(*span, whole=is_count(lines)) if span is not None else []
            drawn([tick_label(t, ticks[1] - ticks[0]) for t in ticks] if len(ticks) > 1 else [])
        stacks(lines, len(series.periods))
        for one in lines:
            _segments(one.values)
    columns = csv_columns(result)
    places = numeric_columns(result, columns)
    drawn([total_cell(result, name, digits) for name, digits in places.items()])
    for row in sorted_rows(result):
        drawn(cell(row.period_start), [cell(row.fields.get(c), places.get(c)) for c in columns[1:]])
