"""Triage from the shell on the local record (one person): steps, their audit entries, the policy, the report."""

from __future__ import annotations

import json
import re

import pytest

from stablepay_console.services.audit import verify
from stablepay_console.storage.local import open_record
from stablepay_console.storage.local.store import SqliteRecord
from tests.test_audit_chain import cli

RFI = "22222222-2222-4222-8222-222222222222"


def actions() -> list[tuple[str, str]]:
    record = open_record()
    try:
        assert verify(record).ok
        return [(e.action, e.outcome) for e in record.audit() if e.action.startswith("triage.")]
    finally:
        record.close()


def test_steps_in_order_each_with_its_audit_entry(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "claim", RFI, "--as", "ana") == 0
    assert cli("rfis", "ready", RFI, "--note", "statement checked", "--json") == 1  # the claimant is ana, not me
    assert "only the claimant" in capsys.readouterr().err
    assert cli("rfis", "release", RFI, "--as", "ana") == 0
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "wait", RFI, "--note", "asked for a bank statement") == 0
    assert cli("rfis", "ready", RFI) == 1
    assert "waiting" in capsys.readouterr().err
    assert cli("rfis", "resume", RFI) == 0
    capsys.readouterr()
    assert cli("rfis", "ready", RFI, "--note", "statement checked", "--json") == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["id"], said["action"], said["done"], said["step"], said["note"]) == (
        RFI, "ready", True, "ready", "statement checked")
    with pytest.raises(SystemExit) as usage:
        cli("rfis", "reject", RFI)  # a rejection needs --note
    assert usage.value.code == 2
    assert cli("rfis", "reject", RFI, "--note", "wrong account") == 0
    said_back = capsys.readouterr().err
    assert re.search(rf"{RFI}: sent back by \S+ at \d{{4}}-\d\d-\d\d \d\d:\d\d UTC; its step is now claimed\.",
                     said_back), said_back
    assert "(reject by" not in said_back
    assert actions() == [("triage.ready", "refused: only the claimant makes an answer ready; "
                          f"{RFI} is claimed by ana"), ("triage.wait", "waiting"),
                         ("triage.ready", f"refused: {RFI} is waiting; 'ready' needs it claimed"),
                         ("triage.resume", "claimed"), ("triage.ready", "ready"), ("triage.reject", "claimed")]


def test_approve_on_the_local_record_needs_the_team_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "claim", RFI) == 0
    assert cli("rfis", "ready", RFI) == 0
    capsys.readouterr()
    assert cli("rfis", "approve", RFI) == 2
    assert "four eyes need the team record" in capsys.readouterr().err
    assert [a for a, _ in actions()] == ["triage.ready"]


def test_a_step_and_its_audit_entry_are_kept_together_or_not_at_all(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "claim", RFI) == 0

    def broken(self: SqliteRecord, draft: object) -> object:
        raise OSError("the audit log could not be written")

    with monkeypatch.context() as patched, pytest.raises(OSError):  # undoes only this (not the test's own folder)
        patched.setattr(SqliteRecord, "append_audit", broken)
        cli("rfis", "ready", RFI)
    record = open_record()
    try:
        assert record.triage_case("embedded", RFI).steps == ()
    finally:
        record.close()


