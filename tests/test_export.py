"""Headless RFI export: all pages, CSV and JSON, progress, cancellation, failures, file names."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import signal
import sys
from datetime import datetime, timezone
from itertools import pairwise
from pathlib import Path

import pytest

from stablepay_console.api import ServerError, StablePayClient
from stablepay_console.api.models import Rfi
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.export.requests import (
    CSV_COLUMNS,
    ExportResult,
    ExportTerminated,
    RfiFilters,
    csv_row,
    default_export_name,
    export_rfis,
    resolve_export_path,
)
from stablepay_console.services.export.rows import json_record
from stablepay_console.storage import writing
from tests.conftest import FIXED_NOW


async def test_csv_has_every_page_in_server_order(client: StablePayClient, sandbox: Sandbox, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    path = tmp_path / "all.csv"
    result = await export_rfis(client, path, "csv", RfiFilters(), progress=lambda d, t: seen.append((d, t)))
    assert result.count == 240 and result.path == path
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r[0] for r in rows[1:]] == [r.id for r in sandbox.data.rfis]
    first = dict(zip(CSV_COLUMNS, rows[1], strict=True))
    rfi = sandbox.data.rfis[0]
    assert first["status"] == rfi.status and first["createdAt"] == rfi.created_at.isoformat()
    assert rfi.round is not None and first["itemCount"] == str(len(rfi.round.items))
    assert first["link"] == rfi.round.link
    assert seen[0] == (0, 240) and seen[-1] == (240, 240)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert not list(tmp_path.glob("*.part"))


async def test_json_respects_filters(client: StablePayClient, sandbox: Sandbox, tmp_path: Path) -> None:
    filters = RfiFilters(status="expired", kind="transaction")
    path = tmp_path / "expired.json"
    result = await export_rfis(client, path, "json", filters, page_size=7)
    data = json.loads(path.read_text(encoding="utf-8"))
    expected = [r for r in sandbox.data.rfis if r.status == "expired" and r.kind == "transaction"]
    assert result.count == len(expected) == len(data)
    assert [d["id"] for d in data] == [r.id for r in expected]
    assert Rfi.model_validate(data[0]) == expected[0]  # full fidelity, items and round included


async def test_empty_result_is_valid_json(client: StablePayClient, tmp_path: Path) -> None:
    path = tmp_path / "none.json"
    result = await export_rfis(client, path, "json", RfiFilters(user_id="00000000-0000-4000-8000-000000000000"))
    assert result.count == 0 and json.loads(path.read_text()) == []


async def test_cancel_leaves_no_file(client: StablePayClient, sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "cancelled.csv"
    sandbox.faults.latency = 0.05

    async def run() -> None:
        await export_rfis(client, path, "csv", RfiFilters(), progress=lambda d, t: task.cancel() if d else None,
                          page_size=10)

    task = asyncio.ensure_future(run())
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list(tmp_path.iterdir()) == []


async def test_failure_mid_export_leaves_no_file(client: StablePayClient, sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "broken.csv"

    def fail_from_now(done: int, total: int) -> None:
        sandbox.faults.force = "500"  # the probe answered; every page request now fails

    with pytest.raises(ServerError, match="Simulated internal failure"):
        await export_rfis(client, path, "csv", RfiFilters(), progress=fail_from_now)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("final_step", ["renameat2", "hard link"])
async def test_export_never_replaces_a_file_that_appeared(
    client: StablePayClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, final_step: str
) -> None:
    if final_step == "hard link":  # as on a kernel or C library without renameat2
        monkeypatch.setattr(writing, "_renameat2", None)
    elif sys.platform.startswith("linux"):
        assert writing._renameat2 is not None, "renameat2 was not found in the C library"
    path = tmp_path / "rfis.csv"

    def someone_saves_there(done: int, total: int) -> None:
        if done and done == total and not path.exists():  # every row written, the file not yet in place
            path.write_text("someone else's file\n", encoding="utf-8")

    with pytest.raises(FileExistsError, match="appeared while it was being written; the new file was not kept"):
        await export_rfis(client, path, "csv", RfiFilters(), progress=someone_saves_there)
    assert path.read_text(encoding="utf-8") == "someone else's file\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rfis.csv"]  # and no part file left beside it


def test_a_row_carries_its_round_whole_and_keeps_accents(sandbox: Sandbox) -> None:
    opened = next(r for r in sandbox.data.rfis if r.round is not None and any(i.required for i in r.round.items))
    wire = opened.to_wire()
    wire["round"]["items"][0]["label"] = "Relevé de compte\x1b[2J"
    wire["round"]["submittedAt"] = "2026-11-20T10:00:00Z"
    rfi = Rfi.model_validate(wire)
    assert rfi.round is not None
    row = dict(zip(CSV_COLUMNS, csv_row(rfi), strict=True))
    assert (row["roundId"], row["link"]) == (rfi.round.id, rfi.round.link)
    assert row["roundIssuedAt"] == rfi.round.issued_at.isoformat()
    assert row["roundExpiresAt"] == (rfi.round.expires_at.isoformat() if rfi.round.expires_at else "")
    assert rfi.round.submitted_at is not None and row["roundSubmittedAt"] == rfi.round.submitted_at.isoformat()
    assert row["itemCount"] == str(len(rfi.round.items))
    assert row["requiredItemCount"] == str(sum(1 for i in rfi.round.items if i.required))
    assert "Relevé de compte\\u001b[2J" in row["items"]  # accents as they are, the escape made visible
    assert json.loads(row["items"])[0]["label"] == "Relevé de compte\x1b[2J"
    assert "Relevé de compte\\u001b[2J" in json_record(rfi)
    closed = next(r for r in sandbox.data.rfis if r.round is None)
    row = dict(zip(CSV_COLUMNS, csv_row(closed), strict=True))
    assert [row[c] for c in CSV_COLUMNS[9:16]] == [""] * 7 and row["items"] == "[]"


def test_default_name_names_the_filters() -> None:
    assert default_export_name(RfiFilters(), "csv", FIXED_NOW) == "rfis-all-20261120-093000.csv"
    named = RfiFilters(status="issued", kind="transaction", user_id="0cb1e29c-658c-4a14-95e6-0af593bd04cf")
    assert default_export_name(named, "json", FIXED_NOW) == "rfis-issued-transaction-user0cb1e29c-20261120-093000.json"


def test_the_default_name_is_safe_for_any_user_id_and_keeps_its_capitals() -> None:
    odd = RfiFilters(user_id="AB/../x:y")
    assert default_export_name(odd, "csv", FIXED_NOW) == "rfis-userAB____x_-20261120-093000.csv"


def test_resolve_export_path(tmp_path: Path) -> None:
    default = "rfis-all-20261120-093000.csv"
    assert resolve_export_path("", "csv", default, tmp_path) == tmp_path / default
    assert resolve_export_path("audit", "csv", default, tmp_path) == tmp_path / "audit.csv"
    assert resolve_export_path(str(tmp_path), "csv", default, Path("/")) == tmp_path / default
    assert resolve_export_path("q3.txt", "json", default, tmp_path) == tmp_path / "q3.txt"
    (tmp_path / "taken.csv").write_text("x")
    with pytest.raises(ValueError, match="already exists"):
        resolve_export_path("taken.csv", "csv", default, tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        resolve_export_path("nowhere/out.csv", "csv", default, tmp_path)
    with pytest.raises(ValueError, match="Unknown export format"):
        resolve_export_path("x", "xlsx", default, tmp_path)


def test_csv_cells_never_run_as_formulas(sandbox: Sandbox) -> None:
    rfi = sandbox.data.rfis[0].model_copy(update={"subject_type": "=HYPERLINK(\"http://x\")", "kind": "+1"})
    row = dict(zip(CSV_COLUMNS, csv_row(rfi), strict=True))
    assert row["subjectType"] == "'=HYPERLINK(\"http://x\")"
    assert row["kind"] == "'+1"
    assert row["id"] == rfi.id


# --- a server that lies about paging ------------------------------------------------------------


async def hostile_export(case: str, tmp_path: Path, page_size: int = 20) -> ExportResult:
    from tests.hostile_server import mock_transport

    async with StablePayClient("http://127.0.0.1", "k", transport=mock_transport(case)) as hostile:
        return await export_rfis(hostile, tmp_path / f"{case}.csv", "csv", RfiFilters(), page_size=page_size)


def written_ids(result: ExportResult) -> list[str]:
    with result.path.open(encoding="utf-8") as f:
        return [row["id"] for row in csv.DictReader(f)]


async def test_an_honest_export_says_so_and_warns_of_nothing(tmp_path: Path) -> None:
    result = await hostile_export("normal", tmp_path)
    assert result.summary() == "Exported 45 requests · 0 duplicates skipped · 0 pages re-read"
    assert result.warning() is None
    assert len(written_ids(result)) == 45


@pytest.mark.parametrize(("case", "total"), [("same-page-1000", "1,000"), ("same-page-1e9", "1,000,000,000")])
async def test_the_same_page_served_again_gives_its_distinct_rows_and_a_warning(
    case: str, total: str, tmp_path: Path
) -> None:
    result = await hostile_export(case, tmp_path)
    ids = written_ids(result)
    assert result.count == len(ids) == len(set(ids)) == 20
    assert result.duplicates == 20
    warning = result.warning()
    assert warning is not None and f"total says {total} but 20 distinct requests came" in warning
    assert "brought nothing new" in warning


async def test_a_total_of_ten_trillion_ends_with_a_warning_not_a_memory_error(tmp_path: Path) -> None:
    result = await hostile_export("total-huge", tmp_path)
    assert result.count == 45
    assert "10,000,000,000,000" in (result.warning() or "")


async def test_duplicates_and_shifted_lists_are_counted_in_the_summary(tmp_path: Path) -> None:
    overlapping = await hostile_export("overlapping-pages", tmp_path)
    assert overlapping.summary() == "Exported 45 requests · 1 duplicate skipped · 0 pages re-read"
    assert overlapping.warning() is None
    shrinking = await hostile_export("shrinking", tmp_path)
    assert len(set(written_ids(shrinking))) == 45 == shrinking.count
    assert "1 page re-read" in shrinking.summary()
    growing = await hostile_export("growing", tmp_path)
    ids = written_ids(growing)
    assert len(ids) == len(set(ids)) == growing.count  # never 248 rows for 246 requests


# --- what an export says while it runs and when it ends -----------------------------------------


async def test_progress_counts_the_filtered_list_from_the_start(
    client: StablePayClient, sandbox: Sandbox, tmp_path: Path
) -> None:
    # Each of the three filters narrows this list: a probe that dropped one would count another list's total.
    user = "9be4bcfc-49b6-4a08-b2e6-cc3ababced20"
    filters = RfiFilters(status="issued", kind="transaction", user_id=user)
    matching = [r for r in sandbox.data.rfis if (r.status, r.kind, r.user_id) == ("issued", "transaction", user)]
    assert len(matching) == 2
    assert len([r for r in sandbox.data.rfis if r.kind == "transaction" and r.user_id == user]) > 2
    assert len([r for r in sandbox.data.rfis if r.status == "issued" and r.user_id == user]) > 2
    seen: list[tuple[int, int]] = []
    result = await export_rfis(client, tmp_path / "mine.csv", "csv", filters, progress=lambda d, t: seen.append((d, t)))
    assert result.count == 2
    assert seen[0] == (0, 2) and seen[-1] == (2, 2)
    assert {total for _, total in seen} == {2}, seen


async def test_progress_is_reported_every_twenty_requests_not_each_one(
    client: StablePayClient, tmp_path: Path
) -> None:
    seen: list[tuple[int, int]] = []
    result = await export_rfis(client, tmp_path / "all.csv", "csv", RfiFilters(),
                               progress=lambda d, t: seen.append((d, t)))
    assert result.count == 240
    done = [d for d, _ in seen]
    assert done[0] == 0 and done[-1] == 240
    assert max(b - a for a, b in pairwise(done)) <= 20, done  # never more than 20 rows without a word
    assert len(seen) <= 240 // 20 + 3, done  # and not a message to the screen for every row


async def days_export(tmp_path: Path, name: str, span: dict[str, datetime]) -> ExportResult:
    """The hostile server's `days` list (45 requests, the n-th created n half-days before 2026-11-20 09:00)."""
    from tests.hostile_server import mock_transport

    async with StablePayClient("http://127.0.0.1", "k", transport=mock_transport("days")) as hostile:
        return await export_rfis(hostile, tmp_path / name, "csv", RfiFilters(), page_size=10,
                                 created_after=span.get("created_after"), created_before=span.get("created_before"))


