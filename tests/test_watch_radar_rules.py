"""The rules of the console's radar, in-process against the sandbox: what the banner counts, what is notified,
and what a failed poll still says."""

from __future__ import annotations

from datetime import timedelta

import httpx

from stablepay_console.api import StablePayClient
from stablepay_console.api.errors import APIError
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.control import add_request, answer
from stablepay_console.services.watch.events import Seen
from stablepay_console.services.watch.radar import RadarPoller, RadarUpdate
from tests.conftest import FIXED_NOW

H = timedelta(hours=1)


def client_for(sandbox: Sandbox) -> StablePayClient:
    return StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app))


def test_the_banner_counts_a_deadline_at_this_moment_overdue_and_one_24_hours_away_due() -> None:
    poller = RadarPoller()
    poller.tracker.seen = {
        "now": Seen("issued", expires_at=FIXED_NOW),
        "late": Seen("issued", expires_at=FIXED_NOW - H),
        "edge": Seen("issued", expires_at=FIXED_NOW + 24 * H),
        "soon": Seen("issued", expires_at=FIXED_NOW + H),
        "far": Seen("issued", expires_at=FIXED_NOW + 24 * H + timedelta(seconds=1)),
        "answered": Seen("submitted", expires_at=FIXED_NOW - H),
        "none": Seen("issued"),
    }
    assert poller.counts(FIXED_NOW) == (2, 2)


def test_the_banners_label_names_what_is_due_and_what_is_overdue() -> None:
    assert RadarUpdate(2, 1, [], FIXED_NOW).label == "2 due < 24h · 1 overdue"
    assert RadarUpdate(3, 0, [], FIXED_NOW).label == "3 due < 24h"


async def test_a_new_request_due_within_a_day_is_one_notification_and_a_status_change_none() -> None:
    sandbox = Sandbox(now=FIXED_NOW, rfis=120)
    poller = RadarPoller()
    async with client_for(sandbox) as client:
        await poller.poll(client, FIXED_NOW)
        raised = add_request(sandbox.data, sandbox.state.rng, 20 * H)
        newest = (await client.list_rfis(limit=100, offset=0)).data
        answered = next(r for r in newest if r.status == "issued" and r.id != raised.id)
        answer(sandbox.data, answered.id)
        update = await poller.poll(client, FIXED_NOW)
    kinds = {e.kind for e in poller.watch.events}
    assert {"new_request", "deadline_24h", "status_changed"} <= kinds
    assert [(e.kind, e.rfi.id) for e in update.events] == [("new_request", raised.id)]
    assert update.failed is None and update.at == FIXED_NOW


async def test_a_failed_poll_says_why_and_still_counts_from_memory() -> None:
    sandbox = Sandbox(now=FIXED_NOW, rfis=120)
    poller = RadarPoller()
    async with client_for(sandbox) as client:
        first = await poller.poll(client, FIXED_NOW)
        sandbox.faults.force = "401"
        failed = await poller.poll(client, FIXED_NOW)
    assert isinstance(failed.failed, APIError)
    assert (failed.due, failed.overdue) == (first.due, first.overdue) != (0, 0)
    assert failed.label == first.label and failed.events == []


async def test_the_radar_sweeps_as_often_as_it_was_told() -> None:
    sandbox = Sandbox(now=FIXED_NOW, rfis=120)
    poller = RadarPoller(sweep_every=timedelta(minutes=1))
    async with client_for(sandbox) as client:
        await poller.poll(client, FIXED_NOW)
        await poller.poll(client, FIXED_NOW + timedelta(minutes=2))
    assert poller.watch.last.swept
