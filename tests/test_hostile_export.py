"""The headless `export` against the hostile server: a summary on stderr, warnings, no `.part` left behind."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from stablepay_console.cli.main import main
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
