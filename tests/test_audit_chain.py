"""`audit verify`: an intact chain passes; a changed, removed, reordered or cut-off entry is named."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta

import pytest

from stablepay_console.cli.main import main
from stablepay_console.services.audit import verify
from stablepay_console.storage.local import open_record, record_file
from stablepay_console.storage.record_chain import GENESIS, canonical, entry_hash
from stablepay_console.storage.record_types import AuditDraft
from tests.conftest import FIXED_NOW

RFI = "11111111-1111-4111-8111-111111111111"


def cli(*argv: str) -> int:
    """The installed entry point's main(), as the shell runs it."""
    return main(list(argv))


def write_log(count: int = 6) -> None:
    record = open_record()
    for n in range(1, count + 1):
        profile = "embedded" if n % 2 else "prod"
        record.append_audit(AuditDraft(FIXED_NOW + timedelta(hours=n), "alice", profile, "sandbox", "ping",
                                       RFI if n == 3 else "", f"outcome {n}", {"n": n}))
    record.close()


def tamper(*statements: str) -> None:
    """What someone editing the file by hand would do: drop the guards, then change rows."""
    with sqlite3.connect(record_file()) as conn:
        conn.execute("DROP TRIGGER audit_no_update")
        conn.execute("DROP TRIGGER audit_no_delete")
        for sql in statements:
            conn.execute(sql)


def test_an_intact_log_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    write_log()
    assert cli("audit", "verify") == 0
    out, err = capsys.readouterr()
    assert "intact: 6 entries" in out and str(record_file()) in err


def test_an_empty_log_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("audit", "verify") == 0
    assert "intact: 0 entries" in capsys.readouterr().out


def test_the_chain_hash_is_pinned_byte_for_byte() -> None:
    # Records written by earlier versions, and the team database's own entry_hash(), compute exactly this:
    # a change to the canonical form (key order, spacing, escapes) would make every kept log fail to verify.
    content = {"seq": 2, "actor": "alice", "detail": {"note": "caf\u00e9 \u2028 \"q\""},
               "at": "2026-11-20T09:30:00+00:00"}
    assert canonical(content) == (b'{"actor":"alice","at":"2026-11-20T09:30:00+00:00",'
                                  b'"detail":{"note":"caf\\u00e9 \\u2028 \\"q\\""},"seq":2}')
    assert entry_hash(GENESIS, content) == "802b44bf3f8a9c90deb44eca89da5e86a5ee16e9737928179b0ce942dedc7761"
    # A previous hash that is not hex (a row edited by hand) still gives a hash, which then fails the link.
    assert entry_hash("\u00e9" * 64, content) == "1f7e93090d3beb55b7afac6ca71da48710db10af8bade70bf1d2609a2c447d20"


