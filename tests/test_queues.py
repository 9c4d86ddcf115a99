"""The queues over the whole account: "My requests" and "Awaiting my review" list every request of the account that
is mine (claimed by me or assigned to me) or awaits my review, from the record's claims and steps, each row read
again from the API, deadline first; not only the page in view.

The service runs on the local record and on the team's real PostgreSQL (the contract's `store`), with the claimed
request far beyond the inbox's first page; the console's queue shows it with its count, and the palette's
"Mark ready" acts on it.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from stablepay_console.api.client import StablePayClient
from stablepay_console.api.models import Rfi
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.history import sighting
from stablepay_console.services.needs_action import needs_action_order
from stablepay_console.services.triage.queues import MINE, REVIEW, queue_ask, queue_rows
from stablepay_console.storage.record_types import SeenPage
from stablepay_console.tui.modals.step_note import StepNoteDialog
from stablepay_console.tui.widgets.inbox.table import InboxTable
from tests.conftest import FIXED_NOW, until, wait_for_workers
from tests.test_record_contract import Store, store  # noqa: F401  (the contract's two stores)


async def beyond_the_first_page(client: StablePayClient) -> list[Rfi]:
    """Issued requests with an open round on the account's second page of 100 (the inbox's page 6 and on)."""
    page = await client.list_rfis(limit=100, offset=100)
    return [rfi for rfi in page.data if rfi.status == "issued" and rfi.round is not None]


async def test_my_requests_are_every_claim_of_mine_in_the_account_deadline_first(
    store: Store, client: StablePayClient, sandbox: Sandbox  # noqa: F811
) -> None:
    far = await beyond_the_first_page(client)
    first, second, theirs = far[0], far[-1], far[1]
    store.watcher.observe([SeenPage("p", "sandbox", FIXED_NOW, tuple(sighting(rfi) for rfi in far))])
    for rfi in (first, second):
        assert store.me.claim("p", rfi.id, "alice", FIXED_NOW).done
    assert store.other.claim("p", theirs.id, "bob", FIXED_NOW).done
    sent = len(sandbox.api_calls())

    ask = queue_ask(store.me, "p", "alice", MINE)
    assert set(ask.ids) == {first.id, second.id} and set(ask.seen) == set(ask.ids)
    rows = await queue_rows(client, ask, FIXED_NOW)
    expected, _ = needs_action_order([first, second], FIXED_NOW)
    assert [rfi.id for rfi in rows.rows] == [rfi.id for rfi in expected], "mine only, deadline first"
    assert rows.missing == [] and len(sandbox.api_calls()) - sent == rows.pages <= 2, "each user's list, once"


async def test_awaiting_my_review_is_every_answer_someone_else_made_ready(
    store: Store, client: StablePayClient  # noqa: F811
) -> None:
    far = await beyond_the_first_page(client)
    ready = far[2]
    store.watcher.observe([SeenPage("p", "sandbox", FIXED_NOW, tuple(sighting(rfi) for rfi in far))])
    assert store.me.claim("p", ready.id, "alice", FIXED_NOW).done
    store.me.add_triage_step("p", ready.id, "ready", "alice", "statement checked", FIXED_NOW + timedelta(minutes=1))

    ask = queue_ask(store.other, "p", "bob", REVIEW)
    rows = await queue_rows(client, ask, FIXED_NOW)
    assert [rfi.id for rfi in rows.rows] == [ready.id] and [item.made_ready_by for item in ask.review] == ["alice"]
    assert queue_ask(store.me, "p", "alice", REVIEW).ids == (), "four eyes: never your own"


async def test_the_queue_shows_a_claim_beyond_the_page_and_the_palette_marks_it_ready(  # type: ignore[no-untyped-def]
    make_app, sandbox: Sandbox
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        table = app.screen.query_one(InboxTable)
        far = next(r for r in sandbox.data.rfis[150:] if r.status == "issued" and r.round is not None)
        assert far.id not in {rfi.id for rfi in table.order}
        await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, far.id))
        await pilot.press("M")
        await until(pilot, lambda: [rfi.id for rfi in table.order] == [far.id], "the queue never showed it")
        active = str(app.screen.query_one("#inbox-active").render())
        assert "View: my requests (1)" in active and "every request of the account" in active
        await pilot.press("ctrl+p")
        await pilot.press(*"Mark ready")
        await wait_for_workers(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, StepNoteDialog), "the palette's Mark ready did nothing")
        await pilot.press("enter")
        await until(pilot, lambda: str(table.get_cell(far.id, "step")) == "ready", "the step never showed")
        case, _ = await asyncio.wrap_future(app.services.triage.case(EMBEDDED_PROFILE.name, far.id))
        assert [step.step for step in case.steps] == ["ready"]


async def test_a_queue_pages_as_the_inbox_does(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        mine = [rfi.id for rfi in sandbox.data.rfis[30:55]]
        for rfi_id in mine:
            await asyncio.wrap_future(app.services.notes.claim(EMBEDDED_PROFILE, rfi_id))
        table = app.screen.query_one(InboxTable)
        await pilot.press("M")
        await until(pilot, lambda: len(table.order) == 20, "the queue's first page never showed")
        assert "Page 1 of 2, 25 total" in str(app.screen.query_one("#inbox-status").render())
        assert "View: my requests (25)" in str(app.screen.query_one("#inbox-active").render())
        first = [rfi.id for rfi in table.order]
        await pilot.press("n")
        await until(pilot, lambda: len(table.order) == 5, "the next page never showed")
        assert set(first).isdisjoint(rfi.id for rfi in table.order) and {*first, *(r.id for r in table.order)} == {
            *mine}
        await pilot.press("M")
        await until(pilot, lambda: len(table.order) == 20 and table.order[0].id == sandbox.data.rfis[0].id,
                    "M again is back to all requests")
