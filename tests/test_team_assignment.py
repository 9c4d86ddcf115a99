"""Assignment in the team record, on the real PostgreSQL, attacked as a member would (`psql` as alice).

- a lead (carol) assigns a request to an analyst: the analyst holds its claim, the lead is named, the claim log and
  the audit entry `triage.assign` say so, and the report counts it for the lead;
- an analyst cannot assign, from the console or from `psql` (calling the function, setting the function's own
  setting by hand, writing `assigned_by`, typing the audit entry);
- only the team's people may be assigned a request: not a login outside the team, the watcher, a group role;
- a held request is reassigned only when asked to (`--reassign`), and the entry says whom it was taken from;
- an analyst extending an assigned claim keeps it assigned, and makes no assignment.
"""

from __future__ import annotations

import json

import psycopg
import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.services.audit import verify
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from tests.postgres import TeamDb

pytestmark = pytest.mark.postgres

RFI = "33333333-3333-4333-8333-333333333333"
SERVER = server_key(EMBEDDED_PROFILE)


def record(db: TeamDb, role: str) -> PgRecord:
    return PgRecord(parse(db.url(role)), lambda name: SERVER if name else "")


def assign(*argv: str) -> int:
    return main(["rfis", "assign", RFI, *argv])


def claim_row(db: TeamDb, rfi: str = RFI) -> tuple[str, str | None] | None:
    with db.connect() as conn:
        row = conn.execute("SELECT claimant, assigned_by FROM stablepay.claims WHERE rfi_id = %s", (rfi,)).fetchone()
    return (str(row[0]), row[1]) if row else None


def assign_entries(db: TeamDb) -> list[tuple[str, str]]:
    bob = record(db, "bob")
    try:
        assert verify(bob).ok
        return [(e.actor, e.outcome) for e in bob.audit() if e.action == "triage.assign"]
    finally:
        bob.close()


