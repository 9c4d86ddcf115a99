"""The evidence pack's README.md as an auditor reads it (services/export/evidence_readme.py): every section in its
order and words, the request's own text escaped so it cannot start Markdown of its own, and what is not known said
in words ("Not claimed.", "No notes.") rather than left out."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from stablepay_console import __version__
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.export.evidence_readme import readme
from stablepay_console.storage.record_types import AuditEntry, Imported, Note, RfiHistory, RfiRecord, RoundSeen
from stablepay_console.wiring import Services
from tests.test_audit_chain import cli
from tests.test_evidence import clock, out, services, two_rounds  # noqa: F401
from tests.test_record_history import Clock

HASH = re.compile(r"hash ([0-9a-f]{16})…")

TWO_ROUNDS = (Path(__file__).parent / "expected" / "evidence_readme_two_rounds.md").read_text(encoding="utf-8")
"""The README of `two_rounds`, with the request's ID, the time, writer and version of the writing, and each entry's
hash as placeholders."""


async def test_the_readme_of_a_request_seen_in_two_rounds_reads_in_full(
    services: Services, sandbox: Sandbox, clock: Clock, out: Path, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    rfi_id = await two_rounds(services, sandbox, clock)
    assert cli("rfis", "evidence", rfi_id, "--output", str(out / "pack")) == 0
    text = (out / "pack" / "README.md").read_text(encoding="utf-8")
    written = re.search(r"^Written (\d{4}-\d\d-\d\d \d\d:\d\d UTC) by (\S+) with stablepay-console (\S+), ", text, re.M)
    assert written is not None and written.group(3) == __version__
    entries = services.record.call(lambda record: record.audit(target=rfi_id))
    assert HASH.findall(text) == [e.hash[:16] for e in entries[:2]]
    expected = TWO_ROUNDS.format(rfi=rfi_id, written=written.group(1), writer=written.group(2), version=__version__,
                                 hash="{hash}")
    assert HASH.sub("hash {hash}…", text) == expected


def test_the_readme_of_a_request_never_seen_says_what_is_not_known() -> None:
    text = readme(RfiHistory(profile="embedded", rfi_id="rfi-1", record=None), [], None, [],
                  datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc), "alice", "1.2.3")
    assert text.split("\n")[:30] == [
        "# Evidence: request for information rfi-1",
        "",
        "Written 2026-11-20 09:30 UTC by alice with stablepay-console 1.2.3, from the local record of profile "
        "embedded. It holds what this console saw: the API returns only a request's current round, so earlier "
        "rounds are known only if the console fetched the request while they were open.",
        "",
        "## The request, as last seen",
        "",
        "Never seen by this console under this profile: nothing was recorded about it.",
        "",
        "## Rounds seen (0)",
        "",
        "No round was seen.",
        "",
        "## Status timeline",
        "",
        "No status was seen.",
        "",
        "## Claim and notes (0)",
        "",
        "Not claimed.",
        "",
        "No notes.",
        "",
        "## Actions recorded (0)",
        "",
        "No action on this request was recorded.",
        "",
        "## The files",
        "",
        "- rfi.json: the request as last seen.",
        "- rounds.json: every round entry (items, deadline, link state, answer time, what changed) and the "
        "status timeline.",
    ]


def test_text_that_could_start_markdown_is_escaped_in_every_field() -> None:
    text = readme(RfiHistory(profile="p|#*_`<>[]\\", rfi_id="rfi-1", record=None), [], None, [],
                  datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc), "a", "1")
    assert "profile p\\|\\#\\*\\_\\`\\<\\>\\[\\]\\\\." in text


AT = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
LONG = "a" * 2000


def cut(n: int) -> str:
    """What a field of LONG reads as, held to n characters."""
    return "a" * (n - 1) + "…"


def imported_round(**kw: object) -> RoundSeen:
    fields: dict[str, object] = dict(entry=1, round_no=1, round_id="r-1", issued_at=AT, expires_at=None,
                                     submitted_at=None, link=None, wire={}, first_seen=AT, last_seen=AT)
    fields.update(kw)
    return RoundSeen(**fields)  # type: ignore[arg-type]


def test_every_field_is_held_to_its_bound_and_what_was_imported_or_is_missing_is_said() -> None:
    record = RfiRecord(profile="embedded", rfi_id="rfi-1", environment="sandbox", status="issued",
                       wire={"id": "rfi-1", "transferId": LONG, "flowType": "onramp", "kind": "aml"},
                       has_round=True, first_seen=AT, last_seen=AT, imported_by="carol")
    history = RfiHistory(profile="embedded", rfi_id="rfi-1", record=record, rounds=[
        imported_round(imported_by="carol", submitted_at=AT + timedelta(hours=2), link=LONG)])
    note = Note(note_id=1, profile="embedded", rfi_id="rfi-1", author=LONG, at=AT, text=LONG,
                imported=Imported(source="laptop", by=LONG, on=AT, written_as="dave"))
    entry = AuditEntry(seq=7, at="2026-11-20T09:30:00.000+00:00", actor=LONG, profile="embedded",
                       environment="sandbox", action="x." + LONG, target="rfi-1", outcome=LONG, detail="{}",
                       prev_hash="0" * 64, hash="f" * 64, imported=Imported(source="laptop", by=LONG, on=AT,
                                                                              written_as="dave"))
    text = readme(history, [note], None, [entry], AT, LONG, "1")
    lines = text.split("\n")
    imported = "imported by carol from a local record: not seen by the team watcher; it counts in no total"
    assert f"Written 2026-11-20 09:30 UTC by {cut(80)} with stablepay-console 1, from the local record of " \
           "profile embedded (sandbox). It holds" in text
    assert f"**Imported**: {imported}." in lines
    assert f"- Held transfer: {cut(200)}" in lines and "- Flow: onramp" in lines and "- Kind: aml" in lines
    assert f"- **Imported**: {imported}" in lines
    assert "- Deadline: none given" in lines and "- Answered: 2026-11-20 11:30 UTC" in lines
    assert f"- Hosted link: open ({cut(300)})" in lines
    assert "No items." in lines
    assert "Not claimed." in lines
    assert f"- 2026-11-20 09:30 UTC, {cut(80)} ({('imported by ' + LONG)[:299]}…): {cut(1000)}" in lines
    # An act the console has no words for is shown as its name.
    assert (f"- #7 2026-11-20T09:30:00.000+00:00 · {cut(80)} · x.{cut(58)} · outcome: {cut(200)} · hash "
            f"{'f' * 16}… · {('imported by ' + LONG)[:299]}…") in lines


def test_a_round_with_no_link_says_it_is_gone_and_prints_no_empty_brackets() -> None:
    record = RfiRecord(profile="embedded", rfi_id="rfi-1", environment="sandbox", status="issued", wire={},
                       has_round=True, first_seen=AT, last_seen=AT)
    history = RfiHistory(profile="embedded", rfi_id="rfi-1", record=record, rounds=[imported_round()])
    lines = readme(history, [], None, [], AT, "a", "1").split("\n")
    assert "- Hosted link: gone" in lines and "- Answered: not answered" in lines
    assert not any(line.startswith("**Imported**") or line.startswith("- **Imported**") for line in lines)
