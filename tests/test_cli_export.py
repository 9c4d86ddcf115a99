"""`stablepay-console export`: the audit export without opening the console."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from stablepay_console.cli.main import main
from stablepay_console.sandbox import Sandbox


def expected_ids(status: str | None = None) -> list[str]:
    # The command builds the default embedded sandbox: same seed, same requests.
    rows = Sandbox().data.rfis.rows
    return [json.loads(r.wire)["id"] for r in rows if status is None or r.status == status]


def test_exports_every_page_of_the_filtered_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "expired.csv"
    assert main(["export", "--status", "expired", "--output", str(out)]) == 0
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == expected_ids("expired")
    assert {r["status"] for r in rows} == {"expired"}
    assert f"Exported {len(rows)} requests to {out}" in capsys.readouterr().out


def test_json_into_a_folder_gets_a_dated_name(tmp_path: Path) -> None:
    assert main(["export", "--format", "json", "--kind", "onboarding", "--output", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("rfis-onboarding-*.json")
    records = json.loads(written.read_text(encoding="utf-8"))
    assert [r["id"] for r in records] == [i for i, k in zip(expected_ids(), _kinds(), strict=True) if k == "onboarding"]


def _kinds() -> list[str]:
    return [r.kind for r in Sandbox().data.rfis.rows]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user-id", "not-a-uuid"], "must be a UUID"),
        (["--user-id", " "], "is empty"),
        (["--status", "pending"], "invalid choice"),
        (["--format", "xml"], "invalid choice"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_sent(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["export", *args, "--output", str(tmp_path / "x.csv")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "audit.csv"
    out.write_text("keep me", encoding="utf-8")
    assert main(["export", "--output", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep me"
