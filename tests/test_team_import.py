"""`record import`: this machine's SQLite record into the team record, once, its chain checked first."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.services.audit import verify
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.local import open_record, record_file
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from tests.postgres import TeamDb

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"


def cli(*argv: str) -> int:
    return main(list(argv))


def make_local_record(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What one analyst's laptop holds: requests seen, notes, a claim, audit entries."""
    assert cli("rfis", "list", "--limit", "30", "--json") == 0
    ids = [r["id"] for r in json.loads(capsys.readouterr().out)["data"]]
    # Seen again, unchanged: their current status and round were last seen now, as the import must carry.
    assert cli("rfis", "list", "--limit", "30", "--json") == 0
    assert cli("rfis", "note", ids[0], "Called the customer", "--as", "ana") == 0
    assert cli("rfis", "note", ids[1], "Waiting for the bank letter") == 0
    assert cli("rfis", "claim", ids[2], "--as", "ana") == 0
    capsys.readouterr()
    return ids


def edit_local_record(*statements: str) -> None:
    """Change the local file as anyone holding it could, its append-only triggers dropped first."""
    conn = sqlite3.connect(record_file())
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.mark.postgres
def test_import_copies_everything_once(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = make_local_record(capsys)
    local = open_record()
    local_entries, local_history = local.audit(), local.history("embedded", ids[0])
    local_notes = local.notes("embedded", ids[0])
    local.close()
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))

    assert cli("record", "import", "--json") == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["requests"], first["notes"], first["claims"], first["auditEntries"]) == (30, 2, 1, len(local_entries))
    assert first["rounds"] > 0 and first["statuses"] == 30
    assert cli("record", "import", "--json") == 0
    second = capsys.readouterr()
    assert {k: v for k, v in json.loads(second.out).items() if k != "source"} == dict.fromkeys(
        ("requests", "rounds", "statuses", "notes", "claims", "claimsHeldByOthers", "auditEntries"), 0)
    assert "Nothing new to import" in second.err

    team = PgRecord(parse(team_db.url("bob")), lambda name: server_key(EMBEDDED_PROFILE))
    history = team.history("embedded", ids[0])
    # the same history, each part labelled as alice's import until the team watcher sees the request itself
    assert history.record is not None and history.record.imported_by == "alice"
    assert {r.imported_by for r in history.rounds} | {s.imported_by for s in history.statuses} == {"alice"}
    assert replace(history, record=replace(history.record, imported_by=None),
                   rounds=[replace(r, imported_by=None) for r in history.rounds],
                   statuses=[replace(s, imported_by=None) for s in history.statuses]) == local_history
    (note,) = team.notes("embedded", ids[0])
    (written,) = local_notes
    assert note.imported is not None and note.imported.written_at == written.at, "the time it was written, kept"
    # the importer's testimony, never a note that "ana" wrote in the team record
    assert (note.author, note.text) == ("alice", "Called the customer")
    assert note.imported is not None and note.imported.written_as == "ana" and note.imported.by == "alice"
    assert note.imported.describe().startswith(f"imported by alice on {datetime.now(timezone.utc):%Y-%m-%d} from a "
                                                "local record, where it was written as ana")
    claim = team.claim_of("embedded", ids[2])
    assert claim is not None and claim.claimant == "alice"  # a claim imported is the importer's claim
    entries = team.audit()
    own = [(e.action, e.actor, e.target, e.outcome) for e in entries if e.imported is None]
    # the import's own entry, and the claim it took, whose entry the database wrote with it
    assert own == [("claim", "alice", ids[2], "claimed"), ("record.import", "alice", own[-1][2], "imported")]
    entries = [e for e in entries if e.imported is not None]
    assert verify(team).ok and len(entries) == len(local_entries)
    about = [e.seq for e in team.audit(profile="embedded") if e.imported is not None]
    assert about == [e.seq for e in entries if e.profile], "an imported entry is about its profile's server"
    for mine, theirs in zip(local_entries, entries, strict=True):
        assert (theirs.actor, theirs.action, theirs.target, theirs.outcome) == (
            "alice", mine.action, mine.target, mine.outcome)
        assert theirs.imported is not None and (theirs.imported.written_as, theirs.imported.by) == (mine.actor, "alice")
        assert (theirs.profile, theirs.environment) == (mine.profile, mine.environment)
        assert theirs.details.get("server") == (server_key(EMBEDDED_PROFILE) if mine.profile else None)
        assert theirs.details["written_at"] == mine.at and theirs.at != mine.at
        assert theirs.details["imported_hash"] == mine.hash and theirs.details["imported_seq"] == mine.seq
        assert theirs.details["imported_from"].endswith(str(record_file()))
    with team_db.connect() as conn:
        assert conn.execute("SELECT DISTINCT imported_by FROM stablepay.notes").fetchall() == [("alice",)]