@pytest.mark.parametrize(("span", "count", "summary"), [
    ({"created_before": datetime(2026, 11, 15, 9, 0, tzinfo=timezone.utc)}, 34,
     "Exported 34 requests created before 2026-11-15 09:00 UTC · 0 duplicates skipped · 0 pages re-read · "
     "11 outside the range left out"),
    ({"created_after": datetime(2026, 10, 1, tzinfo=timezone.utc)}, 45,
     "Exported 45 requests created on or after 2026-10-01 · 0 duplicates skipped · 0 pages re-read · "
     "0 outside the range left out"),
    ({"created_after": datetime(2026, 11, 19, 21, 0, tzinfo=timezone.utc)}, 2,
     "Exported 2 requests created on or after 2026-11-19 21:00 UTC · 0 duplicates skipped · 0 pages re-read · "
     "18 outside the range left out · paging stopped once past 2026-11-19 21:00 UTC (the list is newest first)"),
])
async def test_a_date_range_summary_names_its_ends_and_counts_what_it_left_out(
    tmp_path: Path, span: dict[str, datetime], count: int, summary: str
) -> None:
    result = await days_export(tmp_path, "range.csv", span)
    assert result.count == count == len(written_ids(result))
    assert result.summary() == summary


def test_one_request_is_one_request_in_the_summary(tmp_path: Path) -> None:
    assert ExportResult(tmp_path / "one.csv", 1, "csv").summary() == (
        "Exported 1 request · 0 duplicates skipped · 0 pages re-read")


