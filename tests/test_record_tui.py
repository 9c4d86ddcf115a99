"""The record in the console: the RFI detail shows rounds seen, notes and the claim; the audit view filters."""

from __future__ import annotations

import webbrowser
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from stablepay_console.api.models import Rfi
from stablepay_console.sandbox import Sandbox
from stablepay_console.storage.record_types import AuditEntry
from stablepay_console.tui.screens.audit import AuditScreen
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.rfi.history import RfiHistoryView
from stablepay_console.tui.widgets.rfi.notes import RfiNotesView
from tests.conftest import FIXED_NOW, open_mode, until, wait_for_workers
from tests.test_record_history import issued

SIZE = (120, 40)


def audit(app: Any, action: str | None = None) -> list[AuditEntry]:
    app.services.record.flush()
    return [e for e in app.services.record.call(lambda r: r.audit()) if action is None or e.action == action]


async def open_detail(pilot: Pilot[Any], rfi: Rfi) -> RfiDetailScreen:
    await wait_for_workers(pilot)
    screen = RfiDetailScreen(rfi)
    await pilot.app.push_screen(screen)
    await wait_for_workers(pilot)
    for field in screen.query(Input):
        field.cursor_blink = False
    return screen


async def test_the_detail_shows_the_rounds_seen_and_what_changed(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    index, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)  # the inbox's first page is recorded
        assert rfi.round is not None
        again = rfi.round.model_copy(update={"id": "99999999-9999-4999-8999-999999999991", "round": 2,
                                              "expires_at": FIXED_NOW + timedelta(days=4)})
        sandbox.data.rfis[index] = rfi.model_copy(update={"round": again, "current_round": 2})
        await pilot.press("r")
        await wait_for_workers(pilot)
        screen = await open_detail(pilot, sandbox.data.rfis[index])
        text = screen.query_one(RfiHistoryView).text
        assert "Entry 1: round 1" in text and "Entry 2: round 2" in text
        assert "compliance asked again: round 2 (was round 1)" in text
        assert "deadline 2026-11-24 09:30 UTC" in text and "Status timeline" in text
        # h brings the history, below the fold at first, wholly into view.
        body = screen.query_one("#rfi-body", VerticalScroll)
        history = screen.query_one(RfiHistoryView)
        assert not body.region.contains_region(history.region), "the history starts below the fold"
        await pilot.press("h")
        await wait_for_workers(pilot)
        assert body.scroll_y > 0
        assert body.region.contains_region(history.region), (body.region, history.region)


async def test_a_note_typed_in_the_detail_is_kept_shown_and_audited(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot, rfi)
        await pilot.press("n")
        assert isinstance(app.focused, Input) and app.focused.id == "note-input"
        await pilot.press(*"Asked for the bank letter")
        await pilot.press("enter")
        await wait_for_workers(pilot)
        view = screen.query_one(RfiNotesView)
        assert "Asked for the bank letter" in view.text and app.focused.value == ""
        await pilot.press("escape")  # leaves the field, not the screen
        await pilot.pause()
        assert app.screen is screen
        screen.query_one("#note-input", Input).value = "   "
        screen.query_one(RfiNotesView).post_message(RfiNotesView.NoteTyped("   "))
        await wait_for_workers(pilot)
        assert "The note is empty." in str(screen.query_one("#notes-error").render())
    notes = app.services.record.call(lambda r: r.notes("embedded", rfi.id))
    assert [n.text for n in notes] == ["Asked for the bank letter"]
    (entry,) = audit(app, "note.add")
    assert entry.target == rfi.id and entry.details["text"] == "Asked for the bank letter"


async def test_m_claims_and_releases_and_someone_elses_claim_is_respected(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot, rfi)
        await pilot.press("m")
        await wait_for_workers(pilot)
        assert "Claimed by you" in screen.query_one(RfiNotesView).text
        await pilot.press("m")
        await wait_for_workers(pilot)
        assert "Not claimed" in screen.query_one(RfiNotesView).text
        app.services.record.call(lambda r: r.claim("embedded", rfi.id, "bob", FIXED_NOW))
        await pilot.press("m")
        await wait_for_workers(pilot)
        assert "Claimed by bob" in screen.query_one(RfiNotesView).text
    assert [e.outcome for e in audit(app) if e.action.startswith("claim")] == [
        "claimed", "released", "refused: claimed by bob"]


