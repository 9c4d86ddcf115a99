"""The RFI detail screen: each kind and state, items, link null reasons, copy keys, countdown, snapshots."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from stablepay_console.api.models import Rfi, RfiItem, RfiRound
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.formatters.rfi import status_long
from stablepay_console.tui.screens.inbox import InboxScreen
from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen
from stablepay_console.tui.widgets.rfi.items import RfiItemsTable
from tests.conftest import FIXED_NOW, wait_for_workers

SIZE = (120, 40)
RFI_ID = "11111111-1111-4111-8111-111111111111"
USER_ID = "22222222-2222-4222-8222-222222222222"
TRANSFER_ID = "33333333-3333-4333-8333-333333333333"
ROUND_ID = "44444444-4444-4444-8444-444444444444"
LINK = "https://sandbox.stablepay.example/rfi/respond/abc"

ITEMS = [
    RfiItem(id="55555555-0000-4000-8000-000000000001", kind="document", label="Proof of address",
            doc_type="proof_of_address", detail="Utility bill or bank letter", required=True),
    RfiItem(id="55555555-0000-4000-8000-000000000002", kind="document", label="Scanned bill",
            doc_type="utility_bill_scan", detail=None, required=False),
    RfiItem(id="55555555-0000-4000-8000-000000000003", kind="question", label="Purpose [bold]of[/bold] it?",
            doc_type=None, detail="Be specific", required=True),
    RfiItem(id="55555555-0000-4000-8000-000000000004", kind="document", label="Anything else",
            doc_type=None, detail=None, required=False),
]


def make_rfi(
    *,
    kind: str = "transaction",
    status: str = "issued",
    round_no: int | None = 1,
    link: str | None = LINK,
    submitted: datetime | None = None,
    expires: datetime | None = FIXED_NOW + timedelta(hours=5, minutes=12),
) -> Rfi:
    rnd = None
    if round_no is not None:
        rnd = RfiRound(id=ROUND_ID, round=round_no, issued_at=FIXED_NOW - timedelta(days=1), expires_at=expires,
                       submitted_at=submitted, items=ITEMS, link=link)
    fields: dict[str, Any] = {}
    if kind == "transaction":
        fields = {"transfer_id": TRANSFER_ID, "flow_type": "offramp"}
    return Rfi(id=RFI_ID, kind=kind, status=status, subject_type="business", user_id=USER_ID,
               created_at=FIXED_NOW - timedelta(days=1, hours=2), current_round=round_no, round=rnd, **fields)


async def open_detail(pilot: Pilot[object], rfi: Rfi) -> RfiDetailScreen:
    await wait_for_workers(pilot)
    screen = RfiDetailScreen(rfi)
    await pilot.app.push_screen(screen)
    await pilot.pause()
    return screen


def text(pilot: Pilot[object], widget_id: str) -> str:
    return str(pilot.app.screen.query_one(f"#{widget_id}", Static).render())


def panel(pilot: Pilot[object], widget_id: str) -> str:
    """The plain text a panel shows, rendered at its width."""
    from rich.console import Console

    widget = pilot.app.screen.query_one(f"#{widget_id}", Static)
    console = Console(width=widget.content_region.width or 58, record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


async def test_transaction_request_with_open_round(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi())
        request = panel(pilot, "rfi-request")
        for expected in (RFI_ID, "transaction", "issued", "waiting on a reply", "business", USER_ID,
                         "2026-11-19 07:30 UTC (1d 2h ago)"):
            assert expected in request
        assert "Flow" in request and "offramp" in request and TRANSFER_ID in request
        assert "stays held until this request is resolved" in " ".join(request.split())
        rnd = panel(pilot, "rfi-round")
        assert "1  (ID " + ROUND_ID in rnd and "2026-11-19 09:30 UTC" in rnd
        assert "2026-11-20 14:42 UTC" in rnd and "not yet answered" in rnd
        assert text(pilot, "rfi-countdown") == "Time left: in 5h 12m"
        assert LINK in text(pilot, "rfi-link")


async def test_a_burst_of_scroll_keys_moves_as_far_as_the_keys_add_up_to(make_app) -> None:  # type: ignore[no-untyped-def]
    """Six Downs handled before the screen refreshes (a busy machine, a held key) move six lines, and six Ups
    bring the top back: each key starts from where the one before left the body, not from the last refresh."""
    from stablepay_console.tui.screens.rfi_detail import DetailBody

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_detail(pilot, make_rfi())
        body = app.screen.query_one(DetailBody)
        await pilot.pause()
        assert body.max_scroll_y >= 6, "the request is longer than the screen at 80x24"
        for _ in range(6):  # in one go: no refresh between them
            body.action_scroll_down()
        await pilot.pause()
        assert body.scroll_y == 6
        for _ in range(6):
            body.action_scroll_up()
        await pilot.pause()
        assert body.scroll_y == 0
        body.action_page_down()
        body.action_page_down()
        await pilot.pause()
        assert body.scroll_y == min(2 * body.scrollable_content_region.height, body.max_scroll_y)


async def test_answered_round_has_no_countdown(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(status="submitted", link=None, submitted=FIXED_NOW - timedelta(hours=2)))
        assert text(pilot, "rfi-countdown") == "Answered; no reply is due."
        assert "2026-11-20 07:30 UTC" in panel(pilot, "rfi-round")


async def test_items_in_server_order_with_readable_types(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi())
        table = app.screen.query_one(RfiItemsTable)
        rows = [[str(c) for c in table.get_row(row.key)] for row in table.ordered_rows]
        assert [r[4] for r in rows] == [i.label for i in ITEMS]
        assert rows[0][1:4] == ["document", "required", "Proof of address"]
        assert rows[0][5] == "Utility bill or bank letter"
        assert rows[1][2] == "optional"
        assert rows[1][3].split() == ["Document", "(untyped:", "utility_bill_scan)"]  # broken between words
        assert rows[2][1:4] == ["question", "required", "written answer"]
        assert rows[2][4] == "Purpose [bold]of[/bold] it?"  # server text is never markup
        assert rows[3][3].split() == "Document (no standard type)".split()
        assert "Items (4)" in text(pilot, "rfi-items-title")


async def test_onboarding_request_holds_no_transfer(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(kind="onboarding"))
        assert "none: this request is about the user's own KYC/KYB" in " ".join(panel(pilot, "rfi-request").split())
        await pilot.press("t")
        await pilot.pause()
        assert app.clipboard == ""
        assert any("holds no transfer" in str(n.message) for n in app.said)


async def test_resolved_transaction_no_longer_held(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(status="resolved", link=None, submitted=FIXED_NOW - timedelta(hours=3)))
        request = " ".join(panel(pilot, "rfi-request").split())
        assert "resolved, so it no longer holds this transfer" in request
        assert "Closed: the request is resolved" in text(pilot, "rfi-link")


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"status": "submitted", "submitted": FIXED_NOW - timedelta(hours=2)},
         "Answered and under review: the link closed when the reply was submitted on 2026-11-20 07:30 UTC."),
        ({"status": "resolved"}, "Closed: the request is resolved, so the link can no longer be used."),
        ({"status": "expired", "expires": FIXED_NOW - timedelta(days=2)},
         "Closed: the deadline passed unanswered, so the link can no longer be used."),
        ({"status": "issued", "round_no": 2}, "Asked again: compliance opened round 2"),
        ({"status": "issued", "round_no": None}, "No round is open, so there is nothing to answer and no link."),
        ({"status": "issued"}, "The server gives no link for this round"),
    ],
    ids=["submitted", "resolved", "expired", "asked-again", "no-round", "unexplained"],
)
async def test_null_link_says_why(make_app, kwargs: dict[str, Any], reason: str) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    opened: list[str] = []
    app.open_link = lambda url, what="link": opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(link=None, **kwargs))
        assert text(pilot, "rfi-link").startswith("No hosted link. ")
        assert reason in text(pilot, "rfi-link")
        await pilot.press("o", "l")
        await pilot.pause()
        assert opened == [] and app.clipboard == ""
        assert sum(reason in str(n.message) for n in app.said) == 2


async def test_no_round_shows_no_items_and_no_deadline(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(status="resolved", round_no=None, link=None))
        assert "No round is open." in text(pilot, "rfi-round")
        assert text(pilot, "rfi-countdown") == ""
        assert "No items" in text(pilot, "rfi-items-title")
        assert "none open" in panel(pilot, "rfi-request")


async def test_unknown_status_shown_raw(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(status="escalated", link=None))
        status_line = next(ln for ln in panel(pilot, "rfi-request").splitlines() if ln.startswith("Status"))
        assert status_line.split() == ["Status", "escalated"]
        assert not status_long("escalated").spans and not str(status_long("escalated").style)


async def test_open_and_copy_the_link(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    opened: list[tuple[str, str]] = []
    app.open_link = lambda url, what="link": opened.append((url, what))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi())
        await pilot.press("o")
        assert opened == [(LINK, "hosted reply page")]
        await pilot.press("l")
        assert app.clipboard == LINK


async def test_past_its_deadline_the_link_is_not_offered_to_reply(make_app) -> None:  # type: ignore[no-untyped-def]
    """The round's deadline passed unanswered (the status may still say issued): a reply through the hosted link
    would be rejected, so the detail says so in the link's place and offers no `o`."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi(expires=FIXED_NOW - timedelta(hours=1)))
        shown = text(pilot, "rfi-link")
        assert shown.startswith("No reply can be sent: the deadline passed") and LINK not in shown
        assert text(pilot, "rfi-countdown") == "Time left: overdue"
        assert app.screen.check_action("open_link", ()) is False
        await open_detail(pilot, make_rfi())
        assert LINK in text(pilot, "rfi-link") and app.screen.check_action("open_link", ()) is True


