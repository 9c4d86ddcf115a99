"""The headless `export` against the hostile server: a summary on stderr, warnings, no `.part` left behind."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stablepay_console.cli.main import main
from tests.hostile_cases import CASES
from tests.hostile_payloads import Reply, json_reply, page, rfi, uid
from tests.hostile_server import HostileServer, hostile_server_fixture  # noqa: F401

KEY = "sk_test_hostile_0123456789abcdef"


def use_profile(server: HostileServer, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["profile", "add", "hostile", "--environment", "sandbox", "--base-url", server.url(case),
                 "--no-key"]) == 0
    monkeypatch.setenv("STABLEPAY_PROFILE", "hostile")
    monkeypatch.setenv("STABLEPAY_API_KEY", KEY)


def test_the_summary_and_the_warning_go_to_stderr(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_profile(hostile_server, "same-page-1000", monkeypatch)
    capsys.readouterr()
    out = tmp_path / "audit.csv"
    assert main(["export", "--output", str(out)]) == 0
    said = capsys.readouterr()
    assert "Exported 20 requests · 0 duplicates skipped · 0 pages re-read" in said.err
    assert "Warning: The server's total says 1,000 but 20 distinct requests came" in said.err
    assert f"Exported 20 requests to {out}" in said.out
    with out.open(encoding="utf-8") as f:
        assert len({row["id"] for row in csv.DictReader(f)}) == 20


def test_duplicates_are_counted(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_profile(hostile_server, "duplicate-ids", monkeypatch)
    assert main(["export", "--output", str(tmp_path / "audit.csv")]) == 0
    err = capsys.readouterr().err
    assert "Exported 3 requests · 2 duplicates skipped · 0 pages re-read" in err
    assert "total says 5 but 3 distinct requests came" in err


def test_an_honest_export_has_a_summary_and_no_warning(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_profile(hostile_server, "normal", monkeypatch)
    assert main(["export", "--output", str(tmp_path / "audit.csv")]) == 0
    err = capsys.readouterr().err
    assert "Exported 45 requests · 0 duplicates skipped · 0 pages re-read" in err
    assert "Warning" not in err


# --- a date range ------------------------------------------------------------------------------


def test_a_date_range_exports_only_its_days_and_says_it(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_profile(hostile_server, "days", monkeypatch)
    out = tmp_path / "november.csv"
    assert main(["export", "--created-after", "2026-11-10", "--created-before", "2026-11-15", "-o", str(out)]) == 0
    with out.open(encoding="utf-8") as f:
        created = [row["createdAt"] for row in csv.DictReader(f)]
    # Row n was created n half-days before 2026-11-20 09:00: n = 11 .. 20 fall in [Nov 10, Nov 15).
    assert len(created) == 10
    assert max(created) == "2026-11-14T21:00:00+00:00" and min(created) == "2026-11-10T09:00:00+00:00"
    err = capsys.readouterr().err
    assert "Exported 10 requests created from 2026-11-10 to before 2026-11-15" in err
    assert "35 outside the range left out" in err
    assert "Warning" not in err  # the server's total counts the whole list, not the range



EDGES = [
    ("2026-12-01T00:00:00Z", False),  # midnight of the day after the last day: the end is left out
    ("2026-12-01T01:00:00+01:00", False),  # the same instant, written in another offset
    ("2026-11-30T23:59:59.999000Z", True),  # the last moment of the last day
    ("2026-11-01T00:00:00Z", True),  # midnight of the first day: the start is kept
    ("2026-11-01T09:00:00+09:00", True),  # the same instant (the days are UTC days)
    ("2026-10-31T23:59:59Z", False),  # the last moment before the first day
]
"""createdAt of each request of a newest-first list, and whether `--created-after 2026-11-01
--created-before 2026-12-01` (November, half-open) exports it."""


def midnights(endpoint: str, query: dict[str, str], call: int, trickle: float) -> Reply | None:
    if endpoint != "rfis":
        return None
    limit, offset = int(query.get("limit", "20")), int(query.get("offset", "0"))
    rows = []
    for n, (created, _) in enumerate(EDGES[offset : offset + limit], start=offset):
        row = rfi(n)
        row["createdAt"] = created
        rows.append(row)
    return json_reply(page(rows, limit, offset, len(EDGES)))


def test_a_range_keeps_a_request_made_at_midnight_of_its_first_day_and_leaves_out_the_next_days(
    hostile_server: HostileServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(CASES, "midnights", midnights)
    use_profile(hostile_server, "midnights", monkeypatch)
    out = tmp_path / "november.csv"
    assert main(["export", "--created-after", "2026-11-01", "--created-before", "2026-12-01", "-o", str(out)]) == 0
    with out.open(encoding="utf-8") as f:
        exported = [row["id"] for row in csv.DictReader(f)]
    assert exported == [uid(n) for n, (_, kept) in enumerate(EDGES) if kept]
    err = capsys.readouterr().err
    assert "Exported 3 requests created from 2026-11-01 to before 2026-12-01" in err
    assert "3 outside the range left out" in err

async def test_paging_stops_once_past_the_start_of_the_range_and_says_so(tmp_path: Path) -> None:
    from datetime import datetime, timezone

    from stablepay_console.api import StablePayClient
    from stablepay_console.services.export.requests import RfiFilters, export_rfis
    from tests.test_hostile_paging import Counting

    transport = Counting("days")
    after = datetime(2026, 11, 10, tzinfo=timezone.utc)
    async with StablePayClient("http://127.0.0.1", "k", transport=transport, export_concurrency=1) as client:
        result = await export_rfis(client, tmp_path / "r.csv", "csv", RfiFilters(), page_size=10, created_after=after)
    assert result.count == 21  # n = 0 .. 20
    assert result.paging.date_range_stop
    assert "paging stopped once past 2026-11-10 (the list is newest first)" in result.summary()
    offsets = [int(r.url.params["offset"]) for r in transport.requests]
    assert max(offsets) <= 40  # the page at 30 is wholly older: at most one more page was in flight


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--created-after", "2026-13-01"], "is not a day (YYYY-MM-DD"),
        (["--created-before", "20261101"], "is not a day"),
        (["--created-after", "2026-11-15", "--created-before", "2026-11-15"], "the range is empty"),
    ],
)
def test_a_bad_range_is_refused(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["export", *args, "--output", str(tmp_path / "x.csv")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.glob("x.csv*"))


# --- SIGTERM -----------------------------------------------------------------------------------


def test_sigterm_during_an_export_leaves_no_part_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The installed command, against a server that trickles every page: SIGTERM mid-file removes the .part."""
    installed = Path(sys.executable).with_name("stablepay-console")
    out = tmp_path / "audit.csv"
    part = out.with_name(out.name + ".part")
    with HostileServer(trickle=0.5) as server:
        use_profile(server, "trickle-after-probe", monkeypatch)
        proc = subprocess.Popen([str(installed), "export", "--output", str(out)], cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not part.exists():  # the probe answered, the file is open, the first page trickles
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the export never started its file"
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, err
    assert "export cancelled, nothing was written" in err
    assert not part.exists() and not out.exists()
    assert "Traceback" not in err
