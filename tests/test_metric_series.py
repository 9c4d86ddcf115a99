"""Metric results as sorted, gap-keeping series and as exact CSV (headless)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from stablepay_console.api import StablePayClient
from stablepay_console.api.models import MetricResult
from stablepay_console.sandbox.data import (
    METRIC_DAILY_VOLUME_ID,
    METRIC_EMPTY_ID,
    METRIC_HOURLY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
)
from stablepay_console.services.metrics.series import OTHER, build_series, period_label, template_name, to_csv


def result_of(rows: list[dict[str, Any]], interval: str | None = "day", breakdowns: Any = None) -> MetricResult:
    """A MetricResult read the way the client reads the wire (JSON numbers as exact Decimals)."""
    body = {
        "status": "success",
        "data": rows,
        "metadata": {"template": "GROSS_VOLUME", "calculationInterval": interval, "breakdowns": breakdowns},
    }
    return MetricResult.model_validate(json.loads(json.dumps(body), parse_float=Decimal))


async def test_daily_periods_sorted_and_left_out_days_stay_missing(client: StablePayClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    result = await client.run_metric(METRIC_DAILY_VOLUME_ID)
    sent = [row.period_start for row in result.data]
    assert sent != sorted(sent), "the sandbox shuffles its rows; this test needs that"
    series = build_series(result)

    assert series.periods == sorted(series.periods)
    assert series.periods[0] == date(2026, 10, 22) and series.periods[-1] == date(2026, 11, 20)
    assert len(series.periods) == 30 and series.gridded
    assert series.fields == ["grossVolume", "transactionCount"]
    assert [s.label for s in series.series] == ["grossVolume", "transactionCount"]
    assert series.missing and len(series.missing) == 30 - len(result.data)
    volume = series.series[0]
    by_day = {row.period_start: row.numbers["grossVolume"] for row in result.data}
    for period, value in zip(series.periods, volume.values, strict=True):
        assert value == by_day.get(period)  # None exactly where the server sent nothing, never 0
    assert all(volume.values[series.periods.index(p)] is None for p in series.missing)
    assert volume.total == sum(by_day.values(), Decimal(0))


async def test_monthly_and_hourly_buckets(client: StablePayClient) -> None:
    monthly = build_series(await client.run_metric(METRIC_MONTHLY_VOLUME_ID))
    assert monthly.gridded and not monthly.missing
    assert [p.month for p in monthly.periods] == [3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert period_label(monthly.periods[0], monthly.interval) == "Mar 2026"

    hourly = build_series(await client.run_metric(METRIC_HOURLY_VOLUME_ID))
    assert hourly.has_time and hourly.gridded and len(hourly.periods) == 24
    assert all(isinstance(p, datetime) for p in hourly.periods)  # even the midnight bucket
    assert hourly.periods[-1] == datetime(2026, 11, 20, 0, 0, tzinfo=timezone.utc)
    assert all(b - a == timedelta(hours=1) for a, b in zip(hourly.periods, hourly.periods[1:], strict=False))
    assert period_label(hourly.periods[0], hourly.interval) == "19 Nov 01:00"


async def test_breakdown_series_one_per_combination_largest_first(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_TX_COUNT_ID)
    series = build_series(result)
    assert series.dimensions == ["transactionType", "transactionStatus"]
    assert series.fields == ["transactionCount"]
    assert len(series.series) == 6 and OTHER not in [s.label for s in series.series]
    totals = [s.total for s in series.series]
    assert totals == sorted(totals, reverse=True)
    completed = next(s for s in series.series if s.combination == ("onramp", "COMPLETED"))
    expected = sum(
        (r.numbers["transactionCount"] for r in result.data if r.dimensions == {
            "transactionType": "onramp", "transactionStatus": "COMPLETED"}),
        Decimal(0),
    )
    assert completed.total == expected and completed.label == "onramp · COMPLETED"


def test_more_than_ten_combinations_fold_into_other() -> None:
    rows: list[dict[str, Any]] = []
    for n in range(14):
        rows.append({"periodStart": "2026-01-01", "userId": f"user-{n:02d}", "count": n + 1})
        if n != 0:  # user-00 is absent on the second day
            rows.append({"periodStart": "2026-01-02", "userId": f"user-{n:02d}", "count": 100 * (n + 1)})
    series = build_series(result_of(rows, breakdowns=["userId"]))
    labels = [s.label for s in series.series]
    assert len(labels) == 11 and labels[-1] == OTHER
    assert labels[:3] == ["user-13", "user-12", "user-11"]
    other = series.series[-1]
    assert other.folded == 4
    # users 00..03 fold: day 1 = 1+2+3+4, day 2 = 200+300+400 (user-00 sent nothing, not zero)
    assert other.values == [Decimal(10), Decimal(900)]
    assert sum((s.total for s in series.series), Decimal(0)) == sum((Decimal(r["count"]) for r in rows), Decimal(0))


def test_zero_is_kept_and_missing_is_none() -> None:
    rows = [
        {"periodStart": "2026-01-03", "v": 0},
        {"periodStart": "2026-01-01", "v": 5},
        {"periodStart": "2026-01-05", "v": 2},
    ]
    series = build_series(result_of(rows))
    assert series.periods == [date(2026, 1, d) for d in range(1, 6)]
    assert series.series[0].values == [Decimal(5), None, Decimal(0), None, Decimal(2)]
    assert series.missing == [date(2026, 1, 2), date(2026, 1, 4)]


def test_unknown_interval_keeps_only_the_periods_sent() -> None:
    rows = [{"periodStart": "2026-01-09", "v": 1}, {"periodStart": "2026-01-01", "v": 2}]
    series = build_series(result_of(rows, interval="fortnight-ish"))
    assert series.periods == [date(2026, 1, 1), date(2026, 1, 9)] and not series.gridded
    assert series.series[0].values == [Decimal(2), Decimal(1)]


def test_empty_result_and_rows_without_numbers() -> None:
    empty = build_series(result_of([]))
    assert empty.is_empty and empty.periods == [] and empty.fields == []
    textual = build_series(result_of([{"periodStart": "2026-01-01", "note": "n/a", "flag": True}]))
    assert textual.is_empty and textual.fields == [] and textual.dimensions == ["note"]


def test_unknown_numeric_fields_and_template_are_kept() -> None:
    rows = [{"periodStart": "2026-01-01", "mysteryRatio": 0.125, "zz": 3}]
    result = result_of(rows)
    assert build_series(result).fields == ["mysteryRatio", "zz"]
    assert template_name("SOMETHING_NEW") == "SOMETHING_NEW"
    assert template_name("GROSS_VOLUME") == "Gross volume (GROSS_VOLUME)"


def test_date_time_buckets_with_offsets_sort_by_instant() -> None:
    rows = [
        {"periodStart": "2026-01-01T02:00:00+02:00", "v": 1},  # 00:00 UTC
        {"periodStart": "2026-01-01T00:00:00Z", "v": 2},  # the same instant, another spelling
        {"periodStart": "2025-12-31T23:00:00Z", "v": 3},
    ]
    series = build_series(result_of(rows, interval="hour"))
    assert len(series.periods) == 2
    assert series.series[0].values == [Decimal(3), Decimal(3)]


async def test_csv_is_exact_sorted_and_complete(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_TX_COUNT_ID)
    lines = list(csv.reader(io.StringIO(to_csv(result))))
    assert lines[0] == ["periodStart", "transactionType", "transactionStatus", "transactionCount"]
    assert len(lines) == 1 + len(result.data)
    assert [line[0] for line in lines[1:]] == sorted(line[0] for line in lines[1:])

    wire = """{"status": "success", "metadata": {"template": "X"}, "data": [
        {"periodStart": "2026-01-02", "grossVolume": 12345678901234567.89, "fee": 1e-7},
        {"periodStart": "2026-01-01", "grossVolume": 0.10, "label": "=HYPERLINK(1)"}]}"""
    exact = MetricResult.model_validate(json.loads(wire, parse_float=Decimal))  # as the client reads it
    rows = list(csv.reader(io.StringIO(to_csv(exact))))
    assert rows[0] == ["periodStart", "label", "grossVolume", "fee"]
    assert rows[1] == ["2026-01-01", "'=HYPERLINK(1)", "0.10", ""]
    assert rows[2] == ["2026-01-02", "", "12345678901234567.89", "0.0000001"]


async def test_empty_csv_has_the_header_only(client: StablePayClient) -> None:
    result = await client.run_metric(METRIC_EMPTY_ID)
    assert to_csv(result) == "periodStart\n"