async def test_every_id_copies_with_one_key(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot, make_rfi())
        for key, expected in (("c", RFI_ID), ("u", USER_ID), ("t", TRANSFER_ID), ("d", ROUND_ID), ("i", ITEMS[0].id)):
            await pilot.press(key)
            assert app.clipboard == expected, key
        await pilot.press("tab", "down", "down", "i")  # Tab: the items have the keys
        assert app.clipboard == ITEMS[2].id


async def test_countdown_ticks_to_overdue(sandbox: Sandbox) -> None:
    """A passed deadline is "overdue" (the banner's word), never "expired" (a status's)."""
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.wiring import Services

    now = [FIXED_NOW]
    app = ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=sandbox), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot, make_rfi())
        assert text(pilot, "rfi-countdown") == "Time left: in 5h 12m"
        now[0] = FIXED_NOW + timedelta(hours=5, minutes=11, seconds=15)
        screen.tick()
        await pilot.pause()
        assert text(pilot, "rfi-countdown") == "Time left: in 0m 45s"
        now[0] = FIXED_NOW + timedelta(hours=6)
        screen.tick()
        await pilot.pause()
        assert text(pilot, "rfi-countdown") == "Time left: overdue"


async def test_escape_returns_to_the_inbox_where_it_was(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("n", "down", "down")
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, RfiDetailScreen)
        assert app.screen.rfi.id == sandbox.data.rfis[22].id
        calls = len(sandbox.api_calls())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, InboxScreen)
        assert app.screen.table.highlighted_id == sandbox.data.rfis[22].id
        assert len(sandbox.api_calls()) == calls


