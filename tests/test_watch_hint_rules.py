"""The rules of a webhook delivery as a hint to the watch, in-process against the sandbox: what the API is asked,
what is kept of its answer, what the record's note of it says."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import httpx

from stablepay_console.api import Rfi, StablePayClient
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.control import answer
from stablepay_console.services.watch.events import CONSOLE_MARKS, NEW_REQUEST, STATUS_CHANGED, Tracker, WatchEvent
from stablepay_console.services.watch.hints import Learned, learn
from stablepay_console.services.webhooks.envelope import Envelope
from tests.conftest import FIXED_NOW

H = timedelta(hours=1)


class Asked:
    """The sandbox's app, noting the path and query of every request the client sends it."""

    def __init__(self, app: Any) -> None:
        self.app, self.queries = app, []  # type: list[tuple[str, str]]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.queries.append((scope["path"], scope["query_string"].decode()))
        await self.app(scope, receive, send)


def client_for(app: Any) -> StablePayClient:
    return StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=app))


def a_transaction(sandbox: Sandbox) -> Rfi:
    return next(r for r in sandbox.data.rfis if r.kind == "transaction" and r.status == "issued"
                and r.transfer_id is not None and r.user_id is not None)


def about(rfi: Rfi) -> Envelope:
    assert rfi.transfer_id is not None
    return Envelope("evt-1", "ONRAMP.RFI.OPEN", rfi.transfer_id.lower(), rfi.user_id)


async def test_a_delivery_asks_for_its_users_transaction_requests_and_keeps_those_of_its_transfer(
        sandbox: Sandbox) -> None:
    target = a_transaction(sandbox)
    asked = Asked(sandbox.app)
    async with client_for(asked) as client:
        learned = await learn(client, Tracker(primed=True), about(target), FIXED_NOW)
    assert [r.id for r in learned.rfis] == [target.id]
    assert (learned.events[0].kind, learned.events[0].rfi.id) == (NEW_REQUEST, target.id)
    listed = [query for path, query in asked.queries if path == "/v2/rfis"]
    assert listed and all("kind=transaction" in q and f"userId={target.user_id}" in q for q in listed)
    assert learned.requests == len(listed)


async def test_a_delivery_without_its_user_or_its_transfer_asks_nothing_and_leads_to_nothing(
        sandbox: Sandbox) -> None:
    target = a_transaction(sandbox)
    asked = Asked(sandbox.app)
    async with client_for(asked) as client:
        for envelope in (Envelope("evt-1", "ONRAMP.RFI.OPEN", (target.transfer_id or "").lower(), None),
                         Envelope("evt-2", "ONRAMP.RFI.OPEN", None, target.user_id)):
            learned = await learn(client, Tracker(primed=True), envelope, FIXED_NOW)
            assert (learned.rfis, learned.events, learned.requests) == ([], [], 0)
            assert json.loads(learned.summary()) == {"requests": [], "events": [], "apiRequests": 0}
    assert asked.queries == []


async def test_a_delivery_is_compared_with_the_watchs_own_marks(sandbox: Sandbox) -> None:
    """The console watches 24 h and 1 h: a request due in 50 hours is new, with no 72 h mark to say."""
    target = a_transaction(sandbox)
    index = next(n for n, r in enumerate(sandbox.data.rfis) if r.id == target.id)
    assert target.round is not None
    sandbox.data.rfis[index] = target.model_copy(
        update={"round": target.round.model_copy(update={"expires_at": FIXED_NOW + 50 * H})})
    async with client_for(sandbox.app) as client:
        learned = await learn(client, Tracker(primed=True, marks=CONSOLE_MARKS), about(target), FIXED_NOW)
    assert [e.kind for e in learned.events] == [NEW_REQUEST]


async def test_a_request_with_a_very_long_id_is_compared_with_what_the_watch_remembers_of_it(
        sandbox: Sandbox) -> None:
    target = a_transaction(sandbox)
    index = next(n for n, r in enumerate(sandbox.data.rfis) if r.id == target.id)
    long = sandbox.data.rfis[index] = target.model_copy(update={"id": "x" * 120})
    tracker = Tracker(primed=True)
    tracker.observe([long], FIXED_NOW)
    answer(sandbox.data, long.id)
    async with client_for(sandbox.app) as client:
        learned = await learn(client, tracker, about(target), FIXED_NOW)
    assert [(e.kind, e.previous_status) for e in learned.events] == [(STATUS_CHANGED, "issued")]


def test_the_records_note_of_a_delivery_is_short_ascii_json_every_value_cut() -> None:
    sample = Rfi.model_validate({"id": "r", "kind": "transaction", "status": "issued", "subjectType": "individual",
                                 "createdAt": FIXED_NOW.isoformat()})
    rfis = [sample.model_copy(update={"id": f"{n:02}é" + "x" * 100}) for n in range(25)]
    few = Learned(rfis[:2], [WatchEvent(NEW_REQUEST, rfis[0], FIXED_NOW)], requests=3)
    note = few.summary()
    assert note.isascii()
    assert json.loads(note) == {"requests": [r.id[:79] + "…" for r in rfis[:2]],
                                "events": [[NEW_REQUEST, rfis[0].id[:79] + "…"]], "apiRequests": 3}
    short = [sample.model_copy(update={"id": f"r{n}"}) for n in range(25)]
    many = Learned(short, [WatchEvent(NEW_REQUEST, r, FIXED_NOW) for r in short], requests=1)
    assert json.loads(many.summary()) == {"requests": [f"r{n}" for n in range(20)],
                                          "events": [[NEW_REQUEST, f"r{n}"] for n in range(20)], "apiRequests": 1}
    long = Learned(rfis, [WatchEvent(NEW_REQUEST, r, FIXED_NOW) for r in rfis], requests=1).summary()
    assert len(long) == 2000
    assert long.startswith('{"requests": ["00\\u00e9xxx')