async def test_an_export_that_cannot_write_its_file_names_the_export(client: StablePayClient, tmp_path: Path) -> None:
    target = tmp_path / "gone" / "rfis.csv"  # its folder was removed after it was chosen
    with pytest.raises(writing.NotWritten, match=r"^Could not write the export to .*rfis\.csv: no such file"):
        await export_rfis(client, target, "csv", RfiFilters())
    assert list(tmp_path.iterdir()) == []


async def test_an_empty_range_or_an_unknown_format_is_refused_before_anything_is_asked(tmp_path: Path) -> None:
    from tests.test_hostile_paging import Counting

    transport = Counting("days")
    same = datetime(2026, 11, 15, tzinfo=timezone.utc)
    async with StablePayClient("http://127.0.0.1", "k", transport=transport) as counted:
        with pytest.raises(ValueError, match=r"^The date range is empty: the start must come before the end\.$"):
            await export_rfis(counted, tmp_path / "r.csv", "csv", RfiFilters(), created_after=same, created_before=same)
        with pytest.raises(ValueError, match=r"^Unknown export format 'xlsx'; choose one of: csv, json\.$"):
            await export_rfis(counted, tmp_path / "r.xlsx", "xlsx", RfiFilters())
    assert transport.requests == [] and list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=r"^Unknown export format 'xlsx'; choose one of: csv, json\.$"):
        resolve_export_path("r", "xlsx", "rfis.csv", tmp_path)


