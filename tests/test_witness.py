"""The audit chain's witness (storage/witness.py): the last head this machine saw of each record. A record that now
holds fewer entries, or another hash at the entry seen, is told with what was seen and when; the witness moves on
only over a good chain; a witness file that cannot be read is said with its path and never replaced."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from stablepay_console.storage.record_types import AuditHead
from stablepay_console.storage.witness import Seen, Witness, WitnessCheck, compare
from tests.small_disk import SmallDisk

H6 = "a" * 64
SEEN = Seen(6, H6, "2026-11-20T09:30:15.123456+00:00")


def hashes(**by_seq: str) -> Callable[[int], str | None]:
    return lambda seq: by_seq.get(f"e{seq}")


def test_a_record_never_seen_or_seen_empty_is_no_problem() -> None:
    assert compare(None, AuditHead(3, "b" * 64), hashes()) == WitnessCheck(None)
    empty = Seen(0, "", "x")
    assert compare(empty, None, hashes()).ok and compare(empty, None, hashes()).seen == empty
    first = WitnessCheck(None)
    assert first.describe() == ("This machine had not seen this record's audit log before; it keeps the head it sees "
                                "now.")
    assert first.to_json() == {"ok": True, "seen": None, "problem": None}


def test_a_record_holding_the_entry_seen_with_its_hash_is_intact() -> None:
    for head in (AuditHead(6, H6), AuditHead(9, "c" * 64)):
        found = compare(SEEN, head, hashes(e6=H6))
        assert found.ok and found.seen == SEEN, head
    assert found.describe() == ("The audit log still holds entry 6 as this machine saw it on 2026-11-20 09:30 UTC, "
                                "and nothing before it was dropped.")
    assert found.to_json() == {"ok": True, "seen": {"count": 6, "hash": H6, "at": SEEN.at}, "problem": None}


def test_a_record_holding_fewer_entries_than_were_seen_is_told() -> None:
    for head, holds in ((AuditHead(5, H6), 5), (None, 0)):
        found = compare(SEEN, head, hashes(e6=H6))
        assert not found.ok and found.seen == SEEN
        assert found.problem == (
            f"The audit log holds {holds} entries, but this machine saw 6 on 2026-11-20 09:30 UTC (entry 6, hash "
            "aaaaaaaaaaaa…): entries were removed, or an older copy of the record was restored.")
        assert found.describe() == found.problem and found.to_json()["problem"] == found.problem


def test_an_entry_seen_with_another_hash_now_is_told() -> None:
    found = compare(SEEN, AuditHead(6, "d" * 64), hashes(e6="d" * 64))
    assert found.problem == (
        "Entry 6 of the audit log no longer has the hash this machine saw on 2026-11-20 09:30 UTC (aaaaaaaaaaaa…, "
        "now dddddddddddd…): the log up to it was rewritten and re-hashed.")
    assert "now missing…" in compare(SEEN, AuditHead(7, "d" * 64), hashes()).problem
    assert "now \\x1b[31mxxxx…)" in compare(SEEN, AuditHead(7, "d" * 64), hashes(e6="\x1b[31m" + "x" * 70)).problem


def test_the_witness_moves_on_over_a_good_chain_only(tmp_path: Path) -> None:
    witness = Witness(tmp_path / "chain-witness.json")
    asked: list[bool] = []

    def chain(ok: bool):  # type: ignore[no-untyped-def]
        def verify() -> bool:
            asked.append(ok)
            return ok
        return verify

    assert witness.look("team", AuditHead(6, H6), hashes(e6=H6), chain(False)).ok
    assert witness.seen("team") is None and not (tmp_path / "chain-witness.json").exists()
    assert witness.look("team", AuditHead(6, H6), hashes(e6=H6), chain(True)).ok
    assert witness.seen("team") == Seen(6, H6, witness.seen("team").at)  # type: ignore[union-attr]
    asked.clear()
    assert witness.look("team", AuditHead(6, H6), hashes(e6=H6), chain(True)).ok
    assert asked == [], "the chain is verified only when the log moved on"
    bad = witness.look("team", AuditHead(4, H6), hashes(), chain(True))
    assert not bad.ok and witness.seen("team").count == 6  # type: ignore[union-attr]
    assert witness.look("team", None, hashes(), chain(True)).problem.startswith("The audit log holds 0 entries")
    kept = json.loads((tmp_path / "chain-witness.json").read_text(encoding="utf-8"))
    assert set(kept) == {"team"} and kept["team"]["count"] == 6 and kept["team"]["hash"] == H6
    witness.keep("other", None)
    assert set(json.loads((tmp_path / "chain-witness.json").read_text(encoding="utf-8"))) == {"team"}
    witness.keep("other", AuditHead(2, "e" * 64))
    witness.forget("team")
    witness.forget("nobody")
    assert set(json.loads((tmp_path / "chain-witness.json").read_text(encoding="utf-8"))) == {"other"}


@pytest.mark.parametrize("text", ["not json", "[1, 2]", "[" * 10 + "]" * 10, "\"text\""])
def test_a_witness_file_that_cannot_be_read_is_said_and_left_as_it_is(tmp_path: Path, text: str) -> None:
    path = tmp_path / "chain-witness.json"
    path.write_text(text, encoding="utf-8")
    found = Witness(path).look("team", AuditHead(6, H6), hashes(e6=H6), lambda: True)
    assert not found.ok and found.seen is None
    assert found.problem == (
        f"This machine's witness of the audit log, {path}, cannot be read (it is not the JSON this console writes); "
        "it was left as it is, so nothing this machine saw is lost. Move it aside once you have looked at it: the "
        "next look starts a new one.")
    assert path.read_text(encoding="utf-8") == text


def test_a_witness_file_that_cannot_be_opened_is_said_with_why(tmp_path: Path) -> None:
    path = tmp_path / "chain-witness.json"
    path.mkdir()
    found = Witness(path).look("team", AuditHead(6, H6), hashes(e6=H6), lambda: True)
    assert found.problem.startswith(f"This machine's witness of the audit log, {path}, cannot be read ([Errno 21] ")
    path.rmdir()
    path.write_bytes(b"\xff\xfe")
    assert "cannot be read (" in Witness(path).look("team", None, hashes(), lambda: True).problem


def test_an_entry_of_the_witness_that_is_not_a_head_is_not_seen(tmp_path: Path) -> None:
    path = tmp_path / "chain-witness.json"
    path.write_text(json.dumps({"a": [6], "b": {"count": "six", "hash": H6, "at": "x"}, "c": {"hash": H6},
                                "d": {"count": "6", "hash": 7, "at": 8}}), encoding="utf-8")
    witness = Witness(path)
    assert [witness.seen(k) for k in "abc"] == [None, None, None]
    assert witness.seen("d") == Seen(6, "7", "8")


def test_a_witness_is_read_within_a_million_characters_and_four_levels(tmp_path: Path) -> None:
    path = tmp_path / "chain-witness.json"
    entry = {"count": 6, "hash": H6, "at": SEEN.at}
    path.write_text(json.dumps({"team": {**entry, "x": {"y": {}}}}), encoding="utf-8")  # four levels
    assert Witness(path).seen("team") == SEEN
    path.write_text(json.dumps({"team": {**entry, "x": {"y": {"z": {}}}}}), encoding="utf-8")  # five
    assert "it is not the JSON this console writes" in Witness(path).look("team", None, hashes(), lambda: True).problem
    body = json.dumps({"team": entry, "pad": ""})
    path.write_text(body[:-2] + "p" * (1_000_000 - len(body)) + body[-2:], encoding="utf-8")
    assert len(path.read_text(encoding="utf-8")) == 1_000_000 and Witness(path).seen("team") == SEEN
    path.write_text(body[:-2] + "p" * (1_000_001 - len(body)) + body[-2:], encoding="utf-8")
    assert "it is not the JSON this console writes" in Witness(path).look("team", None, hashes(), lambda: True).problem


def test_the_witness_file_is_laid_out_for_a_person(tmp_path: Path) -> None:
    path = tmp_path / "chain-witness.json"
    witness = Witness(path)
    witness.keep("team", AuditHead(6, H6))
    at = json.loads(path.read_text(encoding="utf-8"))["team"]["at"]
    assert at.endswith("+00:00")
    assert path.read_text(encoding="utf-8") == (
        '{\n  "team": {\n    "at": "' + at + '",\n    "count": 6,\n    "hash": "' + H6 + '"\n  }\n}\n')


def test_a_full_disk_says_the_witness_was_not_written(small_disk: SmallDisk) -> None:
    from stablepay_console.storage.writing import NotWritten

    witness = Witness(small_disk.path / "chain-witness.json")
    witness.keep("team", AuditHead(6, H6))
    small_disk.fill()
    with pytest.raises(NotWritten) as refused:
        witness.keep("team", AuditHead(7, H6))
    assert str(refused.value).startswith("Could not write the audit log's witness to ")
    assert witness.seen("team") == Seen(6, H6, witness.seen("team").at)  # type: ignore[union-attr]


def test_the_moment_seen_is_kept_in_utc_whatever_the_machines_zone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    try:
        Witness(tmp_path / "w.json").keep("team", AuditHead(6, H6))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert json.loads((tmp_path / "w.json").read_text(encoding="utf-8"))["team"]["at"].endswith("+00:00")


def test_why_a_witness_cannot_be_read_is_cut_to_200_characters(tmp_path: Path) -> None:
    path = tmp_path / ("d" * 120) / ("w" * 120)
    path.mkdir(parents=True)
    found = Witness(path).look("team", None, hashes(), lambda: True)
    why = f"[Errno 21] Is a directory: '{path}'"
    assert f"cannot be read ({why[:199]}…); it was left as it is" in found.problem
