"""Every CSV the project writes: every cell (header row included) through one guard; CSV and JSON safe to `cat`."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest

from stablepay_console.api import StablePayClient
from stablepay_console.api.models import MetricResult
from stablepay_console.services.export.csv_guard import FORMULA_START, guard_cell, guard_text
from stablepay_console.services.export.requests import CSV_COLUMNS, RfiFilters, export_rfis
from stablepay_console.services.metrics.series import to_csv
from tests.hostile_payloads import HOSTILE, RAW_CHARS, metric, to_json
from tests.hostile_server import mock_transport

FORMULAS = ["=HYPERLINK(\"https://evil.example\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1", "\r=1",
            "  =1+1", "\uff1d1+1", "\uff20SUM(A1)"]


def is_safe_cell(cell: str) -> bool:
    stripped = cell.lstrip(" ")
    return not (stripped and stripped[0] in FORMULA_START) and not set(cell) & RAW_CHARS


@pytest.mark.parametrize("text", FORMULAS)
def test_formulas_are_neutralised(text: str) -> None:
    shown = guard_text(text)
    assert is_safe_cell(shown)
    # Either quoted with an apostrophe, or (tab, carriage return) shown as a visible escape first.
    assert shown.startswith(("'", "\\t", "\\r"))


def test_plain_text_numbers_and_times_are_written_as_they_are() -> None:
    assert guard_text("Proof of address") == "Proof of address"
    assert guard_cell(Decimal("-12.50")) == "-12.50"  # a number is not a formula
    assert guard_cell(Decimal("1e400")) == "1E+400"
    assert guard_cell(7) == "7" and guard_cell(True) == "true" and guard_cell(None) == ""
    assert guard_cell(False) == "false"
    assert guard_text("X-ray of the ID") == "X-ray of the ID"  # only leading spaces are looked past
    assert guard_text("-12") == "'-12"  # but text that starts like one is guarded


def test_escapes_are_shown_escaped_in_a_cell() -> None:
    shown = guard_text(HOSTILE)
    assert not set(shown) & RAW_CHARS and "\\x1b]52;" in shown


def test_metric_csv_guards_the_header_built_from_server_field_names() -> None:
    wire = metric(HOSTILE)
    wire["data"][0]["=HYPERLINK(\"https://evil.example\")"] = Decimal(5)
    wire["data"][0]["-sum"] = "@cmd"
    result = MetricResult.model_validate(json.loads(to_json({**wire, "data": [
        {k: (str(v) if isinstance(v, Decimal) else v) for k, v in row.items()} for row in wire["data"]]})))
    text = to_csv(result)
    assert not set(text) & RAW_CHARS
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert "'=HYPERLINK(\"https://evil.example\")" in header and "'-sum" in header
    for row in rows:
        assert all(is_safe_cell(cell) for cell in row), row


async def export_of(case: str, fmt: str, tmp_path: Path) -> Path:
    async with StablePayClient("http://127.0.0.1", "k", transport=mock_transport(case)) as client:
        result = await export_rfis(client, tmp_path / f"{case}.{fmt}", fmt, RfiFilters())
    return result.path


async def test_the_rfi_csv_of_a_hostile_server_is_safe_to_cat_and_to_open(tmp_path: Path) -> None:
    path = await export_of("escapes", "csv", tmp_path)
    text = path.read_text(encoding="utf-8")
    assert not set(text) & RAW_CHARS
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 4
    for row in rows:
        assert all(is_safe_cell(cell) for cell in row), row
    items = json.loads(rows[1][CSV_COLUMNS.index("items")])
    assert [i["label"] for i in items] == ["Item 0" + HOSTILE, "Item 1" + HOSTILE]  # exact once decoded


async def test_the_json_export_escapes_everything_and_keeps_the_exact_text(tmp_path: Path) -> None:
    path = await export_of("escapes", "json", tmp_path)
    text = path.read_text(encoding="utf-8")
    assert not set(text) & RAW_CHARS
    records = json.loads(text)
    assert records[0]["kind"] == "transaction" + HOSTILE
    assert records[0]["round"]["items"][1]["detail"] == "Detail 1" + HOSTILE


async def test_csv_and_json_carry_the_rounds_items(tmp_path: Path) -> None:
    csv_path = await export_of("big-round", "csv", tmp_path)
    previous = csv.field_size_limit(1 << 24)  # 10,000 items make one long cell
    try:
        with csv_path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    finally:
        csv.field_size_limit(previous)
    assert len(rows) == 2  # one row per request: the items are in one column
    items = json.loads(rows[0]["items"])
    assert len(items) == int(rows[0]["itemCount"]) == 10_000
    assert set(items[0]) == {"id", "kind", "label", "docType", "detail", "required"}
    json_path = await export_of("big-round", "json", tmp_path)
    assert len(json.loads(json_path.read_text(encoding="utf-8"))[0]["round"]["items"]) == 10_000