def test_a_typed_path_is_read_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_export_path("audit", "csv", "rfis.csv") == tmp_path / "audit.csv"
    assert resolve_export_path("", "json", "rfis.json") == tmp_path / "rfis.json"


def test_a_blank_name_in_a_folder_that_is_gone_is_refused(tmp_path: Path) -> None:
    gone = tmp_path / "gone"  # the dialog's folder, removed since it was opened
    with pytest.raises(ValueError, match=r"^The folder .*gone does not exist\.$"):
        resolve_export_path("", "csv", "rfis.csv", gone)


def test_a_path_the_file_system_cannot_take_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^This path cannot be used: File name too long\.$"):
        resolve_export_path("a" * 300, "csv", "rfis.csv", tmp_path)


@pytest.mark.parametrize("asked", [True, False])
async def test_sigterm_cancels_an_export_only_when_asked(client: StablePayClient, tmp_path: Path, asked: bool) -> None:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    path = tmp_path / "rfis.csv"
    handled: list[bool] = []

    def terminate_midway(done: int, total: int) -> None:
        if done and not handled:
            handled.append(signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL)
            if asked and handled[0]:  # never sent where SIGTERM would end the test run, or interrupt it
                os.kill(os.getpid(), signal.SIGTERM)

    if asked:
        with pytest.raises(ExportTerminated):
            await export_rfis(client, path, "csv", RfiFilters(), progress=terminate_midway, stop_on_sigterm=True)
        assert handled == [True] and list(tmp_path.iterdir()) == []
    else:  # a script that calls the library keeps its own SIGTERM
        assert (await export_rfis(client, path, "csv", RfiFilters(), progress=terminate_midway)).count == 240
        assert handled == [False]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