def test_a_lead_assigns_a_request_and_the_analyst_holds_it(  # type: ignore[no-untyped-def]
    as_role, team_db: TeamDb, capsys: pytest.CaptureFixture[str]
) -> None:
    as_role("carol")
    assert assign("--to", "bob", "--json") == 0
    said = json.loads(capsys.readouterr().out)
    assert (said["assignedTo"], said["assignedBy"], said["previous"]) == ("bob", "carol", None)
    assert claim_row(team_db) == ("bob", "carol")
    bob = record(team_db, "bob")
    try:
        held = bob.claims(EMBEDDED_PROFILE.name)[RFI]
        assert (held.claimant, held.assigned_by) == ("bob", "carol")
    finally:
        bob.close()
    assert assign_entries(team_db) == [("carol", "assigned to bob")]
    with team_db.connect() as conn:
        assert conn.execute("SELECT op, claimant, by_role FROM stablepay.claim_log").fetchall() == [
            ("assign", "bob", "carol")]
    assert main(["rfis", "report", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["assignments"] == [{"lead": "carol", "assigned": 1}]


def test_an_analyst_cannot_assign_from_the_console(  # type: ignore[no-untyped-def]
    as_role, team_db: TeamDb, capsys: pytest.CaptureFixture[str]
) -> None:
    as_role("alice")
    assert assign("--to", "bob") == 1
    assert "only a lead assigns requests: alice is not a member of stablepay_lead" in capsys.readouterr().err
    assert claim_row(team_db) is None and assign_entries(team_db) == []


def test_an_analyst_cannot_assign_from_psql(team_db: TeamDb) -> None:
    with team_db.connect("alice") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only a lead assigns"):
            conn.execute("SELECT * FROM stablepay.assign(%s, '', %s, 'bob')", (SERVER, RFI))
        conn.rollback()
        # the function's own setting, set by hand, makes a claim of alice's own and no assignment
        conn.execute("SET stablepay.assigning = 'bob'")
        conn.execute("INSERT INTO stablepay.claims (server, rfi_id) VALUES (%s, %s)", (SERVER, RFI))
        conn.commit()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE stablepay.claims SET assigned_by = 'carol' WHERE rfi_id = %s", (RFI,))
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="written by the database with the act"):
            conn.execute("INSERT INTO stablepay.audit (profile, environment, action, target, outcome, detail, server) "
                         "VALUES ('', 'sandbox', 'triage.assign', %s, 'assigned to bob', '{}', %s)", (RFI, SERVER))
    assert claim_row(team_db) == ("alice", None)
    assert assign_entries(team_db) == []


@pytest.mark.parametrize("who", ["mallory", "walt", "stablepay_analyst", "stablepay_lead", "postgres", "nobody"])
def test_only_a_person_of_the_team_is_assigned_a_request(  # type: ignore[no-untyped-def]
    as_role, team_db: TeamDb, capsys: pytest.CaptureFixture[str], who: str
) -> None:
    as_role("carol")
    assert assign("--to", who) == 1
    assert f"{who} is not an analyst of the team" in capsys.readouterr().err
    assert claim_row(team_db) is None


def test_the_team_analysts_are_its_people(team_db: TeamDb) -> None:
    carol = record(team_db, "carol")
    try:
        assert [(m.name, m.lead) for m in carol.team_analysts()] == [("alice", False), ("bob", False),
                                                                      ("carol", True)]
    finally:
        carol.close()


def test_a_held_request_is_reassigned_only_when_asked(  # type: ignore[no-untyped-def]
    as_role, team_db: TeamDb, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rfis", "claim", RFI]) == 0  # alice
    as_role("carol")
    assert assign("--to", "bob") == 1
    assert "is held by alice; assigning it to bob takes it from them: add --reassign" in capsys.readouterr().err
    assert claim_row(team_db) == ("alice", None)
    assert assign("--to", "bob", "--reassign") == 0
    assert "assigned to bob by carol" in capsys.readouterr().err
    assert claim_row(team_db) == ("bob", "carol")
    assert assign_entries(team_db) == [("carol", "assigned to bob (taken from alice)")]


def test_extending_an_assigned_claim_keeps_it_assigned_and_assigns_nothing(  # type: ignore[no-untyped-def]
    as_role, team_db: TeamDb
) -> None:
    as_role("carol")
    assert assign("--to", "bob") == 0
    as_role("bob")
    assert main(["rfis", "claim", RFI, "--for", "4h"]) == 0
    assert claim_row(team_db) == ("bob", "carol")
    assert assign_entries(team_db) == [("carol", "assigned to bob")]
    with team_db.connect() as conn:
        assert [r[0] for r in conn.execute("SELECT op FROM stablepay.claim_log ORDER BY id")] == ["assign", "extend"]


def test_assignment_needs_the_team_record(capsys: pytest.CaptureFixture[str]) -> None:
    assert assign("--to", "bob") == 2
    assert "assignment needs the team record" in capsys.readouterr().err


async def test_the_analysts_console_says_a_request_was_assigned_to_them(  # type: ignore[no-untyped-def]
    make_app, sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stablepay_console.profiles.model import EMBEDDED_PROFILE as PROFILE
    from tests.conftest import wait_for_workers
    from tests.test_team_live import until
    from tests.test_triage_tui import until as settled

    rfi = sandbox.data.rfis[0]
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("bob"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await until(pilot, lambda: app.team_listener is not None and app.team_listener.reachable, 10)
        inbox = app.screen
        assert await settled(pilot, lambda: inbox.claims.marks.read_once)
        carol = PgRecord(parse(team_db.url("carol")), lambda name: server_key(PROFILE) if name else "")
        try:
            carol.assign(PROFILE.name, rfi.id, "bob")
        finally:
            carol.close()
        await until(pilot, lambda: any("carol assigned" in n.message and rfi.id in n.message
                                       for n in app.said), 5)
        assert inbox.claims.marks.mine(rfi.id)
        await pilot.press("m")  # the claimed-by-me filter
        table = inbox.table
        assert await settled(pilot, lambda: [r.id for r in table.order] == [rfi.id])


async def test_a_lead_assigns_and_releases_from_the_palette_after_a_question(  # type: ignore[no-untyped-def]
    make_app, sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stablepay_console.tui.modals.assign_picker import AssignPicker
    from stablepay_console.tui.modals.confirm import ConfirmScreen
    from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
    from tests.conftest import wait_for_workers
    from tests.test_layout_sizes import screen_lines
    from tests.test_triage_tui import until

    rfi = sandbox.data.rfis[0]
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("alice"))
    assert main(["rfis", "claim", rfi.id]) == 0  # alice holds it
    monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url("carol"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        detail = RfiDetailScreen(rfi)
        await app.push_screen(detail)
        assert await until(pilot, lambda: detail.case is not None and detail.case.claim is not None)

        async def palette(words: str) -> None:
            await pilot.press("ctrl+p", *words)
            assert await until(pilot, lambda: words in "\n".join(screen_lines(app)), rounds=300)
            await pilot.press("enter")

        await palette("Assign to")
        # The picker is the screen as soon as it is pushed; its list is there once it has mounted.
        assert await until(pilot, lambda: isinstance(app.screen, AssignPicker)
                           and bool(app.screen.query("#assign-list")), rounds=300)
        picker = app.screen
        # Every analyst of the team, in order (the server's cluster may hold other tests' logins after these).
        listed = [o.id for o in picker.query_one("#assign-list").options]  # type: ignore[attr-defined]
        assert listed[:3] == ["alice", "bob", "carol"] and listed == sorted(listed), listed
        await pilot.press("down", "enter")  # bob
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen)), "alice holds it: asked first"
        await pilot.press("y")
        assert await until(pilot, lambda: claim_row(team_db, rfi.id) == ("bob", "carol"), rounds=300)
        assert assign_entries(team_db) == [("carol", "assigned to bob (taken from alice)")]

        assert await until(pilot, lambda: detail.case is not None and detail.case.claim is not None
                           and detail.case.claim.claimant == "bob", rounds=300)
        await palette("Release claim")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), rounds=300), "asked first"
        await pilot.press("n")
        await wait_for_workers(pilot)
        assert claim_row(team_db, rfi.id) == ("bob", "carol"), "No keeps bob's claim"
        await palette("Release claim")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), rounds=300)
        await pilot.press("y")
        assert await until(pilot, lambda: claim_row(team_db, rfi.id) is None, rounds=300)


def test_a_closed_request_is_not_assigned(as_role, team_db: TeamDb,  # type: ignore[no-untyped-def]
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from stablepay_console.storage.record_types import RfiSighting, SeenPage
    from tests.conftest import FIXED_NOW

    walt = record(team_db, "walt")
    try:
        walt.observe([SeenPage(EMBEDDED_PROFILE.name, "sandbox", FIXED_NOW,
                               (RfiSighting(RFI, "submitted", "f1", '{"id": "x"}', None),))])
    finally:
        walt.close()
    as_role("carol")
    assert assign("--to", "bob") == 1
    assert f"{RFI} is closed: the provider says it is submitted" in capsys.readouterr().err
    assert claim_row(team_db) is None