def test_the_policy_is_printed_and_changed(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("record", "policy", "--json") == 0
    assert json.loads(capsys.readouterr().out) | {"changedBy": None} == {
        "claimWithin": "4h", "readyWithin": "24h", "approveBefore": "12h", "changedBy": None, "changedAt": None,
        "set": False}
    assert cli("record", "policy") == 0
    assert "No service levels are set, so none applies" in capsys.readouterr().err
    assert cli("record", "policy", "--claim-within", "2h", "--approve-before", "6h", "--json") == 0
    changed = json.loads(capsys.readouterr().out)
    assert (changed["claimWithin"], changed["readyWithin"], changed["approveBefore"]) == ("2h", "24h", "6h")
    assert changed["set"] is True
    assert actions()[-1] == ("triage.policy", "changed")


def set_levels(capsys: pytest.CaptureFixture[str]) -> None:
    """The levels `record policy` starts from, set: service levels apply from now on."""
    assert cli("record", "policy", "--claim-within", "4h") == 0
    capsys.readouterr()


def test_rfis_due_without_a_policy_counts_no_breach(capsys: pytest.CaptureFixture[str]) -> None:
    """The local record and nobody set a policy: `rfis due` lists what is due and overdue, and not one service
    level breached, nor a word of a team's policy (there is no team)."""
    assert cli("rfis", "due", "--within", "1d") in (3, 4)
    said = capsys.readouterr()
    assert "LATE BY" not in said.out and "breached" not in said.err and "breached" not in said.out
    assert "team policy" not in said.err + said.out
    assert re.search(r"\d+ overdue, \d+ due within 24h", said.err), said.err


def test_the_report_from_the_shell(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli("rfis", "report", "--since", "7d", "--json") == 0
    made = json.loads(capsys.readouterr().out)
    assert made["totals"] == {"issued": 0, "claimed": 0, "approved": 0, "submittedInTime": 0, "expired": 0}
    assert cli("rfis", "report", "--csv") == 0
    assert capsys.readouterr().out.splitlines()[0] == "section,key,measure,value"
    assert cli("rfis", "report") == 0
    shown = capsys.readouterr().out
    assert "ISSUED" in shown and "SUBMITTED IN TIME" in shown and "MADE READY" in shown and "OPEN NOW" in shown
    assert "SUBMITTEDINTIME" not in shown and "MADEREADY" not in shown, "the headings read as words"


def test_rfis_due_lists_the_breached_service_levels(capsys: pytest.CaptureFixture[str]) -> None:
    set_levels(capsys)
    assert cli("rfis", "due", "--within", "1d") in (3, 4)
    said = capsys.readouterr()
    assert "LATE BY" in said.out and "service levels breached" in said.err
    lates = [late for _, _, late in breach_rows(said.out).values()]
    assert lates and all(re.fullmatch(r"\d+ days? \d+ h|\d+ h \d+ min|\d+ min", late) for late in lates), lates
    late = [line for line in said.out.splitlines() if " unclaimed " in f" {line} " and " claim " in f" {line} "]
    assert late, said.out
    assert cli("rfis", "due", "--within", "1d", "--json") in (3, 4)
    assert isinstance(json.loads(capsys.readouterr().out), list)  # the API's requests, as before


def test_rfis_due_lists_the_50_breached_longest_ago_and_counts_them_all(capsys: pytest.CaptureFixture[str]) -> None:
    set_levels(capsys)
    assert cli("rfis", "due", "--within", "1d", "--breaches", "all") in (3, 4)
    said = capsys.readouterr()
    every = list(breach_rows(said.out))
    count = int(re.search(r"(\d+) service levels breached", said.err).group(1))  # type: ignore[union-attr]
    assert len(every) == count > 50, "the sandbox breaches more than the default lists"
    assert "are listed" not in said.err
    assert cli("rfis", "due", "--within", "1d") in (3, 4)
    said = capsys.readouterr()
    assert list(breach_rows(said.out)) == every[:50], "the 50 breached longest ago, in the same order"
    assert f"{count} service levels breached" in said.err
    assert "the 50 breached longest ago are listed (`--breaches all` lists every one)" in said.err
    assert cli("rfis", "due", "--within", "1d", "--breaches", "3") in (3, 4)
    assert list(breach_rows(capsys.readouterr().out)) == every[:3]
    with pytest.raises(SystemExit) as usage:
        cli("rfis", "due", "--within", "1d", "--breaches", "0")
    assert usage.value.code == 2 and "list at least 1, or all" in capsys.readouterr().err


def breach_rows(out: str) -> dict[str, tuple[str, str, str]]:
    """The breach table of `rfis due`: id -> (step, level, late by)."""
    table = out[out.index("LATE BY"):].splitlines()[1:]
    return {cells[0]: (cells[2], cells[3], cells[4]) for cells in (line.split(None, 4) for line in table)
            if len(cells) == 5}


def test_rfis_due_counts_each_request_at_its_own_step(capsys: pytest.CaptureFixture[str]) -> None:
    set_levels(capsys)
    assert cli("rfis", "due", "--within", "1d", "--breaches", "all") in (3, 4)
    before = breach_rows(capsys.readouterr().out)
    # Late to be claimed by more than a day: the answer is late to be made ready as well.
    rfi = next(i for i, (step, level, late) in before.items() if step == "unclaimed" and re.match(r"\d+ days? ", late))
    assert before[rfi][1] == "claim"
    assert cli("rfis", "claim", rfi) == 0
    assert cli("rfis", "wait", rfi, "--note", "asked for a bank statement") == 0
    capsys.readouterr()
    assert cli("rfis", "due", "--within", "1d", "--breaches", "all") in (3, 4)
    waiting = breach_rows(capsys.readouterr().out)
    assert rfi not in waiting, "a request waiting on the user breaches nothing"
    assert len(waiting) == len(before) - 1
    assert cli("rfis", "resume", rfi) == 0
    capsys.readouterr()
    assert cli("rfis", "due", "--within", "1d", "--breaches", "all") in (3, 4)
    assert breach_rows(capsys.readouterr().out)[rfi][:2] == ("claimed", "ready")
