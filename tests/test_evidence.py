"""`rfis evidence`: a folder an auditor reads without tools; never overwrites; written whole or not at all."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from stablepay_console.api.models import RfiItem
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.export import evidence
from stablepay_console.storage.record_types import Claim, Imported, Note, RfiHistory
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW
from tests.small_disk import SmallDisk
from tests.test_audit_chain import cli
from tests.test_record_history import Clock, fetch, issued

FILES = {"rfi.json", "rounds.json", "notes.json", "audit.json", "README.md"}


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def services(sandbox: Sandbox, clock: Clock) -> Services:
    return Services(sandbox=sandbox, clock=clock)


async def two_rounds(services: Services, sandbox: Sandbox, clock: Clock) -> str:
    """A request seen in round 1, then asked again with a hostile label; a note, a claim."""
    index, rfi = issued(sandbox)
    await fetch(services)
    assert rfi.round is not None
    evil = RfiItem(id="99999999-0000-4000-8000-000000000003", kind="document", doc_type="bank_statement",
                   label="Statement \x1b[2J# not a heading | pipe", required=True, detail="last 3 months")
    again = rfi.round.model_copy(update={"id": "99999999-9999-4999-8999-999999999990", "round": rfi.round.round + 1,
                                          "items": [evil], "expires_at": FIXED_NOW + timedelta(days=5)})
    sandbox.data.rfis[index] = rfi.model_copy(update={"round": again, "current_round": again.round})
    clock.now = FIXED_NOW + timedelta(hours=1)
    await fetch(services)
    services.notes.add(EMBEDDED_PROFILE, rfi.id, "Asked the customer\nfor statements", author="alice").result(10)
    services.notes.claim(EMBEDDED_PROFILE, rfi.id, author="alice").result(10)
    return rfi.id


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A folder of its own (the record lives in tmp_path/config)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def pack_in(folder: Path) -> Path:
    (pack,) = [p for p in folder.iterdir() if p.is_dir()]
    return pack


async def test_the_pack_holds_the_request_rounds_notes_and_actions(
    services: Services, sandbox: Sandbox, clock: Clock, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rfi_id = await two_rounds(services, sandbox, clock)
    other = next(r.id for r in sandbox.data.rfis if r.id != rfi_id)  # what is about another request, or was
    services.notes.add(EMBEDDED_PROFILE, other, "another request", author="alice").result(10)  # done under
    second = dataclasses.replace(EMBEDDED_PROFILE, name="second")
    services.notes.add(second, rfi_id, "another profile's", author="bob").result(10)  # another profile: stays out
    out = out / "for-the-auditor"
    assert cli("rfis", "evidence", rfi_id, "--output", str(out)) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert {p.name for p in out.iterdir()} == FILES

    request = json.loads((out / "rfi.json").read_text())
    assert request["profile"] == "embedded" and request["environment"] == "sandbox"
    first, last = (datetime.fromisoformat(request[k]) for k in ("firstSeen", "lastSeen"))
    assert last - first == timedelta(hours=1)
    assert request["request"]["id"] == rfi_id and request["request"]["round"]["items"][0]["label"].startswith("Stat")
    rounds = json.loads((out / "rounds.json").read_text())
    assert [r["entry"] for r in rounds["rounds"]] == [1, 2] and rounds["statuses"][0]["status"] == "issued"
    assert "compliance asked again" in rounds["rounds"][1]["changes"][0]
    notes = json.loads((out / "notes.json").read_text())
    assert notes["notes"][0]["text"] == "Asked the customer\nfor statements"
    assert notes["claim"]["claimant"] == "alice" and datetime.fromisoformat(notes["claim"]["since"]).tzinfo
    assert notes["notes"][0]["author"] == "alice" and datetime.fromisoformat(notes["notes"][0]["at"]).tzinfo
    assert len(notes["notes"]) == 1
    audit = json.loads((out / "audit.json").read_text())
    assert [e["action"] for e in audit["entries"]] == ["note.add", "claim"]
    assert all(e["target"] == rfi_id and len(e["hash"]) == 64 for e in audit["entries"])

    readme = (out / "README.md").read_text()
    for expected in (f"# Evidence: request for information {rfi_id}", "## Rounds seen (2)", "### Entry 2: round",
                     "Deadline: 2026-11-25 09:30 UTC", "## Status timeline", "Claimed by alice",
                     "alice: Asked the customer / for statements", "## Actions recorded (2)", "added a note",
                     "\\[required\\] Statement \\\\x1b\\[2J\\# not a heading \\| pipe (document: Bank statement)"):
        assert expected in readme, expected
    for name in FILES:
        text = (out / name).read_text(encoding="utf-8")
        assert "\x1b" not in text, f"{name} would act on a terminal"
    entries = services.record.call(lambda record: record.audit(target=rfi_id))
    assert entries[-1].action == "evidence.write" and entries[-1].details["folder"] == str(out)


async def test_an_existing_folder_gets_a_dated_pack_inside_and_nothing_is_overwritten(
    services: Services, sandbox: Sandbox, clock: Clock, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path = out
    rfi_id = await two_rounds(services, sandbox, clock)
    assert cli("rfis", "evidence", rfi_id, "--output", str(tmp_path)) == 0
    pack = pack_in(tmp_path)
    assert pack.name.startswith(f"evidence-{rfi_id}-")
    before = {p.name: p.read_bytes() for p in pack.iterdir()}
    assert cli("rfis", "evidence", rfi_id, "--output", str(pack)) == 0, "inside the existing pack: a new dated one"
    assert {p.name: p.read_bytes() for p in pack.iterdir() if p.is_file()} == before
    a_file = tmp_path / "taken.txt"
    a_file.write_text("mine")
    capsys.readouterr()
    assert cli("rfis", "evidence", rfi_id, "--output", str(a_file)) == 2
    assert "never overwrites" in capsys.readouterr().err and a_file.read_text() == "mine"


def test_a_claimed_name_is_never_replaced(out: Path) -> None:
    target = out / "pack"
    target.mkdir()
    (target / "theirs.txt").write_text("keep")
    found = evidence.Gathered(RfiHistory("embedded", "x", None), [], None, [])
    with pytest.raises(evidence.EvidenceError, match="already exists"):
        evidence.write_pack(found, target, FIXED_NOW, "alice", "0")
    assert [p.name for p in target.iterdir()] == ["theirs.txt"]


def test_a_failed_write_leaves_nothing_behind(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path = out
    written: list[str] = []
    real = Path.write_text

    def failing(self: Path, text: str, *args: object, **kwargs: object) -> int:
        written.append(self.name)
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        return real(self, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", failing)
    found = evidence.Gathered(RfiHistory("embedded", "x", None), [], None, [])
    refused = r"Could not write the evidence pack to .*pack: the disk is full\."
    with pytest.raises(evidence.EvidenceError, match=refused):
        evidence.write_pack(found, tmp_path / "pack", FIXED_NOW, "alice", "0")
    assert list(tmp_path.iterdir()) == [], "no partial folder, no half pack"


def test_a_pack_on_another_disk_keeps_an_imported_note_and_no_raw_bidi(small_disk: SmallDisk) -> None:
    imported = Imported("laptop:/home/carol/record.sqlite3", "carol", FIXED_NOW, "bob", FIXED_NOW - timedelta(days=1))
    note = Note(1, "embedded", "x", "carol", FIXED_NOW, "Checked \u202egnp.exe", imported)
    claim = Claim("embedded", "x", "alice", FIXED_NOW + timedelta(hours=2))
    found = evidence.Gathered(RfiHistory("embedded", "x", None), [note], claim, [])
    target = small_disk.path / "pack"  # staged beside it, on the same disk: a rename, never a copy across disks
    pack = evidence.write_pack(found, target, FIXED_NOW + timedelta(days=3), "alice", "9.9")
    assert pack == evidence.EvidencePack(target, 0, 1, 0)
    assert [p.name for p in small_disk.path.iterdir()] == ["pack"]
    text = (target / "notes.json").read_text(encoding="utf-8")
    assert "\u202e" not in text  # what an auditor cats shows no reordered text
    assert text.startswith('{\n  "notes": [\n    {\n      "author": "carol",\n')  # indented, in the order written
    notes = json.loads(text)
    assert notes == {
        "notes": [{"author": "carol", "at": FIXED_NOW.isoformat(), "text": "Checked \u202egnp.exe", "imported": {
            **imported.to_json(), "description": imported.describe()}}],
        "claim": {"claimant": "alice", "since": (FIXED_NOW + timedelta(hours=2)).isoformat()},
    }
    assert "imported by carol on 2026-11-20" in notes["notes"][0]["imported"]["description"]
    readme = (target / "README.md").read_text(encoding="utf-8")
    assert "Written 2026-11-23 09:30 UTC by alice with stablepay-console 9.9" in readme


def test_a_pack_where_no_folder_can_be_made_says_so(out: Path) -> None:
    (out / "a-file").write_text("mine", encoding="utf-8")
    found = evidence.Gathered(RfiHistory("embedded", "x", None), [], None, [])
    refused = r"^Could not write the evidence pack to .*a-file/pack: not a directory\.$"
    with pytest.raises(evidence.EvidenceError, match=refused):
        evidence.write_pack(found, out / "a-file" / "pack", FIXED_NOW, "alice", "0")
    assert [p.name for p in out.iterdir()] == ["a-file"]


def test_a_request_nothing_is_known_about_writes_no_pack(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "evidence", "22222222-2222-4222-8222-222222222222", "--output", str(out / "p")) == 1
    assert "Nothing is recorded" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_a_missing_parent_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no" / "such" / "pack"
    assert cli("rfis", "evidence", "22222222-2222-4222-8222-222222222222", "--output", str(target)) == 2
    assert "does not exist" in capsys.readouterr().err
