"""The simulated production's state file, part by part (profiles/simulated.py): what it is read from and written as,
which keys it takes back, and what a disk that refuses it costs (the rehearsal, for this run only)."""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from stablepay_console.profiles.age import DUE_MONTHS, add_months
from stablepay_console.profiles.keys import PENDING, entry_name
from stablepay_console.profiles.simulated import NOTE, SimulatedVault

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
KEY = "sk_production_" + "a" * 32


def state(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "simulated-production.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_first_key_is_the_simulators_own_about_to_be_due(tmp_path: Path) -> None:
    vault = SimulatedVault(path=tmp_path / "simulated-production.json")
    vault.start(NOW)
    key = vault.get(vault.kept)
    assert key is not None and re.fullmatch(r"sk_production_[0-9a-f]{32}", key.reveal())
    assert vault.since[vault.kept] == add_months(NOW, -DUE_MONTHS) - timedelta(days=3)


def test_the_file_is_written_whole_with_its_note_first_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "simulated-production.json"
    vault = SimulatedVault(path=path)
    vault.start(NOW)
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True)
    assert data["note"] == NOTE and list(data) == sorted(data)
    [(made, label)] = data["simulator_keys"].items()
    assert label == "console demo key" and data["console"]["keys"] == {"current": made}
    again = SimulatedVault(path=path)
    assert again.get(again.kept) is not None and again.get(again.kept).reveal() == made  # type: ignore[union-attr]
    assert again.since[again.kept] == vault.since[vault.kept]


def test_a_file_of_one_mebibyte_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    body = json.dumps({"simulator_keys": {KEY: "kept"}, "pad": ""})
    path = tmp_path / "simulated-production.json"
    path.write_text(body.replace('"pad": ""', '"pad": "' + "x" * ((1 << 20) - len(body)) + '"'), encoding="utf-8")
    assert path.stat().st_size == 1 << 20
    assert SimulatedVault(path=path).simulator_keys() == {KEY: "kept"}
    path.write_text(path.read_text(encoding="utf-8").replace('"pad": "', '"pad": "x'), encoding="utf-8")
    assert path.stat().st_size == (1 << 20) + 1
    assert SimulatedVault(path=path).simulator_keys() == {}


def test_only_valid_keys_with_a_text_name_come_back_and_a_name_is_cut_at_80(tmp_path: Path) -> None:
    path = state(tmp_path, {"simulator_keys": {KEY: "n" * 100, "has a space": "bad", "sk_production_b": 7}})
    assert SimulatedVault(path=path).simulator_keys() == {KEY: "n" * 80}


def test_the_kept_keys_and_date_come_back_only_when_valid_and_dated_with_a_zone(tmp_path: Path) -> None:
    path = state(tmp_path, {"console": {"keys": {"current": KEY, "pending": "has a space"},
                                        "key_since": "2026-01-02T03:04:05"}})
    vault = SimulatedVault(path=path)
    assert vault.get(vault.kept) is not None
    assert vault.get(entry_name(vault.kept, PENDING)) is None, "the invalid pending key is not kept"
    assert vault.kept not in vault.since, "a date with no zone is not read as one"
    path = state(tmp_path, {"console": {"keys": "not a mapping", "key_since": "2026-01-02T03:04:05+00:00"}})
    vault = SimulatedVault(path=path)
    assert vault.get(vault.kept) is None
    assert vault.since[vault.kept] == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_nothing_is_written_while_the_file_is_read_back(tmp_path: Path) -> None:
    path = state(tmp_path, {"console": {"keys": {"current": KEY}}})
    before = path.read_text(encoding="utf-8")
    SimulatedVault(path=path)
    assert path.read_text(encoding="utf-8") == before


def test_a_disk_that_refuses_the_file_leaves_the_rehearsal_for_this_run_only(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    vault = SimulatedVault(path=tmp_path / "a-file" / "simulated-production.json")  # its folder is a file
    with caplog.at_level(logging.WARNING, logger="stablepay_console.profiles.simulated"):
        vault.start(NOW)
    assert vault.get(vault.kept) is not None
    said = {r.getMessage() for r in caplog.records if r.name == "stablepay_console.profiles.simulated"}
    assert len(said) == 1, said  # each write that failed, said the same way
    [message] = said
    assert message.startswith(f"Could not write the rehearsal's keys to {vault.path}: ")
    assert message.endswith(". The rehearsal's keys last for this run only.")


@pytest.mark.parametrize("data", [[1, 2], 7, "text", None])
def test_a_state_file_that_is_not_an_object_is_read_as_empty(tmp_path: Path, data: object) -> None:
    vault = SimulatedVault(path=state(tmp_path, data))
    assert vault.simulator_keys() == {} and vault.get(vault.kept) is None
