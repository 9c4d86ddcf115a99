"""`rfis due` has one pipeline and two sources: a request the team watcher recorded prints exactly as the same request
read from the API (its row, its `--json`), though no model is built for it."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from stablepay_console.api.models import Rfi
from stablepay_console.cli.due import DUE_COLUMNS
from stablepay_console.cli.kept_json import compact_text, dumps_text
from stablepay_console.cli.rfis import row_of, stored_row_of
from stablepay_console.cli.wire import dumps
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.history import sighting
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record_types import SeenPage, kept_text, parse_stamp
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


def issued_page(rfis: list, at: datetime) -> SeenPage:  # type: ignore[type-arg]
    return SeenPage("embedded", EMBEDDED_PROFILE.environment, at, tuple(sighting(r) for r in rfis))


def asked_again(rfi: Rfi, at: datetime) -> Rfi:
    """The same request with a new round: compliance asked again at `at`."""
    assert rfi.round is not None
    again = rfi.round.model_copy(update={"id": f"{rfi.round.id}-again", "round": rfi.round.round + 1,
                                         "issued_at": at, "expires_at": at + timedelta(days=3)})
    return rfi.model_copy(update={"round": again, "current_round": again.round})


@pytest.mark.postgres
def test_the_open_rounds_are_each_requests_current_round(sandbox: Sandbox, team_db: TeamDb) -> None:
    issued = [r for r in sandbox.data.rfis if r.status == "issued" and r.round is not None][:3]
    walt = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    walt.observe([issued_page(issued, FIXED_NOW)])
    later = FIXED_NOW + timedelta(hours=2)
    again = asked_again(issued[0], later)
    walt.observe([issued_page([again], later)])
    opened = {rfi_id: (n, parse_stamp(at), parse_stamp(by) if by else None)
              for rfi_id, n, at, by in walt.open_rounds("embedded")}
    due = {i[0]: i[2] for i in walt.issued_due("embedded", later + timedelta(days=365))}
    walt.close()
    assert again.round is not None and opened[again.id] == (again.round.round, later, again.deadline)
    assert due[again.id] == again.round.round, "the due row's round is the new one"
    for rfi in issued[1:]:
        assert rfi.round is not None and opened[rfi.id] == (rfi.round.round, rfi.round.issued_at, rfi.deadline)


@pytest.mark.postgres
def test_a_version_9_record_gets_its_open_rounds_from_its_rounds_and_nothing_else_moves(
    sandbox: Sandbox, bare_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stablepay_console.storage.postgres import history as seen
    from stablepay_console.storage.postgres import schema as record_pg_schema
    from stablepay_console.storage.postgres.schema import init_schema
    from tests.postgres import OWNER

    issued = [r for r in sandbox.data.rfis if r.status == "issued" and r.round is not None][:4]
    every = record_pg_schema.migrations()
    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every[:9])
    with bare_db.connect(OWNER) as conn:
        init_schema(conn)
    with bare_db.connect("walt") as conn, conn.transaction():  # version 9's watcher, written straight
        seen.observe(conn, lambda name: server_key(EMBEDDED_PROFILE), [issued_page(issued, FIXED_NOW)])
    moved = "SELECT rfi_id, facts FROM stablepay.request_held ORDER BY rfi_id"
    with bare_db.connect() as conn:
        before = conn.execute("SELECT seq, hash FROM stablepay.audit ORDER BY seq").fetchall(), \
            conn.execute(moved).fetchall(), conn.execute("SELECT rfi_id, last_seen FROM stablepay.rfis").fetchall()

    monkeypatch.setattr(record_pg_schema, "migrations", lambda: every)
    with bare_db.connect(OWNER) as conn:
        assert init_schema(conn).before == 9
    with bare_db.connect() as conn:
        after = conn.execute("SELECT seq, hash FROM stablepay.audit ORDER BY seq").fetchall(), \
            conn.execute(moved).fetchall(), conn.execute("SELECT rfi_id, last_seen FROM stablepay.rfis").fetchall()
    assert after == before, "the migration wrote no audit entry, moved no request's facts, changed no sighting"
    alice = PgRecord(parse(bare_db.url("alice")), lambda name: server_key(EMBEDDED_PROFILE))
    opened = {rfi_id: (n, parse_stamp(at)) for rfi_id, n, at, _ in alice.open_rounds("embedded")}
    alice.close()
    assert opened == {r.id: (r.round.round, r.round.issued_at) for r in issued if r.round is not None}