async def test_e_writes_the_evidence_pack_in_the_current_folder(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, rfi = issued(sandbox)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("e")
        await wait_for_workers(pilot)
    (pack,) = work.iterdir()
    assert pack.name == f"evidence-{rfi.id}-20261120-093000"
    assert {p.name for p in pack.iterdir()} == {"rfi.json", "rounds.json", "notes.json", "audit.json", "README.md"}
    assert f"# Evidence: request for information {rfi.id}" in (pack / "README.md").read_text()
    (entry,) = audit(app, "evidence.write")
    assert entry.details["folder"] == str(pack)


async def test_opening_and_copying_the_hosted_link_are_audited(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, rfi = issued(sandbox)
    monkeypatch.setattr(webbrowser, "open", lambda url: True)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("o", "l")
        await wait_for_workers(pilot)
    assert [(e.action, e.target) for e in audit(app) if e.action.startswith("link")] == [
        ("link.open", rfi.id), ("link.copy", rfi.id)]
    assert audit(app, "link.open")[0].outcome == "opened in a browser"


def notices(app: Any) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app.said]


async def test_o_on_a_machine_with_no_browser_is_logged_as_not_opened(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No browser on PATH, no display, no BROWSER: Python's webbrowser finds none and says False. The console
    says no browser could open it, and so does the log (under the pilot's headless driver nothing takes a copy
    either)."""
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # look the browsers up again, in this environment
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("o")
        await wait_for_workers(pilot)
        assert "Link not opened: No browser could be opened here, and no terminal is attached to copy the link to." \
            in notices(app)
    (opened,) = audit(app, "link.open")
    assert (opened.target, opened.outcome) == (rfi.id, "failed: no browser could be opened; not copied either "
                                                       "(no terminal)")


async def test_a_copy_no_terminal_received_is_logged_as_not_copied(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    """Textual's headless driver writes nothing anywhere: the OSC 52 of a copy reaches no terminal, and the
    console and the log say so instead of "copied"."""
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("l")
        await wait_for_workers(pilot)
        assert "Not copied: The hosted link was not copied: no terminal is attached to take it." in notices(app)
        assert not any(n.startswith("Copied") for n in notices(app))
    (copied,) = audit(app, "link.copy")
    assert (copied.target, copied.outcome) == (rfi.id, "failed: no terminal to send it to")


async def test_the_audit_view_lists_newest_first_filters_and_checks_the_chain(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    _, rfi = issued(sandbox)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, rfi)
        await pilot.press("m")
        await wait_for_workers(pilot)
        await pilot.press("escape")
        screen = await open_mode(pilot, "audit")
        assert isinstance(screen, AuditScreen)
        await wait_for_workers(pilot)
        assert "The audit log is intact" in str(screen.query_one("#audit-chain").render())
        table = screen.query_one(DataTable)
        actions = [str(table.get_row_at(i)[4]) for i in range(table.row_count)]
        assert actions == ["claimed a request", "pinged the API"], "newest first"
        await pilot.press("slash")
        await pilot.press(*rfi.id[:8], "enter")
        await pilot.pause()
        assert table.row_count == 1 and str(table.get_row_at(0)[5]) == rfi.id[:8] + "…"
        assert "1 of the latest 2 entries matching" in str(screen.query_one("#audit-status").render())
        await pilot.press("x")
        await pilot.pause()
        assert table.row_count == 2


async def test_the_inbox_marks_claims_and_filters_claimed_by_me_or_unclaimed(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.tui.widgets.inbox.table import InboxTable

    first, second, third = sandbox.data.rfis[0], sandbox.data.rfis[1], sandbox.data.rfis[2]
    app = make_app()
    app.services.record.call(lambda r: r.claim("embedded", second.id, "bob", FIXED_NOW))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)

        def statuses() -> dict[str, str]:
            return {str(table.get_cell(rfi.id, "status")): rfi.id for rfi in table.order}

        assert f"{second.status} ◆ bob" in statuses()
        await pilot.press("enter")  # the first request's detail: claim it there
        await wait_for_workers(pilot)
        await pilot.press("m")
        await wait_for_workers(pilot)
        await pilot.press("escape")
        await wait_for_workers(pilot)
        assert statuses()[f"{first.status} ◆ me"] == first.id, "the claim made in the detail shows on return"
        await pilot.press("m")
        await pilot.pause()
        assert [r.id for r in table.order] == [first.id]
        assert "Claims: claimed by me (this page)" in str(app.screen.query_one("#inbox-active").render())
        await pilot.press("m")
        await pilot.pause()
        ids = [r.id for r in table.order]
        assert first.id not in ids and second.id not in ids and third.id in ids
        await pilot.press("m")
        await pilot.pause()
        assert table.row_count == 20


async def test_a_damaged_record_is_set_aside_and_the_console_says_so(make_app) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.storage.local import record_file

    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database " * 500)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        app.services.record.flush()
        await wait_for_workers(pilot)
        said = [n.message for n in app.said if n.title == "Local record"]
        assert len(said) == 1 and "could not be read" in said[0] and "new record was started" in said[0]
    kept = [p.name for p in path.parent.iterdir() if ".unreadable-" in p.name]
    assert len(kept) == 1 and kept[0] in said[0]


async def test_a_record_from_a_newer_console_is_left_alone_and_the_console_says_so(make_app) -> None:  # type: ignore[no-untyped-def]
    import sqlite3

    from stablepay_console.storage.local import record_file
    from stablepay_console.storage.local.schema import LATEST

    path = record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST + 1}")
    before = path.read_bytes()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        app.services.record.flush()
        await wait_for_workers(pilot)
        said = [n for n in app.said if n.title == "Local record"]
        assert len(said) == 1 and said[0].severity == "error" and "newer stablepay-console" in said[0].message
        assert app.screen.query_one("InboxTable").row_count == 20, "the console works on"
    assert path.read_bytes() == before


async def test_a_rehashed_log_is_named_by_the_console_at_start(make_app) -> None:  # type: ignore[no-untyped-def]
    """The console looks at its witness when the record opens: a log re-hashed since it last looked is said at once."""
    from tests.test_audit_chain import rehash_all, write_log

    write_log()
    assert make_app().services.record.call(lambda r: r.audit_head()) is not None  # this machine sees 6 entries
    rehash_all(("UPDATE audit SET actor = 'someone else' WHERE seq = 3",))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.services.record.flush()
        await until(pilot, lambda: any(n.title == "Local record" for n in app.said), "nothing was said")
        (said,) = [n for n in app.said if n.title == "Local record"]
        assert said.severity == "warning" and "Entry 6 of the audit log no longer has the hash" in said.message
        assert "audit verify" in said.message