@pytest.mark.postgres
def test_a_broken_local_chain_is_not_imported(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_local_record(capsys)
    edit_local_record("DROP TRIGGER audit_no_update", "UPDATE audit SET outcome = 'nothing' WHERE seq = 2")
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    assert cli("record", "import") == 1
    err = capsys.readouterr().err
    assert "broken at entry 2" in err and "Nothing was imported" in err
    with team_db.connect() as pg:
        assert pg.execute("SELECT (SELECT count(*) FROM stablepay.audit) + (SELECT count(*) FROM stablepay.rfis)"
                          ).fetchone() == (0,)


def test_import_without_a_team_record_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "import") == 2
    assert "No team record is set" in capsys.readouterr().err


@pytest.mark.postgres
def test_a_claim_someone_holds_in_the_team_record_stays_theirs_and_is_counted(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = make_local_record(capsys)
    bob = PgRecord(parse(team_db.url("bob")), lambda name: server_key(EMBEDDED_PROFILE))
    assert bob.claim("embedded", ids[2], "bob", datetime.now(timezone.utc)).done
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    assert cli("record", "import", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["claims"], report["claimsHeldByOthers"]) == (0, 1)
    claim = bob.claim_of("embedded", ids[2])
    assert claim is not None and claim.claimant == "bob"


@pytest.mark.postgres
def test_a_local_record_whose_last_entries_were_cut_off_is_not_imported(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every entry left chains to the one before: only the head, which counts them, shows the cut."""
    make_local_record(capsys)
    edit_local_record("DROP TRIGGER audit_no_delete", "DELETE FROM audit WHERE seq = (SELECT max(seq) FROM audit)")
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    assert cli("record", "import") == 1
    err = capsys.readouterr().err
    assert "Nothing was imported" in err and "Traceback" not in err
    with team_db.connect() as pg:
        assert pg.execute("SELECT count(*) FROM stablepay.audit").fetchone() == (0,)


def test_a_local_record_that_cannot_be_read_is_named_and_nothing_is_imported(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.storage.postgres.importing import read_local
    from stablepay_console.storage.record import RecordError

    broken = tmp_path / "record.sqlite3"
    broken.write_bytes(b"not a database" * 100)
    with pytest.raises(RecordError) as refused:
        read_local(broken, "SELECT 1 FROM audit")
    assert str(refused.value) == (f"The local record {broken} cannot be read (file is not a database); "
                                  "nothing was imported.")


@pytest.mark.postgres
def test_an_imported_request_the_watcher_then_sees_keeps_the_import_s_entries_and_gains_its_own(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stablepay_console.api.models import Rfi
    from stablepay_console.services.history import sighting
    from stablepay_console.storage.record_types import SeenPage

    ids = make_local_record(capsys)
    assert cli("rfis", "list", "--limit", "30", "--json") == 0
    rfi = next(Rfi.model_validate(r) for r in json.loads(capsys.readouterr().out)["data"] if r["id"] == ids[0])
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    assert cli("record", "import") == 0
    team = PgRecord(parse(team_db.url("bob")), lambda name: server_key(EMBEDDED_PROFILE))
    imported = team.history("embedded", ids[0])

    walt = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    now = datetime.now(timezone.utc)
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)  # the record keeps milliseconds
    assert walt.observe([SeenPage("embedded", "sandbox", now, (sighting(rfi),))]) == 1
    seen = team.history("embedded", ids[0])
    assert seen.record is not None and seen.record.imported_by is None, "the request is now the watcher's sighting"
    assert seen.statuses[:-1] == imported.statuses and seen.rounds[:len(imported.rounds)] == imported.rounds
    assert [(s.status, s.first_seen, s.imported_by) for s in seen.statuses[-1:]] == [(rfi.status, now, None)]
    assert len(seen.rounds) == len(imported.rounds) + (rfi.round is not None)
