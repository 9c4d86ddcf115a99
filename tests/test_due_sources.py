"""`rfis due` has one pipeline and two sources: a request the team watcher recorded prints exactly as the same request
read from the API (its row, its `--json`), though no model is built for it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from stablepay_console.cli.due import DUE_COLUMNS
from stablepay_console.cli.kept_json import compact_text, dumps_text
from stablepay_console.cli.rfis import row_of, stored_row_of
from stablepay_console.cli.wire import dumps
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.history import sighting
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.record_types import SeenPage, kept_text, parse_stamp
from stablepay_console.storage.team.store import PgRecord
from stablepay_console.storage.team.url import parse
from tests.conftest import FIXED_NOW
from tests.postgres import TeamDb


@pytest.mark.postgres
def test_a_request_the_watcher_saw_prints_as_the_api_sent_it(sandbox: Sandbox, team_db: TeamDb) -> None:
    rfis = list(sandbox.data.rfis)
    walt = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    walt.observe([SeenPage("embedded", EMBEDDED_PROFILE.environment, FIXED_NOW, tuple(sighting(r) for r in rfis))])
    by = FIXED_NOW + timedelta(days=30)
    due = walt.issued_due("embedded", by, rounds=True)
    walt.close()
    sent = {r.id: r for r in rfis}
    expected = sorted((r.deadline, r.id) for r in rfis if r.status == "issued" and r.deadline and r.deadline <= by)
    assert [rfi_id for rfi_id, *_ in due] == [rfi_id for _, rfi_id in expected] and due  # nearest first, then by ID

    from_api, from_watcher = row_of(DUE_COLUMNS, FIXED_NOW), stored_row_of(DUE_COLUMNS, FIXED_NOW)
    for issued in due:
        rfi = sent[issued[0]]
        assert from_watcher(issued, parse_stamp(issued[4])) == from_api(rfi)
        assert dumps_text(kept_text(issued[1], issued[3])) == dumps(rfi)
        assert compact_text(kept_text(issued[1], issued[3])) == dumps(rfi, indent=None)  # into a pipe: as kept


@pytest.mark.postgres
def test_without_the_rounds_json_a_row_still_has_its_round(sandbox: Sandbox, team_db: TeamDb) -> None:
    rfis = [r for r in sandbox.data.rfis if r.status == "issued" and r.deadline is not None][:5]
    walt = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    walt.observe([SeenPage("embedded", EMBEDDED_PROFILE.environment, FIXED_NOW, tuple(sighting(r) for r in rfis))])
    due = walt.issued_due("embedded", FIXED_NOW + timedelta(days=365))
    walt.close()
    assert {i[3] for i in due} == {None}, "a row printed needs the round's number, not its JSON"
    rows = {i[0]: stored_row_of(DUE_COLUMNS, FIXED_NOW)(i, parse_stamp(i[4])) for i in due}
    assert rows == {r.id: row_of(DUE_COLUMNS, FIXED_NOW)(r) for r in rfis}


def test_a_recorded_request_whose_json_does_not_parse_keeps_its_id() -> None:
    row = stored_row_of(DUE_COLUMNS, FIXED_NOW)(("rfi-1", "{not json", 2, None, "2026-11-21T09:30:00+00:00"),
                                                parse_stamp("2026-11-21T09:30:00+00:00"))
    assert row[0] == "rfi-1" and row[3] == "2" and row[5] == "in 1d 0h"
