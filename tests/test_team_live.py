"""Two consoles on one team record (alice's and bob's): each sees the other's claim and note within 2 s,
in place; the database down at start and coming back; the listener's reconnect with backoff."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from stablepay_console.sandbox import Sandbox
from stablepay_console.storage import locations
from stablepay_console.storage.postgres.listen import CHANNEL, Change, TeamListener
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.tui.team_live import DOWN_BADGE
from stablepay_console.tui.widgets.inbox.table import InboxTable
from stablepay_console.tui.widgets.rfi.notes import RfiNotesView
from tests.cli_e2e import free_port
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.postgres import TeamDb, wait_for
from tests.screen_output import terminal_text, visible_text
from tests.test_record_tui import open_detail

URL = "STABLEPAY_RECORD_URL"
HEARD_WITHIN = 30.0
"""Not a speed figure: with no key pressed and no auto-refresh, a change that shows at all came by the database's
announcement (the listener coalesces them into one re-read per 2 s); this only ends a test whose console never
hears it, on however busy a machine."""


async def until(pilot: Pilot[Any], check: Callable[[], bool], seconds: float = HEARD_WITHIN) -> float:
    """Seconds it took for `check` to hold (fails past `seconds`)."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > seconds:
            raise AssertionError(f"not within {seconds} s")
        await pilot.pause(0.05)
    return time.monotonic() - start


def console(make_app, monkeypatch: pytest.MonkeyPatch, url: str) -> Any:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(URL, url)
    return make_app()