BROKEN: dict[str, tuple[tuple[str, ...], int, str]] = {
    "edited": (("UPDATE audit SET outcome = 'nothing happened' WHERE seq = 4",), 4, "changed after it was written"),
    "edited actor": (("UPDATE audit SET actor = 'mallory' WHERE seq = 2",), 2, "changed after it was written"),
    "removed": (("DELETE FROM audit WHERE seq = 3",), 3, "missing (removed)"),
    "truncated": (("DELETE FROM audit WHERE seq > 4",), 5, "end was cut off"),
    "reordered": (
        ("UPDATE audit SET seq = 100 WHERE seq = 2", "UPDATE audit SET seq = 2 WHERE seq = 5",
         "UPDATE audit SET seq = 5 WHERE seq = 100"),
        2,
        "does not follow the entry before it",
    ),
    "first removed": (("DELETE FROM audit WHERE seq = 1",), 1, "missing (removed)"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_tampered_log_fails_naming_the_first_broken_entry(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    statements, broken_at, reason = BROKEN[case]
    write_log()
    tamper(*statements)
    assert cli("audit", "verify") == 1
    err = capsys.readouterr().err
    assert f"broken at entry {broken_at}:" in err and reason in err


def test_a_cut_tail_stays_visible_after_more_entries_are_appended() -> None:
    write_log()
    tamper("DELETE FROM audit WHERE seq > 4")
    record = open_record()
    record.append_audit(AuditDraft(FIXED_NOW, "alice", "embedded", "sandbox", "ping"))
    report = verify(record)
    record.close()
    assert not report.ok and report.broken_at == 5 and "5 to 6 are missing" in report.reason


def test_a_rehashed_edit_still_breaks_the_next_link() -> None:
    """Changing an entry and recomputing its own hash is not enough: the next entry names the old hash."""
    from stablepay_console.storage.record_chain import entry_hash

    write_log()
    record = open_record()
    third = record.audit()[2]
    record.close()
    forged = {**third.content(), "outcome": "forged"}
    tamper(f"UPDATE audit SET outcome = 'forged', hash = '{entry_hash(third.prev_hash, forged)}' WHERE seq = 3")
    record = open_record()
    report = verify(record)
    record.close()
    assert not report.ok and report.broken_at == 4


def test_audit_log_prints_filters_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    write_log()
    assert cli("audit", "log", "--profile", "prod", "--json") == 0
    entries = json.loads(capsys.readouterr().out)
    assert [e["seq"] for e in entries] == [2, 4, 6]
    assert entries[0]["detail"] == {"n": 2} and len(entries[0]["hash"]) == 64
    assert set(entries[0]) >= {"at", "actor", "profile", "environment", "action", "target", "outcome", "prevHash"}
    since = (FIXED_NOW + timedelta(hours=5)).date().isoformat() + "T" + (FIXED_NOW + timedelta(hours=5)).strftime(
        "%H:%M:%S+00:00"
    )
    assert cli("audit", "log", "--since", since) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["SEQ", "TIME", "ACTOR"]
    assert [line.split()[0] for line in lines[1:]] == ["5", "6"]
    assert cli("audit", "log", "--since", "2000-01-01", "--limit", "2") == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]] == ["5", "6"]


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "5x"])
def test_a_bad_since_is_a_usage_error(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli("audit", "log", "--since", bad)
    assert exit_.value.code == 2
    assert "is not a date" in capsys.readouterr().err


def test_since_takes_a_span_back_from_now() -> None:
    from stablepay_console.cli.record_commands import since_arg

    assert since_arg("2026-11-01").tzinfo is not None
    assert since_arg("7d") < since_arg("24h")


def rehash_all(statements: tuple[str, ...] = ()) -> None:
    """What someone with the file (or a superuser) does to hide an edit: change rows, then re-hash the whole chain
    and its head, so that the chain on its own verifies again."""
    from stablepay_console.storage.record_chain import GENESIS, entry_hash

    tamper(*statements)
    with sqlite3.connect(record_file()) as conn:
        prev = GENESIS
        rows = conn.execute("SELECT seq, at, actor, profile, environment, action, target, outcome, detail "
                            "FROM audit ORDER BY seq").fetchall()
        for seq, at, actor, profile, environment, action, target, outcome, detail in rows:
            content = {"seq": seq, "at": at, "actor": actor, "profile": profile, "environment": environment,
                       "action": action, "target": target, "outcome": outcome, "detail": detail}
            prev, old = entry_hash(prev, content), prev
            conn.execute("UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?", (old, prev, seq))
        conn.execute("UPDATE audit_head SET count = ?, hash = ? WHERE only = 1", (len(rows), prev))


def test_last_entry_edited_and_rehashed_is_caught() -> None:
    """The last entry has no next entry to name its old hash: the head kept beside the log does (its hash, not
    only its count)."""
    from stablepay_console.storage.record_chain import entry_hash

    write_log()
    record = open_record()
    last = record.audit()[-1]
    record.close()
    forged = {**last.content(), "outcome": "forged"}
    tamper(f"UPDATE audit SET outcome = 'forged', hash = '{entry_hash(last.prev_hash, forged)}' WHERE seq = 6")
    record = open_record()
    report = verify(record)
    record.close()
    assert not report.ok and report.broken_at == 6 and "does not match the recorded head" in report.reason


def test_a_whole_chain_rehashed_is_noticed_by_the_machine_that_saw_it(capsys: pytest.CaptureFixture[str]) -> None:
    write_log()
    assert cli("audit", "verify") == 0  # this machine sees the log: 6 entries, and keeps entry 6's hash
    capsys.readouterr()
    rehash_all(("UPDATE audit SET outcome = 'nothing happened' WHERE seq = 2",))
    assert cli("audit", "verify", "--json") == 1
    said = json.loads(capsys.readouterr().out)
    assert said["chain"]["ok"] is True, "re-hashed, the chain alone verifies"
    assert said["witness"]["ok"] is False and said["witness"]["seen"]["count"] == 6
    assert "Entry 6 of the audit log no longer has the hash this machine saw" in said["witness"]["problem"]
    assert cli("audit", "verify") == 1  # said again, until someone deals with it
    assert "was rewritten and re-hashed" in capsys.readouterr().err


def test_a_restore_that_drops_the_last_entries_is_noticed(capsys: pytest.CaptureFixture[str]) -> None:
    write_log()
    assert cli("audit", "log", "--limit", "1") == 0  # any command that opens the record looks
    capsys.readouterr()
    rehash_all(("DELETE FROM audit WHERE seq > 4",))  # an older copy: 4 entries, their head consistent
    assert cli("audit", "verify") == 1
    out, err = capsys.readouterr()
    assert "intact: 4 entries" in out
    assert "holds 4 entries, but this machine saw 6" in err and "an older copy of the record was restored" in err


def test_the_witness_moves_on_with_the_log_and_names_nothing_when_intact(capsys: pytest.CaptureFixture[str]) -> None:
    from stablepay_console.storage.locations import witness_file

    write_log()
    assert cli("audit", "verify", "--json") == 0
    first = json.loads(capsys.readouterr().out)["witness"]
    assert first == {"ok": True, "seen": None, "problem": None}  # never looked before
    write_log(2)  # two more entries, appended the honest way
    assert cli("audit", "verify", "--json") == 0
    second = json.loads(capsys.readouterr().out)["witness"]
    assert second["ok"] and second["seen"]["count"] == 6
    kept = json.loads(witness_file().read_text())
    assert [v["count"] for v in kept.values()] == [8]


def witnessed_counts() -> list[int]:
    from stablepay_console.storage.locations import witness_file

    return [v["count"] for v in json.loads(witness_file().read_text()).values()]


def test_a_failed_verify_keeps_the_witness_where_it_was_and_raises_no_false_alarm_after_the_repair(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As found: someone appends a forged entry and moves the head to it; `audit verify` fails, yet kept the forged
    head as seen, so once the forgery was taken out the next verify cried "entries were removed"."""
    write_log()
    assert cli("audit", "verify") == 0 and witnessed_counts() == [6]
    with sqlite3.connect(record_file()) as conn:
        conn.execute("INSERT INTO audit (seq, at, actor, profile, environment, action, target, outcome, detail, "
                     "prev_hash, hash) SELECT 7, at, 'mallory', profile, environment, 'ping', '', 'forged', '{}', "
                     "'f' || substr(hash, 2), 'e' || substr(hash, 2) FROM audit WHERE seq = 6")
        conn.execute("UPDATE audit_head SET count = 7, hash = (SELECT hash FROM audit WHERE seq = 7)")
    capsys.readouterr()
    assert cli("audit", "verify") == 1
    assert witnessed_counts() == [6], "a broken chain's head is never kept as seen"
    tamper("DELETE FROM audit WHERE seq = 7")  # the team takes the forgery out
    with sqlite3.connect(record_file()) as conn:
        conn.execute("UPDATE audit_head SET count = 6, hash = (SELECT hash FROM audit WHERE seq = 6)")
    assert cli("audit", "verify") == 0, capsys.readouterr().err
    write_log(2)  # and the log goes on: the witness moves with a good chain
    assert cli("audit", "verify") == 0 and witnessed_counts() == [8]


def test_a_console_that_opens_a_broken_log_keeps_no_head_of_it() -> None:
    """Any command that opens the record looks; it moves the witness on only when the whole chain verifies."""
    write_log()
    assert cli("audit", "log", "--limit", "1") == 0 and witnessed_counts() == [6]
    write_log(2)
    tamper("UPDATE audit SET outcome = 'nothing happened' WHERE seq = 3")
    assert cli("audit", "log", "--limit", "1") == 0
    assert witnessed_counts() == [6]


@pytest.mark.parametrize("kept", ["{not json", "[]", "[" * 100_000, "\udcff"],
                         ids=["not json", "a list", "deep", "not utf-8"])
def test_a_witness_file_that_cannot_be_read_is_said_with_its_path_and_left_as_it_is(
    capsys: pytest.CaptureFixture[str], kept: str,
) -> None:
    from stablepay_console.storage.locations import witness_file

    write_log()
    path = witness_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe" if kept == "\udcff" else kept.encode())
    before = path.read_bytes()
    assert cli("audit", "verify") == 1
    out, err = capsys.readouterr()
    assert "intact: 6 entries" in out
    assert f"{path}, cannot be read" in err and "it was left as it is" in err
    assert "Traceback" not in err
    assert cli("audit", "log", "--limit", "1") == 0  # other commands work on
    assert path.read_bytes() == before, "never replaced"


# --- what a broken log says ----------------------------------------------------------------------------------------

AT = {n: (FIXED_NOW + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%S.000+00:00") for n in range(1, 7)}
"""When write_log's entry n was written (the record's own stamp)."""

SAID: dict[str, tuple[int, str]] = {
    # case of BROKEN: (entries that held before the break, the reason in full)
    "edited": (3, "its content no longer matches its hash: it was changed after it was written "
                  f"(now reads: {AT[4]} alice pinged the API  → nothing happened)."),
    "edited actor": (1, "its content no longer matches its hash: it was changed after it was written "
                        f"(now reads: {AT[2]} mallory pinged the API  → outcome 2)."),
    "removed": (2, "entries 3 to 3 are missing (removed)."),
    "truncated": (4, "the log ends at entry 4 but 6 were written (the end was cut off)."),
    "reordered": (1, "it does not follow the entry before it (entries were removed, inserted or reordered)."),
    "first removed": (0, "entries 1 to 1 are missing (removed)."),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_log_says_how_many_entries_held_and_why_it_broke(
    case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    statements, broken_at, _ = BROKEN[case]
    checked, reason = SAID[case]
    write_log()
    tamper(*statements)
    assert cli("audit", "verify", "--json") == 1
    chain = json.loads(capsys.readouterr().out)["chain"]
    assert chain == {"ok": False, "checked": checked, "brokenAt": broken_at, "reason": reason}


def test_a_last_entry_rehashed_says_the_whole_chain_held_but_not_its_head(capsys: pytest.CaptureFixture[str]) -> None:
    write_log()
    record = open_record()
    last = record.audit()[-1]
    record.close()
    forged = {**last.content(), "outcome": "forged"}
    tamper(f"UPDATE audit SET outcome = 'forged', hash = '{entry_hash(last.prev_hash, forged)}' WHERE seq = 6")
    assert cli("audit", "verify", "--json") == 1
    assert json.loads(capsys.readouterr().out)["chain"] == {
        "ok": False, "checked": 6, "brokenAt": 6,
        "reason": "the log's end does not match the recorded head (it was changed)."}


def test_a_changed_entry_is_shown_cleaned_and_cut_short(capsys: pytest.CaptureFixture[str]) -> None:
    """The changed entry is the tamperer's text: it is said as it now reads, escapes made visible, each field cut
    (an action the console does not know by its own name)."""
    record = open_record()
    record.append_audit(AuditDraft(FIXED_NOW, "m" * 50, "embedded", "sandbox", "x" * 50, "t" * 70, "o" * 70))
    record.close()
    tamper("UPDATE audit SET actor = 'mallory' || char(27) || '[2J' || substr(actor, 8) WHERE seq = 1")
    assert cli("audit", "verify", "--json") == 1
    reason = json.loads(capsys.readouterr().out)["chain"]["reason"]
    assert reason == (
        "its content no longer matches its hash: it was changed after it was written (now reads: "
        f"{FIXED_NOW:%Y-%m-%dT%H:%M:%S.000+00:00} mallory\\x1b[2J{'m' * 25}… {'x' * 39}… {'t' * 59}… → {'o' * 59}…).")


def test_an_entry_that_appears_again_is_named() -> None:
    """A record rebuilt by hand can hand the same entry over twice (no key keeps its numbers apart any more)."""
    from stablepay_console.services.audit import verify_chain

    write_log(3)
    record = open_record()
    first, second, third = record.audit()
    record.close()
    report = verify_chain([first, second, third, second], None)
    assert (report.ok, report.checked, report.broken_at) == (False, 3, 2)
    assert report.reason == "it appears again after entry 3 (reordered)."
