"""The shell commands with a team record: `record init|use|status`, notes and claims as database roles.

Every failure is one message naming the database and what failed, with exit 1, never a traceback;
nothing is ever written to the local file instead of the team's database.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import pytest

from stablepay_console.cli.main import main
from stablepay_console.storage import locations
from stablepay_console.storage.postgres.schema import LATEST
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from tests.cli_e2e import console, free_port
from tests.postgres import OWNER, TeamDb, wait_for

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
URL = "STABLEPAY_RECORD_URL"


def cli(*argv: str) -> int:
    return main(list(argv))


def local_file() -> Path:
    return locations.data_dir() / "record.sqlite3"


# --- record init, use, status -------------------------------------------------------------------------------


@pytest.mark.postgres
def test_init_as_the_owner_then_up_to_date(bare_db: TeamDb, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "init", bare_db.url(OWNER)) == 0
    said = capsys.readouterr()
    assert f"schema version {LATEST} (was none)" in said.out and "GRANT stablepay_analyst TO alice;" in said.err
    assert cli("record", "init", bare_db.url(OWNER)) == 0
    assert f"is up to date: schema version {LATEST}" in capsys.readouterr().out


@pytest.mark.postgres
def test_use_saves_the_url_and_status_says_who_you_are(team_db: TeamDb, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "use", team_db.url("bob")) == 0
    capsys.readouterr()
    assert cli("record", "status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert status | {"from": ""} == {
        "record": "team", "from": "", "host": "127.0.0.1", "port": str(team_db.server.port), "database": team_db.name,
        "tls": "libpq default", "you": "bob", "lead": False, "watcher": False, "schemaVersion": LATEST,
        "reachable": True,
        "store": f"PostgreSQL {status['store'].split()[1]} at 127.0.0.1:{team_db.server.port}/{team_db.name}, "
                 f"schema {LATEST}",
        "stampedByNobody": {},
        "roundRepairs": {},
    }
    assert status["store"].split()[1].startswith("15")
    assert cli("record", "status") == 0
    shown = capsys.readouterr().out
    assert re.search(r"^lead: +no$", shown, re.M) and re.search(r"^reachable: +yes$", shown, re.M), shown
    assert "False" not in shown and "True" not in shown, "yes and no, in words"
    assert cli("record", "use", "--local") == 0
    capsys.readouterr()
    assert cli("record", "status", "--json") == 0
    assert json.loads(capsys.readouterr().out)["record"] == "local"


def test_status_of_the_local_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "status", "--json") == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["record"], status["path"], status["reachable"]) == ("local", str(local_file()), True)


@pytest.mark.parametrize("url", [
    "postgresql://alice:s3cr3t-pw@127.0.0.1:5432/team",
    "postgresql://alice@127.0.0.1:5432/team?password=s3cr3t-pw",
    "postgresql://alice@127.0.0.1/team?sslmode=require&sslpassword=s3cr3t-pw",
])
def test_a_url_with_a_password_is_refused_and_the_password_is_never_repeated(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("record", "use", url) == 2
    said = capsys.readouterr()
    assert "holds a password" in said.err and "PGPASSWORD" in said.err and "~/.pgpass" in said.err
    assert "s3cr3t-pw" not in said.err + said.out
    assert not (locations.config_dir() / "record.json").exists()


@pytest.mark.parametrize(("url", "ok"), [
    ("postgresql://alice@db.example.com/team", False),
    ("postgresql://alice@db.example.com/team?sslmode=prefer", False),
    ("postgresql://alice@10.0.0.5:5432/team?sslmode=disable", False),
    ("postgresql://alice@db.example.com/team?sslmode=require", False),
    ("postgresql://alice@db.example.com/team?sslmode=verify-ca", True),
    ("postgresql://alice@db.example.com/team?sslmode=verify-full", True),
    ("postgresql://alice@127.0.0.1:5432/team", True),
    ("postgresql://alice@[::1]:5432/team", True),
    ("postgresql://alice@localhost/team", True),
    ("postgresql:///team?host=/var/run/postgresql", True),
    ("postgresql://alice@localhost.evil.example/team", False),
])
def test_plain_connections_only_to_loopback(url: str, ok: bool, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "use", url) == (0 if ok else 2)
    if not ok:
        said = capsys.readouterr().err
        assert "sslmode=verify-full" in said
        if "sslmode=require" in url:
            assert "does not check which server answers" in said


def test_a_refused_url_in_the_environment_stops_every_record_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(URL, "postgresql://alice:hunter2@db.example.com/team")
    assert cli("rfis", "note", RFI, "kept?") == 1
    said = capsys.readouterr().err
    assert "hunter2" not in said and "holds a password" in said
    assert not local_file().exists()


# --- notes and claims as database roles ----------------------------------------------------------------------


@pytest.mark.postgres
def test_notes_and_claims_name_the_role_and_as_is_refused(as_role, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert cli("rfis", "note", RFI, "Asked for a new scan") == 0
    assert "by alice" in capsys.readouterr().err
    assert cli("rfis", "note", RFI, "as someone else", "--as", "bob") == 2
    assert "--as is refused" in capsys.readouterr().err
    assert cli("rfis", "claim", RFI) == 0
    as_role("bob")
    assert cli("rfis", "claim", RFI) == 1
    err = capsys.readouterr().err
    assert "is claimed by alice since" in err and "UTC" in err and "Traceback" not in err
    assert cli("rfis", "release", RFI, "--force") == 1
    assert "only a member of stablepay_lead may release" in capsys.readouterr().err
    as_role("carol")
    assert cli("rfis", "release", RFI, "--force") == 0
    assert "Released the claim of alice" in capsys.readouterr().err
    assert not local_file().exists()  # nothing went to this machine's file


@pytest.mark.postgres
def test_a_claim_for_a_while(as_role, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    assert cli("rfis", "claim", RFI, "--for", "4h") == 0
    assert "claimed by alice until" in capsys.readouterr().err
    as_role("bob")
    assert cli("rfis", "claim", RFI) == 1
    assert "until" in capsys.readouterr().err


def test_for_needs_the_team_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "claim", RFI, "--for", "4h") == 2
    assert "--for needs the team record" in capsys.readouterr().err


@pytest.mark.postgres
def test_the_audit_log_and_its_check_from_the_shell(as_role, team_db: TeamDb, capsys) -> None:  # type: ignore[no-untyped-def]
    for n in range(3):
        assert cli("rfis", "note", RFI, f"note {n}") == 0
    assert cli("audit", "verify") == 0
    assert "team record at 127.0.0.1" in capsys.readouterr().err
    with team_db.connect() as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("UPDATE stablepay.audit SET actor = 'bob' WHERE seq = 2")
    assert cli("audit", "verify") == 1
    assert "broken at entry 2" in capsys.readouterr().err


# --- faults ---------------------------------------------------------------------------------------------------


def test_database_down_at_start_is_one_line_and_nothing_local(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    monkeypatch.setenv(URL, f"postgresql://alice@127.0.0.1:{port}/team")
    assert cli("rfis", "note", RFI, "This must not vanish") == 1
    err = capsys.readouterr().err
    assert f"team record at 127.0.0.1:{port}/team cannot be reached" in err and "Traceback" not in err
    assert cli("record", "status") == 1
    assert "cannot be reached" in capsys.readouterr().err
    assert not local_file().exists()


@pytest.mark.postgres
def test_a_role_without_rights_is_told_what_failed(as_role, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    as_role("mallory")
    assert cli("rfis", "note", RFI, "not an analyst") == 1
    err = capsys.readouterr().err
    # CONNECT is the group roles' only (migration 2): a login outside them is refused at the door
    assert "permission denied" in err and "Traceback" not in err


def test_without_the_team_extra_the_message_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if psycopg were not installed
    monkeypatch.setenv(URL, "postgresql://alice@127.0.0.1:5432/team")
    assert cli("rfis", "note", RFI, "kept?") == 1
    assert "install stablepay-console[team]" in capsys.readouterr().err
    assert not local_file().exists()
    monkeypatch.delenv(URL)
    assert cli("rfis", "note", RFI, "a one-person install works without it") == 0
    assert cli("record", "use", "postgresql://alice@127.0.0.1:5432/team") == 2  # libpq's own reading needs psycopg
    assert "install stablepay-console[team]" in capsys.readouterr().err


@pytest.mark.postgres
def test_a_connection_dropped_while_idle_is_replaced_before_the_next_save(team_db: TeamDb) -> None:
    alice = PgRecord(parse(team_db.url("alice")), lambda name: "s")
    alice.check_after = 0.0
    alice.notes("p", RFI)
    with team_db.connect() as conn:  # a restart, a failover, an idle timeout: the server drops the connection
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'alice'")
    assert alice.add_note("p", RFI, "", "kept", datetime.now(timezone.utc)).author == "alice"


@pytest.mark.postgres
def test_a_connection_lost_mid_write_is_said_and_nothing_is_half_written(team_db: TeamDb) -> None:
    from stablepay_console.storage.postgres.connection import RecordUnavailable

    alice = PgRecord(parse(team_db.url("alice")), lambda name: "s")
    alice.notes("p", RFI)
    failed: list[BaseException] = []
    with team_db.connect() as admin:
        admin.execute("BEGIN")
        admin.execute("LOCK TABLE stablepay.notes IN ACCESS EXCLUSIVE MODE")  # alice's insert waits on it
        writer = threading.Thread(target=lambda: _try(failed, lambda: alice.add_note(
            "p", RFI, "", "lost mid-way?", datetime.now(timezone.utc))))
        writer.start()
        assert wait_for(lambda: admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'alice' AND wait_event_type = 'Lock'"
        ).fetchone() == (1,))
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'alice'")
        writer.join(10)
        admin.execute("ROLLBACK")
    (problem,) = failed
    assert isinstance(problem, RecordUnavailable)
    assert f"team record at 127.0.0.1:{team_db.server.port}/{team_db.name} could not save the note" in str(problem)
    assert "Nothing was saved" in str(problem)
    assert alice.notes("p", RFI) == []  # reconnected by itself; nothing half-written
    assert alice.add_note("p", RFI, "", "kept", datetime.now(timezone.utc)).author == "alice"


def _try(failed: list[BaseException], work: Callable[[], object]) -> None:
    try:
        work()
    except BaseException as exc:
        failed.append(exc)


# --- contention, as two analysts' shells ----------------------------------------------------------------------


@pytest.mark.postgres
def test_six_claims_at_once_from_two_shells(team_db: TeamDb, isolated_config: Path) -> None:
    """Six whole commands started together, three as each analyst: one claim holds, and every other is refused by
    name. (Sixteen took three times the processor for the same race; the record's own test of claims at once is
    test_team_record.py's sixteen at once.)"""
    base = {k: v for k, v in os.environ.items() if k != URL}
    runs = []
    for n in range(6):
        role = "alice" if n % 2 else "bob"
        env = {**base, "STABLEPAY_CONFIG_DIR": str(isolated_config), URL: team_db.url(role),
               "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
        runs.append((role, subprocess.Popen([*console(), "rfis", "claim", RFI], env=env, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True)))
    results = [(role, p.wait(120), p.stderr.read() if p.stderr else "") for role, p in runs]
    with team_db.connect() as conn:
        (holder,) = conn.execute("SELECT claimant FROM stablepay.claims").fetchone() or ("",)
    assert holder in ("alice", "bob")
    for role, code, err in results:
        if role == holder:
            assert code == 0, err
        else:
            assert code == 1 and f"is claimed by {holder} since" in err and "Traceback" not in err, err
