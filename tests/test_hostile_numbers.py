"""Numbers and instants that parse but cannot be used: decoding keeps the model, sums stay exact, nothing crashes."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stablepay_console.api import StablePayClient
from stablepay_console.api.models import BatchTransfer, MetricResult
from stablepay_console.api.numbers import exact_sum, number_text, usable_number, usable_time, utc_key
from stablepay_console.services.metrics.series import build_series, sorted_rows, to_csv
from tests.hostile_payloads import batch, metric, raw, to_json
from tests.hostile_server import mock_transport

BATCH_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000050"
ONRAMP_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
METRIC_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000d1"
YEAR_ZERO = "0001-01-01T00:00:00+14:00"


def hostile() -> StablePayClient:
    return StablePayClient("http://127.0.0.1", "k", transport=mock_transport("extreme-numbers"))


async def test_an_unusable_created_at_keeps_the_rest_of_the_page() -> None:
    async with hostile() as client:
        page = await client.list_rfis()
    first = page.data[0]
    assert first.created_at.isoformat() == YEAR_ZERO  # kept exactly as sent
    assert not usable_time(first.created_at) and not usable_time(first.deadline)
    assert first.kind == "transaction" and first.round is not None and len(first.round.items) == 2
    assert usable_time(page.data[1].created_at)
    ordered = sorted(page.data, key=lambda r: utc_key(r.created_at))  # sorting never raises
    assert ordered[0] is first


async def test_overflowing_amounts_keep_the_batch_and_make_the_total_unknown() -> None:
    async with hostile() as client:
        transfer = await client.get_batch_transfer(BATCH_ID)
    amounts = [r.amount for r in transfer.details.destination.batch]
    assert amounts[0] == Decimal("1E+999999999") and amounts[2] == Decimal("0.01")
    assert transfer.unreadable_amounts == 2
    assert transfer.total is None
    assert transfer.details.chain == "POLYGON"


def test_batch_totals_are_exact_for_any_amount_the_model_accepts() -> None:
    transfer = BatchTransfer.model_validate_json(to_json(batch(amounts=["1e30", "0.01"])))
    assert transfer.total == Decimal("1000000000000000000000000000000.01")
    far = BatchTransfer.model_validate_json(to_json(batch(amounts=["1e999999", "1e-999999", "-1e999999"])))
    assert far.total == Decimal("1e-999999")
    assert far.unreadable_amounts == 0


async def test_quote_rates_of_1e_minus_30_then_1e30_decode() -> None:
    async with hostile() as client:
        first = await client.refresh_onramp_quote(ONRAMP_ID)
        second = await client.refresh_onramp_quote(ONRAMP_ID)
    assert first.quote is not None and second.quote is not None
    assert (first.quote.rate, second.quote.rate) == (Decimal("1e-30"), Decimal("1e30"))
    change = exact_sum([second.quote.rate, first.quote.rate.copy_negate()])
    assert change == Decimal("999999999999999999999999999999.999999999999999999999999999999")
    assert not usable_number(first.quote.send_gross.amount) and first.quote.receive_net.currency == "usdc"


async def test_metric_with_a_year_zero_bucket_and_a_1e400_value_builds_its_series_and_csv() -> None:
    async with hostile() as client:
        result = await client.run_metric(METRIC_ID)
    series = build_series(result)
    assert series.unreadable_periods == 1
    assert series.periods == [date(2026, 11, 2)] and series.series[0].total == Decimal(12)
    text = to_csv(result)
    assert YEAR_ZERO in text and "1E+400" in text  # exact, as sent
    assert next(r.period_start for r in sorted_rows(result)).isoformat() == YEAR_ZERO


def test_metric_values_past_float_and_past_decimal() -> None:
    wire = metric(value=raw("1e400"))
    wire["data"].append({"periodStart": "2026-11-03", "grossVolume": raw("1e999999999"), "transactionType": "onramp"})
    result = _exact(wire)
    series = build_series(result)
    assert series.unreadable_values == 1
    onramp = next(s for s in series.series if s.label == "onramp")
    assert onramp.values[0] == Decimal("1E+400") and onramp.values[2] is None
    assert onramp.total == Decimal("1E+400")
    assert "1E+999999999" in to_csv(result) and len(to_csv(result)) < 1000  # never a billion digits


def _exact(wire: dict[str, Any]) -> MetricResult:
    return MetricResult.model_validate(json.loads(to_json(wire), parse_float=Decimal))


def test_a_grid_that_reaches_the_end_of_the_calendar_stops_there() -> None:
    wire = metric(period="9999-12-29")
    wire["data"][1]["periodStart"] = "9999-12-30"
    wire["metadata"]["calculationInterval"] = "week"
    assert build_series(_exact(wire)).periods  # no OverflowError while stepping the grid


@pytest.mark.parametrize(
    ("value", "usable"),
    [(Decimal("1e999999"), True), (Decimal("1e1000000"), False), (Decimal("1e-999999"), True),
     (Decimal("1e-1000000"), False), (Decimal("NaN"), False), (Decimal("Infinity"), False), (7, True), (True, False),
     ("12", False), (None, False)],
)
def test_usable_number(value: object, usable: bool) -> None:
    assert usable_number(value) is usable


def test_usable_time_and_utc_key() -> None:
    aware = datetime(2026, 11, 20, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    assert usable_time(aware) and utc_key(aware) == datetime(2026, 11, 20, 7, 30, tzinfo=timezone.utc)
    assert not usable_time(datetime(2026, 1, 1)) and usable_time(date(1, 1, 1))
    late = datetime.fromisoformat("9999-12-31T23:59:59-14:00")
    assert not usable_time(late) and utc_key(late).year == 9999
    assert utc_key(date(2026, 1, 2)) == datetime(2026, 1, 2, tzinfo=timezone.utc)


def test_number_text_is_exact_and_short() -> None:
    assert number_text(Decimal("12.50")) == "12.50"
    assert number_text(Decimal("1e30")) == "1000000000000000000000000000000"
    assert number_text(Decimal("1e400")) == "1E+400"
    assert number_text(Decimal("1e-999999999")) == "1E-999999999"


DECIMALS = st.decimals(allow_nan=False, allow_infinity=False, min_value=Decimal("-1e40"), max_value=Decimal("1e40"))


@given(st.lists(DECIMALS, max_size=30))
def test_exact_sum_loses_nothing(values: list[Decimal]) -> None:
    total = exact_sum(values)
    assert total is not None
    # Subtracting every value back out with the same exactness gives zero (copy_negate: `-v` would round to 28 digits).
    assert exact_sum([total, *(v.copy_negate() for v in values)]) == 0
