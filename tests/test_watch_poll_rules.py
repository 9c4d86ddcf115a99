"""The rules of one incremental poll, in-process against the sandbox: when it sweeps, how many newest pages it
reads, what it looks up and forgets, and what its report says it sent."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx

from stablepay_console.api import StablePayClient
from stablepay_console.api.sanitize import clean
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.control import answer
from stablepay_console.services.watch.events import STATUS_CHANGED, Seen, Tracker
from stablepay_console.services.watch.poll import IncrementalWatch
from tests.conftest import FIXED_NOW

MIN = timedelta(minutes=1)


class Asked:
    """The sandbox's app, noting the query of every list request the client sends it."""

    def __init__(self, app: Any) -> None:
        self.app, self.queries = app, []  # type: list[str]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/v2/rfis":
            self.queries.append(scope["query_string"].decode())
        await self.app(scope, receive, send)


def client_for(app: Any) -> StablePayClient:
    return StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=app))


def test_a_sweep_is_due_when_the_interval_has_passed_to_the_second_and_not_at_the_last_sweeps_moment() -> None:
    watch = IncrementalWatch(Tracker(primed=True, last_sweep=FIXED_NOW), sweep_every=15 * MIN)
    assert not watch.sweep_due(FIXED_NOW)
    assert not watch.sweep_due(FIXED_NOW + 15 * MIN - timedelta(seconds=1))
    assert watch.sweep_due(FIXED_NOW + 15 * MIN)
    assert watch.sweep_due(FIXED_NOW - MIN), "a last sweep in the future (a clock set back) is not trusted"


async def test_a_first_poll_told_not_to_sweep_leaves_the_baseline_to_the_first_sweep() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=600)  # more issued requests than one chunk of the sweep
    watch = IncrementalWatch(Tracker())
    asked = Asked(world.app)
    async with client_for(asked) as client:
        await watch.poll(client, FIXED_NOW, sweep=False)
        assert (watch.last.newest_pages, watch.last.swept, watch.tracker.primed) == (1, False, False)
        events = await watch.poll(client, FIXED_NOW + MIN, sweep=True)
    assert watch.last.swept and watch.tracker.primed
    assert {e.kind for e in events} <= {"deadline_72h", "deadline_24h", "deadline_1h", "deadline_passed"}
    sweep_queries = [q for q in asked.queries[2:] if "status=issued" in q]
    assert watch.last.sweep_pages == len(sweep_queries) == 3
    assert watch.last.requests == len(asked.queries) - 1


async def test_the_newest_pages_are_read_until_a_short_one() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=120)
    watch = IncrementalWatch(Tracker(primed=True, last_sweep=FIXED_NOW))
    async with client_for(world.app) as client:
        events = await watch.poll(client, FIXED_NOW)
    assert (watch.last.newest_pages, watch.last.swept) == (2, False)
    assert len({e.rfi.id for e in events if e.kind in ("new_request", "new_round")}) == 120


async def test_a_request_with_a_very_long_id_is_known_on_the_newest_page_and_met_by_the_sweep() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=240)
    async with client_for(world.app) as client:
        newest = (await client.list_rfis(limit=100, offset=0)).data
        target = next(r for r in newest[50:] if r.status == "issued")
        index = next(n for n, r in enumerate(world.data.rfis) if r.id == target.id)
        long = world.data.rfis[index] = target.model_copy(update={"id": "x" * 120})
        watch = IncrementalWatch(Tracker(seen={clean(long.id, 80): Seen.of(long)}, primed=True))
        await watch.poll(client, FIXED_NOW, sweep=True)
    assert (watch.last.newest_pages, watch.last.lookup_pages, watch.last.gone) == (1, 0, 0)
    assert clean(long.id, 80) in watch.tracker.seen


async def test_requests_that_left_the_issued_list_are_looked_up_by_user_and_kind_and_the_unfound_forgotten() -> None:
    world = Sandbox(now=FIXED_NOW, rfis=600)
    watch = IncrementalWatch(Tracker())
    asked = Asked(world.app)
    async with client_for(asked) as client:
        await watch.poll(client, FIXED_NOW)
        newest = {r.id for r in (await client.list_rfis(limit=100, offset=0)).data}
        seen = watch.tracker.seen
        deep = (k for k, s in seen.items() if s.status == "issued" and s.user_id and k not in newest)
        old, left, later = sorted(deep)[:3]
        for key in (old, left, later):
            answer(world.data, key)
        seen[old].created_at = None  # remembered by an older version: nothing to look it up by
        seen[later].kind = "not-a-kind"  # a kind the list cannot filter on: looked for among the user's requests
        seen["zz-gone"] = Seen("issued", "round-1", 1, None, FIXED_NOW + 5 * MIN, "onboarding", None,
                               FIXED_NOW - 10 * MIN)
        before = len(asked.queries)
        events = await watch.poll(client, FIXED_NOW + MIN, sweep=True)
    changed = sorted(e.rfi.id for e in events if e.kind == STATUS_CHANGED)
    assert changed == sorted([left, later])
    assert old not in seen and "zz-gone" not in seen and watch.last.gone == 2
    lookups = [q for q in asked.queries[before:] if "status=issued" not in q][1:]  # after the newest page
    assert watch.last.lookup_pages == len(lookups) > 0
    assert any(f"userId={seen[left].user_id}" in q and f"kind={seen[left].kind}" in q for q in lookups)
    assert any(f"userId={seen[later].user_id}" in q and "kind=" not in q for q in lookups)
    assert any("kind=onboarding" in q and "userId" not in q for q in lookups)
