"""`rfis note|claim|release` from the shell, and the headless commands' audit entries."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stablepay_console.sandbox.data import ONRAMP_OPEN_ID
from stablepay_console.services.audit import verify
from stablepay_console.storage.local import open_record
from stablepay_console.storage.record_types import AuditEntry
from tests.test_audit_chain import cli

RFI = "11111111-1111-4111-8111-111111111111"


def log() -> list[AuditEntry]:
    record = open_record()
    try:
        assert verify(record).ok
        return record.audit()
    finally:
        record.close()


def test_a_note_from_the_shell_is_kept_with_its_author(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "note", RFI, "Customer sent the statement", "--as", "alice") == 0
    assert "Note 1 kept on" in capsys.readouterr().err
    record = open_record()
    (note,) = record.notes("embedded", RFI)
    record.close()
    assert (note.author, note.text) == ("alice", "Customer sent the statement")
    (entry,) = log()
    assert (entry.action, entry.actor, entry.target, entry.profile) == ("note.add", "alice", RFI, "embedded")


def test_the_author_is_the_os_user_unless_the_profile_sets_one() -> None:
    import getpass

    from stablepay_console.storage.prefs import Prefs

    assert cli("rfis", "note", RFI, "first") == 0
    Prefs("embedded").set("author", "Compliance desk (Ana)")
    assert cli("rfis", "note", RFI, "second") == 0
    record = open_record()
    authors = [n.author for n in record.notes("embedded", RFI)]
    record.close()
    assert authors == [getpass.getuser(), "Compliance desk (Ana)"]


@pytest.mark.parametrize(("text", "said"), [("   ", "empty"), ("ok \x1b[31m red", "control characters")])
def test_a_bad_note_is_refused_and_nothing_is_kept(text: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "note", RFI, text) == 2
    assert said in capsys.readouterr().err
    assert log() == []


def test_claim_and_release_from_the_shell(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "claim", RFI, "--as", "alice") == 0
    assert cli("rfis", "claim", RFI, "--as", "alice") == 0
    assert "already hold" in capsys.readouterr().err
    assert cli("rfis", "claim", RFI, "--as", "bob") == 1
    assert "is claimed by alice since" in capsys.readouterr().err
    assert cli("rfis", "release", RFI, "--as", "bob") == 1
    assert "--force" in capsys.readouterr().err
    assert cli("rfis", "release", RFI, "--as", "bob", "--force") == 0
    assert cli("rfis", "release", RFI, "--as", "alice") == 1
    assert "not claimed" in capsys.readouterr().err
    assert [(e.actor, e.action, e.outcome) for e in log()] == [
        ("alice", "claim", "claimed"),
        ("alice", "claim", "claimed"),
        ("bob", "claim", "refused: claimed by alice"),
        ("bob", "claim.release", "refused: claimed by alice"),
        ("bob", "claim.release", "released alice's"),
        ("alice", "claim.release", "refused: not claimed"),
    ]


def shell(*argv: str, config: Path) -> subprocess.CompletedProcess[str]:
    """The installed command in its own process: entries still queued at exit must be written."""
    env = {**os.environ, "STABLEPAY_CONFIG_DIR": str(config)}
    return subprocess.run([sys.executable, "-m", "stablepay_console.cli.main", *argv], env=env, text=True,
                          capture_output=True, timeout=120, cwd=Path(__file__).resolve().parent.parent)


def test_headless_ping_quote_refresh_and_export_are_audited(tmp_path: Path, isolated_config: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for argv in (("ping",), ("quote", "refresh", ONRAMP_OPEN_ID),
                 ("export", "--status", "expired", "--output", str(out / "expired.csv"))):
        done = shell(*argv, config=isolated_config)
        assert done.returncode == 0, done.stderr
    ping, quote, export = log()
    assert (ping.action, ping.outcome, ping.profile) == ("ping", "✓ pong", "embedded")
    assert (quote.action, quote.target, quote.outcome) == ("quote.refresh", ONRAMP_OPEN_ID, "refreshed")
    assert quote.details["new_rate"]
    rows = (out / "expired.csv").read_text().splitlines()
    assert (export.action, export.outcome) == ("export", "written")
    assert export.details["file"] == str(out / "expired.csv") and export.details["count"] == len(rows) - 1


def test_the_record_commands_need_no_key_and_send_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a record command sent a request")

    monkeypatch.setattr(httpx.AsyncClient, "send", refuse)
    assert cli("rfis", "note", RFI, "offline") == 0
    assert cli("rfis", "claim", RFI) == 0
    assert cli("audit", "verify") == 0
    assert cli("audit", "log", "--json") == 0


def test_a_damaged_record_is_set_aside_and_the_shell_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    from stablepay_console.storage.local import record_file

    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage" * 400)
    assert cli("rfis", "note", RFI, "after the damage") == 0
    err = capsys.readouterr().err
    assert "could not be read" in err and ".unreadable-" in err and "new record was started" in err
    assert [n.text for n in open_record().notes("embedded", RFI)] == ["after the damage"]


def test_a_record_from_a_newer_console_fails_the_command_once_and_is_left_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sqlite3

    from stablepay_console.storage.local import record_file
    from stablepay_console.storage.local.schema import LATEST

    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    before = path.read_bytes()
    assert cli("rfis", "note", RFI, "not kept") == 1
    err = capsys.readouterr().err
    assert err.count("newer stablepay-console") == 1 and "left as it is" in err
    assert cli("audit", "verify") == 1
    assert path.read_bytes() == before