class OtherConsole:
    """Bob's console, on a thread and event loop of its own (Textual keeps the running app in a context
    variable: two apps driven from one task would see each other's). `do(step)` runs a step there."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.steps: queue.Queue[Callable[[Pilot[Any]], Any] | None] = queue.Queue()
        self.done: queue.Queue[object] = queue.Queue()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        try:
            async with self.app.run_test(size=(80, 24)) as pilot:
                await wait_for_workers(pilot)
                self.done.put("started")
                while (step := await asyncio.to_thread(self.steps.get)) is not None:
                    self.done.put(await step(pilot))
        except BaseException as exc:
            self.done.put(exc)

    def do(self, step: Callable[[Pilot[Any]], Any]) -> Any:
        self.steps.put(step)
        return self.result()

    def result(self) -> Any:
        found = self.done.get(timeout=60)
        if isinstance(found, BaseException):
            raise found
        return found


@pytest.mark.postgres
async def test_two_consoles_see_each_others_claims_and_notes_within_two_seconds(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    rfi = sandbox.data.rfis[0]
    bob = OtherConsole(console(make_app, monkeypatch, team_db.url("bob")))
    alice = console(make_app, monkeypatch, team_db.url("alice"))
    bob.thread.start()
    assert await asyncio.to_thread(bob.result) == "started"
    try:
        async with alice.run_test(size=(80, 24)) as a:
            await wait_for_workers(a)
            await until(a, lambda: alice.team_listener.reachable and bob.app.team_listener.reachable, 10)
            inbox = alice.screen

            async def claim(pilot: Pilot[Any]) -> str:
                await open_detail(pilot, rfi)
                await pilot.press("m")
                await wait_for_workers(pilot)
                return pilot.app.screen.query_one(RfiNotesView).text

            assert "Claimed by you" in await asyncio.to_thread(bob.do, claim)
            took = await until(a, lambda: getattr(inbox.claims.marks.claims.get(rfi.id), "claimant", "") == "bob")
            await wait_for_workers(a)
            print(f"alice's console showed bob's claim {took:.2f} s after it")
            shown = visible_text(terminal_text(alice))
            # At 80x24 who is said in the detail: the status's mark is a bare ◇ (someone else's), so Kind stays.
            assert "◇" in shown and "Kind" in shown, "the claim is marked at 80x24, and the Kind column stays"

            alice_detail = await open_detail(a, rfi)
            assert "Claimed by bob since" in alice_detail.query_one(RfiNotesView).text

            async def write(pilot: Pilot[Any]) -> str:
                await pilot.press("n", *"Bank letter received", "enter")
                await wait_for_workers(pilot)
                return pilot.app.screen.query_one("#note-input", Input).value

            assert await asyncio.to_thread(bob.do, write) == ""
            await until(a, lambda: "bob: Bank letter received" in alice_detail.query_one(RfiNotesView).text)
            alice_detail.query_one(RfiNotesView).scroll_visible(animate=False, top=True)
            await wait_for_workers(a)
            shown = visible_text(terminal_text(alice))
            assert "Claimed by bob since" in shown and "bob: Bank letter received" in shown, "they fit at 80x24"
    finally:
        bob.steps.put(None)
        bob.thread.join(30)


async def test_down_at_start_the_console_works_and_a_note_stays_in_its_field(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    app = console(make_app, monkeypatch, f"postgresql://alice@127.0.0.1:{port}/team")
    rfi = sandbox.data.rfis[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await until(pilot, lambda: app.record_badge == DOWN_BADGE, 10)
        assert "TEAM RECORD UNREACHABLE" in visible_text(terminal_text(app))
        assert app.screen.query_one(InboxTable).rfis, "the inbox came from the API all the same"
        detail = await open_detail(pilot, rfi)
        view = detail.query_one(RfiNotesView)
        assert f"team record at 127.0.0.1:{port}/team cannot be reached" in str(view.query_one("#notes-error").render())
        await pilot.press("n", *"Do not lose me", "enter")
        await wait_for_workers(pilot)
        assert detail.query_one("#note-input", Input).value == "Do not lose me"
        assert "The note was not kept" in str(view.query_one("#notes-error").render())
    assert not (locations.data_dir() / "record.sqlite3").exists(), "nothing went to the local file instead"


def listening_session(db: TeamDb, role: str) -> tuple[int, str]:
    """The process and last statement of `role`'s one session (the listener's), as the superuser sees it."""
    with db.connect() as conn:
        row = conn.execute("SELECT pid, query FROM pg_stat_activity WHERE usename = %s AND backend_type = "
                           "'client backend'", (role,)).fetchone()
    return (int(row[0]), str(row[1])) if row else (0, "")


@pytest.mark.postgres
def test_the_listener_reconnects_with_backoff_and_asks_for_a_resync(team_db: TeamDb) -> None:
    heard: list[Change] = []
    states: list[bool] = []
    listener = TeamListener(parse(team_db.url("alice")), heard.append, lambda up, _: states.append(up),
                            first_wait=0.2, longest_wait=1.0).start()
    try:
        assert wait_for(lambda: states == [True], 10)
        bob = PgRecord(parse(team_db.url("bob")), lambda name: "s")
        bob.add_note("p", "r1", "", "first", FIXED_NOW)
        assert wait_for(lambda: any(c.kind == "notes" and c.who == "bob" and c.rfi_id == "r1" for c in heard), 3)
        team_db.server.stop()
        assert wait_for(lambda: states[-1] is False, 15)
        tries = listener.tries
        time.sleep(1.5)
        assert listener.tries - tries <= 4, "it backs off instead of hammering the server"
        team_db.server.start()
        assert wait_for(lambda: states[-1] is True, 15)
        assert any(c.kind == "resync" for c in heard)
        bob.add_note("p", "r2", "", "after", FIXED_NOW)  # the store reconnects by itself too
        assert wait_for(lambda: any(c.rfi_id == "r2" for c in heard), 3)
    finally:
        listener.stop()
        if not team_db.server.ctl("status").returncode == 0:
            team_db.server.start()


@pytest.mark.postgres
def test_live_changes_arrive_by_notify_not_polling(team_db: TeamDb) -> None:
    """One change is one notification: the listener's session hears it having read no table, only listened (and
    perhaps checked that the quiet connection still answers)."""
    arrived = threading.Event()
    listener = TeamListener(parse(team_db.url("alice")), lambda c: arrived.set() if c.kind == "claims" else None)
    listener.start()
    try:
        assert wait_for(lambda: listener.reachable is True, HEARD_WITHIN)
        PgRecord(parse(team_db.url("bob")), lambda name: "s").claim("p", "r", "", FIXED_NOW)
        assert arrived.wait(HEARD_WITHIN)
        assert listening_session(team_db, "alice")[1] in (f'LISTEN "{CHANNEL}"', "SELECT 1")
    finally:
        listener.stop()


@pytest.mark.postgres
def test_a_quiet_connection_is_checked_and_a_server_that_stops_answering_is_said_lost_then_found(
    team_db: TeamDb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that stops answering without closing the connection (stopped, a wedged proxy) gives no error and
    no announcement: the listener's own check of a quiet connection finds it, within its answer limit."""
    import os
    import signal

    from stablepay_console.storage.postgres import listen

    monkeypatch.setattr(listen, "CHECK_SECONDS", 0.2)  # a check each 0.2 s of quiet, not each 5 s
    monkeypatch.setattr(listen, "CHECK_ANSWER_SECONDS", 1.0)
    states: list[tuple[bool, str]] = []
    listener = TeamListener(parse(team_db.url("alice")), lambda change: None,
                            lambda up, why: states.append((up, why)), first_wait=0.2, longest_wait=0.5).start()
    try:
        assert wait_for(lambda: states == [(True, "")], HEARD_WITHIN)
        assert wait_for(lambda: listening_session(team_db, "alice")[1] == "SELECT 1", HEARD_WITHIN), "checked"
        assert states == [(True, "")], "a server that answers the check keeps the connection"
        pid, _ = listening_session(team_db, "alice")
        assert pid > 0, "the listener's session, never this process's group"
        os.kill(pid, signal.SIGSTOP)
        try:
            assert wait_for(lambda: len(states) > 1, HEARD_WITHIN)
        finally:
            os.kill(pid, signal.SIGCONT)
        up, why = states[1]
        where = parse(team_db.url("alice")).where
        assert up is False and why.startswith(f"The team record at {where} was lost: ")
        assert "closed the connection" in why, "the connection the check cut, in libpq's words"
        assert wait_for(lambda: states[-1] == (True, ""), HEARD_WITHIN), "a new connection once the server answers"
    finally:
        listener.stop()