# --- snapshots -------------------------------------------------------------------


def test_snapshot_detail_transaction_issued(make_app, sandbox: Sandbox, snap_compare) -> None:  # type: ignore[no-untyped-def]
    target = next(i for i, r in enumerate(sandbox.data.rfis) if r.kind == "transaction" and r.status == "issued")

    async def run_before(pilot: Pilot[object]) -> None:
        await wait_for_workers(pilot)
        await pilot.press(*(["down"] * target), "enter")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(ping_on_start=False), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_snapshot_detail_opens_at_its_top(make_app, sandbox: Sandbox, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
    """The request's title and its ID, status and user on the first screen, with the deadline and the link."""
    target = next(i for i, r in enumerate(sandbox.data.rfis) if r.kind == "transaction" and r.status == "issued")

    async def run_before(pilot: Pilot[object]) -> None:
        await wait_for_workers(pilot)
        await pilot.press(*(["down"] * target), "enter")
        await wait_for_workers(pilot)

    assert snap_compare(make_app(ping_on_start=False), terminal_size=size, run_before=run_before)


def test_snapshot_detail_submitted_without_link(make_app, snap_compare) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[object]) -> None:
        await open_detail(pilot, make_rfi(status="submitted", link=None, submitted=FIXED_NOW - timedelta(hours=2)))

    assert snap_compare(make_app(ping_on_start=False), terminal_size=SIZE, run_before=run_before)



async def test_a_request_dismissed_while_the_record_is_read_ends_quietly(make_app) -> None:  # type: ignore[no-untyped-def]
    """Back out of a request before the record has answered (a slow disk, a busy team database): the screen's
    panels go first, the screen last, so the reads that come back in between find nothing to fill, and the
    console carries on without an error (it used to fail the worker with NoMatches)."""
    import threading

    from stablepay_console.tui.triage.process_view import StepHistory
    from stablepay_console.tui.widgets.rfi.history import RfiHistoryView
    from stablepay_console.tui.widgets.rfi.record import RfiRecordPanel

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        detail = await open_detail(pilot, make_rfi())
        await wait_for_workers(pilot)
        held = threading.Event()
        app.services.record.submit(lambda _: held.wait(20))  # the record's thread is busy
        detail.read_process()
        detail.query_one(RfiRecordPanel).reload()
        await pilot.pause()
        # Where the dismissal has got to when the answers come back: the panels are gone, the screen is not.
        await detail.query_one(StepHistory).remove()
        await detail.query_one(RfiHistoryView).remove()
        held.set()
        await wait_for_workers(pilot)
        assert [w for w in app.workers if w.state.name == "ERROR"] == []
        app.pop_screen()
        await pilot.pause()
        assert isinstance(app.screen, InboxScreen)
