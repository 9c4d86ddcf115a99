"""The needs-action view in team mode: from the team record while a team watcher is fresh (the API is not
asked for every issued request), from the API as before when the watcher's last sweep is stale."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from textual.widgets import Static

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.history import sighting
from stablepay_console.services.needs_action import needs_action_order
from stablepay_console.services.team.scope import server_key
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record_types import SeenPage
from stablepay_console.tui.screens.inbox import InboxScreen
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.postgres import TeamDb

pytestmark = pytest.mark.postgres

URL = "STABLEPAY_RECORD_URL"


def counting(sandbox: Sandbox) -> list[str]:
    """Every request the sandbox answers from now on, as `path?query`."""
    asked: list[str] = []
    inner = sandbox.app

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            asked.append(f"{scope['path']}?{scope['query_string'].decode()}")
        await inner(scope, receive, send)

    sandbox.app = app  # type: ignore[assignment]
    return asked


def issued_lists(asked: list[str]) -> list[str]:
    return [a for a in asked if a.startswith("/v2/rfis?") and "status=issued" in a]


def swept_by_alice(sandbox: Sandbox, team_db: TeamDb) -> list[str]:
    """The team watcher (walt) saw every request of the sandbox and marked a sweep; the expected needs-action IDs."""
    rfis = list(sandbox.data.rfis)
    alice = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    page = SeenPage("embedded", EMBEDDED_PROFILE.environment, FIXED_NOW, tuple(sighting(r) for r in rfis))
    alice.observe([page])
    alice.mark_sweep("embedded", 300, json.dumps({"issued": []}))
    alice.close()
    with team_db.connect() as conn:  # a row that does not parse, and another server's issued request: neither shown
        other = next(r for r in rfis if r.status == "issued").model_copy(update={"id": "elsewhere"})
        for server, rfi_id, wire in (
            (server_key(EMBEDDED_PROFILE), "broken", "{not json"),
            ("production https://elsewhere", "elsewhere", other.model_dump_json()),
        ):
            conn.execute(
                "INSERT INTO stablepay.rfis (server, rfi_id, environment, status, fingerprint, wire, first_seen, "
                "last_seen) VALUES (%s, %s, 'sandbox', 'issued', 'x', %s, '2024-01-01T00:00:00Z', "
                "'2024-01-01T00:00:00Z')",
                (server, rfi_id, wire),
            )
    ordered, _ = needs_action_order([r for r in rfis if r.status == "issued"], FIXED_NOW)
    return [r.id for r in ordered]


def status_text(app: Any) -> str:
    return str(app.screen.query_one("#inbox-status", Static).render())


async def bob_opens_needs_action(make_app: Any, team_db: TeamDb, asked: list[str],
                                 monkeypatch: pytest.MonkeyPatch) -> tuple[InboxScreen, Any, str]:
    """Bob's console in team mode at 80x24 presses `a`: its inbox, the view's rows (loaded) and its status line.
    `asked` is emptied first, so it holds only what the view asked of the API."""
    monkeypatch.setenv(URL, team_db.url("bob"))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        asked.clear()
        await pilot.press("a")
        await wait_for_workers(pilot)
        screen = app.screen
        assert isinstance(screen, InboxScreen)
        return screen, screen.paging.action.current, status_text(app)


async def test_needs_action_comes_from_a_fresh_team_watcher(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = swept_by_alice(sandbox, team_db)
    asked = counting(sandbox)
    screen, found, status = await bob_opens_needs_action(make_app, team_db, asked, monkeypatch)
    assert found is not None and [r.id for r in found.value] == expected
    assert issued_lists(asked) == [], "the API was not asked for every issued request"
    assert found.provenance.origin.startswith("from the team watcher's sweep, ")
    assert re.search(r"from the team watcher's sweep, \d+ s ago", status), status
    assert "from the team watcher's sweep" in found.provenance.describe()
    assert screen.paging.overdue == {r.id for r in found.value if r.deadline and r.deadline <= FIXED_NOW}


async def test_needs_action_reads_the_api_when_the_watcher_is_stale(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = swept_by_alice(sandbox, team_db)
    with team_db.connect() as conn:  # the watcher stopped: its last sweep is older than two intervals
        conn.execute("SET session_replication_role = replica")  # a superuser, past the trigger that stamps it
        conn.execute("UPDATE stablepay.sweeps SET swept_at = now() - interval '11 minutes'")
    asked = counting(sandbox)
    _, found, status = await bob_opens_needs_action(make_app, team_db, asked, monkeypatch)
    assert found is not None and [r.id for r in found.value] == expected
    assert issued_lists(asked), "read from the API as without a team watcher"
    assert found.provenance.origin == "" and "team watcher" not in status


def test_rfis_due_reads_a_fresh_team_watcher_and_live_asks_the_api(  # type: ignore[no-untyped-def]
    sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from stablepay_console.cli.main import main
    from stablepay_console.services.watch import walk

    swept_by_alice(sandbox, team_db)
    monkeypatch.setenv(URL, team_db.url("bob"))
    asked: list[object] = []
    api_read = walk.walk_issued

    async def read_the_api(*args: Any) -> Any:  # the real walk of every issued request, counted
        asked.append(args)
        return await api_read(*args)

    monkeypatch.setattr(walk, "walk_issued", read_the_api)
    from_team = main(["rfis", "due", "--within", "24h", "--json"])
    said = capsys.readouterr()
    assert asked == [], "the team watcher's sweep answered: the API was not asked"
    assert "from the team watcher (walt), swept " in said.err
    live = main(["rfis", "due", "--within", "24h", "--json", "--live"])
    live_said = capsys.readouterr()
    assert asked, "--live asks the API"
    assert "from the team watcher" not in live_said.err

    def due(out: str) -> list[str]:
        return sorted(r["id"] for r in json.loads(out))

    from datetime import datetime, timedelta, timezone

    by = datetime.now(timezone.utc) + timedelta(hours=24)
    expected = sorted(r.id for r in sandbox.data.rfis if r.status == "issued" and r.deadline and r.deadline <= by)
    assert (from_team, due(said.out)) == (4, expected)  # what the watcher saw, overdue included
    assert live in (0, 3, 4) and isinstance(json.loads(live_said.out), list)


def test_the_first_rows_come_first_in_needs_action_order(sandbox: Sandbox, team_db: TeamDb) -> None:
    from stablepay_console.services.team.needs_action import parsed

    swept_by_alice(sandbox, team_db)
    walt = PgRecord(parse(team_db.url("walt")), lambda name: server_key(EMBEDDED_PROFILE))
    first = walt.issued_first("embedded", FIXED_NOW, 5)
    assert first is not None
    rows, total = first
    issued = [r for r in sandbox.data.rfis if r.status == "issued"]
    ahead = [r.id for r in needs_action_order(issued, FIXED_NOW)[0] if r.deadline and r.deadline > FIXED_NOW]
    assert [parsed(w, rw).id for w, rw, _ in rows] == ahead[:5]  # type: ignore[union-attr]
    assert total == len(issued) + 1  # and the row that does not parse, which the view leaves out


def test_rfis_due_from_the_team_watcher_lists_each_breach_of_its_issued_rows(  # type: ignore[no-untyped-def]
    sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The breaches of the requests the watcher saw issued, as the inbox reckons each row; the row that does not
    parse and another server's request are not among them."""
    from datetime import datetime, timezone

    from stablepay_console.cli.main import main
    from stablepay_console.services.triage.due import row_triage
    from stablepay_console.storage.record_triage_types import TriagePolicy
    from tests.test_triage_cli import breach_rows

    def breached(now: datetime) -> set[tuple[str, str, str]]:
        found = set()
        for rfi in sandbox.data.rfis:
            shown = row_triage(rfi, None, (), TriagePolicy(), now) if rfi.status == "issued" else None
            if shown is not None and shown.left is not None and shown.left.breached:
                found.add((rfi.id, shown.step, shown.left.level))
        return found

    swept_by_alice(sandbox, team_db)
    monkeypatch.setenv(URL, team_db.url("bob"))
    before = breached(datetime.now(timezone.utc))
    assert main(["rfis", "due", "--within", "24h", "--breaches", "all"]) == 4
    after = breached(datetime.now(timezone.utc))
    said = capsys.readouterr()
    assert "from the team watcher (walt), swept " in said.err
    listed = {(rfi_id, step, level) for rfi_id, (step, level, _) in breach_rows(said.out).items()}
    assert before & after <= listed <= before | after and listed
    assert not {"broken", "elsewhere"} & {rfi_id for rfi_id, _, _ in listed}
