"""A verified delivery in the team watcher: taken once (the team record's unique key, also across two watchers),
recorded with the facts it led to, only what the API says, and a 503 while the team record is down."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from stablepay_console.api.models import Rfi
from stablepay_console.services.watch.events import NEW_REQUEST, STATUS_CHANGED, Tracker
from stablepay_console.services.watch.hints import Learned
from stablepay_console.services.webhooks.envelope import parse
from stablepay_console.services.webhooks.taking import TAKEN, TAKEN_BEFORE, DeliveryTaker
from stablepay_console.storage.record_worker import flush_all
from stablepay_console.wiring import Services
from tests.postgres import TeamDb
from tests.webhook_keys import body_of, envelope

pytestmark = pytest.mark.postgres

URL = "STABLEPAY_RECORD_URL"
TEN_DAYS = 10 * 24 * 60
"""A deadline far from every mark (72 h, 24 h, 1 h): the events are the request's, not its deadline's."""


@dataclass
class Watcher:
    """One team watcher: its own services (its own connection to the team record), tracker and events."""

    services: Services
    tracker: Tracker = field(default_factory=lambda: Tracker(primed=True))
    reported: list[Learned] = field(default_factory=list)
    said: list[str] = field(default_factory=list)

    def taker(self, client: Any) -> DeliveryTaker:
        profile = self.services.book.start_profile()
        return DeliveryTaker(self.services.record, profile, client, self.tracker, self.services.clock,
                             self.reported.append, self.said.append)

    def events(self) -> list[tuple[str, str]]:
        return [(e.kind, e.rfi.id) for learned in self.reported for e in learned.events]


@pytest.fixture
def watchers(team_db: TeamDb, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Watcher]]:
    monkeypatch.setenv(URL, team_db.url("walt"))
    made = [Watcher(Services()), Watcher(Services())]
    yield made
    flush_all(10)


async def control(services: Services, path: str, body: dict[str, Any] | None = None) -> Rfi:
    """Change the sandbox's world as compliance would (its loopback control routes)."""
    transport = httpx.ASGITransport(app=services.sandbox.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as c:
        answer = await c.post(path, json=body or {})
    assert answer.status_code == 201, answer.text
    return Rfi.model_validate(answer.json())


def bare_client(services: Services) -> Any:
    """The watch's client for deliveries: what it receives is recorded by the delivery, not behind its back."""
    profile = services.book.start_profile()
    return services.client_with(profile, services.key(profile))


def about(rfi: Rfi, event_type: str | None = None, event_id: str | None = None) -> bytes:
    flow = (rfi.flow_type or "onramp").upper()
    return body_of(envelope(event_type or f"{flow}.RFI.OPEN", rfi.transfer_id, rfi.user_id, event_id))


def rows(db: TeamDb, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with db.connect() as conn:
        return conn.execute(sql, args).fetchall()


def recorded_status(db: TeamDb, rfi_id: str) -> str | None:
    found = rows(db, "SELECT status FROM stablepay.statuses WHERE rfi_id = %s ORDER BY id DESC LIMIT 1",
                 rfi_id)
    return str(found[0][0]) if found else None


async def test_a_delivery_is_taken_once_with_what_the_api_said(watchers: list[Watcher], team_db: TeamDb) -> None:
    walt = watchers[0]
    rfi = await control(walt.services, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
    body = about(rfi)
    async with bare_client(walt.services) as client:
        take = walt.taker(client)
        first = await take(parse(body))
        again = await take(parse(body))  # the provider retries (its acknowledgement was lost)
        restarted = await watchers[1].taker(client)(parse(body))  # a new process: nothing in its memory
    assert (first.said, again.said, restarted.said) == (TAKEN, TAKEN_BEFORE, TAKEN_BEFORE)
    assert watchers[1].events() == [], "also across a restart, it is not processed twice"
    assert walt.events() == [(NEW_REQUEST, rfi.id)], "reported once"
    taken = rows(team_db, "SELECT event_id, event_type, by_role, led_to FROM stablepay.webhook_events")
    assert len(taken) == 1 and taken[0][2] == "walt" and rfi.id in taken[0][3]
    assert recorded_status(team_db, rfi.id) == "issued", "the request is in the team record, as the API said"


async def test_a_delivery_naming_a_transfer_the_api_does_not_know_changes_nothing(
        watchers: list[Watcher], team_db: TeamDb) -> None:
    walt = watchers[0]
    body = body_of(envelope("ONRAMP.RFI.OPEN"))  # validly signed, about nothing the API holds
    async with bare_client(walt.services) as client:
        outcome = await walt.taker(client)(parse(body))
    assert outcome.status == 200, "acknowledged: a retry would not change what the API says"
    assert walt.events() == [] and walt.tracker.seen == {}
    assert rows(team_db, "SELECT count(*) FROM stablepay.rfis") == [(0,)]


async def test_a_replayed_open_for_an_answered_request_resurrects_nothing(
        watchers: list[Watcher], team_db: TeamDb) -> None:
    walt = watchers[0]
    rfi = await control(walt.services, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
    opened = about(rfi)
    async with bare_client(walt.services) as client:
        take = walt.taker(client)
        await take(parse(opened))
        await control(walt.services, f"/_sandbox/rfis/{rfi.id}/answer")
        flow = (rfi.flow_type or "onramp").upper()
        closed = await take(parse(about(rfi, f"{flow}.RFI.CLOSED")))
        replay_same = await take(parse(opened))
        replay_new_id = await take(parse(about(rfi)))  # the same OPEN sent again under a new eventId
    assert (closed.said, replay_same.said, replay_new_id.said) == (TAKEN, TAKEN_BEFORE, TAKEN)
    assert walt.events() == [(NEW_REQUEST, rfi.id), (STATUS_CHANGED, rfi.id)], "the OPEN again reports nothing"
    assert recorded_status(team_db, rfi.id) == "submitted"


async def test_two_watchers_given_the_same_delivery_take_it_once(watchers: list[Watcher], team_db: TeamDb) -> None:
    walt, walt_too = watchers
    rfi = await control(walt.services, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
    body = about(rfi)
    async with bare_client(walt.services) as client:
        outcomes = await asyncio.gather(walt.taker(client)(parse(body)), walt_too.taker(client)(parse(body)))
    assert sorted(o.said for o in outcomes) == [TAKEN, TAKEN_BEFORE]
    assert walt.events() + walt_too.events() == [(NEW_REQUEST, rfi.id)], "one of the two reported it"
    assert rows(team_db, "SELECT count(*) FROM stablepay.webhook_events") == [(1,)]


async def test_the_team_record_down_gives_503_and_the_retry_is_taken(watchers: list[Watcher], team_db: TeamDb) -> None:
    walt = watchers[0]
    rfi = await control(walt.services, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
    body = about(rfi)
    async with bare_client(walt.services) as client:
        take = walt.taker(client)
        team_db.server.stop()
        try:
            down = await take(parse(body))
        finally:
            team_db.server.start()
        retried = await take(parse(body))
    assert (down.status, retried.status, retried.said) == (503, 200, TAKEN)
    assert len(walt.said) == 1 and "503" in walt.said[0]
    assert walt.events() == [(NEW_REQUEST, rfi.id)], "reported when it was taken, not when it was refused"
    assert recorded_status(team_db, rfi.id) == "issued"


async def test_an_analyst_role_cannot_take_deliveries(team_db: TeamDb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(URL, team_db.url("alice"))
    alice = Watcher(Services())
    rfi = await control(alice.services, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
    async with bare_client(alice.services) as client:
        outcome = await alice.taker(client)(parse(about(rfi)))
    assert outcome.status == 503 and "stablepay_watcher" in alice.said[0]
    assert rows(team_db, "SELECT count(*) FROM stablepay.webhook_events") == [(0,)]


async def test_a_colleagues_banner_counts_a_delivered_request_through_listen(  # type: ignore[no-untyped-def]
        make_app, sandbox: Any, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import timedelta

    from stablepay_console.api.client import StablePayClient
    from stablepay_console.sandbox import SANDBOX_KEY
    from stablepay_console.services.team.radar import snapshot
    from stablepay_console.services.watch.poll import IncrementalWatch
    from stablepay_console.storage.record import team_feed
    from tests.conftest import FIXED_NOW, wait_for_workers

    monkeypatch.setenv(URL, team_db.url("walt"))
    walt = Services(sandbox=sandbox)
    profile = walt.book.start_profile()
    tracker = Tracker()
    transport = httpx.ASGITransport(app=sandbox.app)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client:
        await IncrementalWatch(tracker).poll(client, FIXED_NOW)  # the watcher's first poll and sweep
        radar = snapshot(tracker, FIXED_NOW)
        assert await walt.record.run(lambda r: team_feed(r).mark_sweep(profile.name, 300, radar))

        monkeypatch.setenv(URL, team_db.url("bob"))
        from stablepay_console.storage import watch_state

        watch_state.save_radar_seconds(300)  # the console's own radar poll is 5 minutes away: only LISTEN is quicker
        app = make_app(radar=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for_workers(pilot)
            before = app.radar_label
            assert app.radar_source == "radar from the team watcher (walt)" and before
            due_before = int(before.split(" due")[0]) if " due" in before else 0
            rfi = await control(walt, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": 10 * 60})
            taker = DeliveryTaker(walt.record, profile, client, tracker, lambda: FIXED_NOW, lambda _: None,
                                  lambda _: None)
            assert (await taker(parse(about(rfi)))).said == TAKEN
            for _ in range(1200):  # a minute at most, well before the console's own poll
                if app.radar_label.startswith(f"{due_before + 1} due"):
                    break
                await pilot.pause(0.05)
            assert app.radar_label.startswith(f"{due_before + 1} due"), (app.radar_label, before)
    assert rfi.round is not None and rfi.round.expires_at == FIXED_NOW + timedelta(hours=10)


async def test_a_colleagues_needs_action_view_shows_a_delivered_request(  # type: ignore[no-untyped-def]
        make_app, sandbox: Any, team_db: TeamDb, monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.sandbox import SANDBOX_KEY
    from stablepay_console.storage.record import team_feed
    from tests.conftest import FIXED_NOW, wait_for_workers

    monkeypatch.setenv(URL, team_db.url("walt"))
    walt = Services(sandbox=sandbox)
    profile = walt.book.start_profile()
    assert await walt.record.run(lambda r: team_feed(r).mark_sweep(profile.name, 300, '{"issued": []}'))
    monkeypatch.setenv(URL, team_db.url("bob"))
    app = make_app()
    transport = httpx.ASGITransport(app=sandbox.app)
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=transport) as client, \
            app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("a")  # needs action: from the fresh team watcher's facts
        await wait_for_workers(pilot)

        def shown() -> list[str]:
            current = app.screen.paging.action.current
            return [r.id for r in current.value] if current is not None else []

        rfi = await control(walt, "/_sandbox/rfis", {"kind": "transaction", "expiresInMinutes": TEN_DAYS})
        assert rfi.id not in shown()
        taker = DeliveryTaker(walt.record, profile, client, Tracker(primed=True), lambda: FIXED_NOW,
                              lambda _: None, lambda _: None)
        assert (await taker(parse(about(rfi)))).said == TAKEN
        for _ in range(600):  # 30 s at most: nothing else reads the view again meanwhile
            if rfi.id in shown():
                break
            await pilot.pause(0.05)
        assert rfi.id in shown(), "the view read the team watcher's facts again when the delivery was taken"


def test_who_took_a_delivery_and_when_are_the_databases_whatever_the_insert_says(team_db: TeamDb) -> None:
    """psql as the watcher, naming another taker and another time: the row keeps the watcher's own role and the
    moment it was inserted."""
    with team_db.connect("walt") as conn:
        before = conn.execute("SELECT clock_timestamp()").fetchone()[0]
        conn.execute("INSERT INTO stablepay.webhook_events (server, event_id, event_type, received_at, by_role, led_to)"
                     " VALUES ('https://api.example', 'evt-forged', 'ONRAMP.RFI.OPEN', '2000-01-01T00:00:00Z',"
                     " 'alice', '{}')")
        conn.commit()
    [(by_role, received_at)] = rows(team_db, "SELECT by_role, received_at FROM stablepay.webhook_events "
                                             "WHERE event_id = 'evt-forged'")
    assert by_role == "walt"
    assert received_at >= before
