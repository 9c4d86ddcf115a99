"""The incremental watch: what each `rfis watch --once` sends, and that every kind of event still arrives.

The watch runs as cron runs it (a new `Watcher` each time, its memory read back from the data folder)
against an in-process sandbox of 600 requests (about 210 issued: three sweep pages), with a clock the
test moves. What reached the server is the sandbox's own log of API calls.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest

from stablepay_console.cli.output import Output
from stablepay_console.cli.session import FAILED, OK, Session
from stablepay_console.cli.watch import Watcher
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.control import add_request, answer, open_round
from stablepay_console.services.watch.due import due_report
from stablepay_console.services.watch.radar import RadarPoller
from stablepay_console.storage import watch_state
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW
from tests.test_record_history import Clock

MIN = timedelta(minutes=1)
H = timedelta(hours=1)


@pytest.fixture
def world() -> Sandbox:
    return Sandbox(now=FIXED_NOW, rfis=600)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def calls(sandbox: Sandbox) -> list[str]:
    return [path for _, path in sandbox.api_calls()]


async def once(sandbox: Sandbox, clock: Clock) -> tuple[int, list[dict[str, Any]], int]:
    """One `rfis watch --once --json` as cron runs it: (exit code, events, requests sent)."""
    before = len(calls(sandbox))
    out = io.StringIO()
    session = Session(EMBEDDED_PROFILE, Services(sandbox=sandbox, clock=clock))
    code = await Watcher(session, Output("json", out)).run(timedelta(minutes=10), once=True)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    return code, events, len(calls(sandbox)) - before


def of(events: list[dict[str, Any]], rfi_id: str) -> list[str]:
    return [e["event"] for e in events if e["rfi"]["id"] == rfi_id]


def issued_deep(sandbox: Sandbox, hours_left: tuple[float, float]) -> str:
    """An issued request past the newest page whose deadline is this many hours away."""
    low, high = hours_left
    for rfi in sandbox.data.rfis[150:]:
        if rfi.status == "issued" and rfi.deadline is not None and low * H < rfi.deadline - FIXED_NOW < high * H:
            return rfi.id
    raise AssertionError("no such request in the seeded world")


async def test_a_second_once_with_nothing_changed_sends_no_sweep(world: Sandbox, clock: Clock) -> None:
    code, first, sent = await once(world, clock)
    issued = sum(1 for r in world.data.rfis if r.status == "issued")
    assert code == OK and first
    assert sent == 1 + -(-issued // 100), "the first run: the newest page, then every issued request"
    memory = watch_state.load(EMBEDDED_PROFILE.name, EMBEDDED_PROFILE.base_url)
    assert memory is not None and memory["lastSweep"].startswith("2026-11-20T09:30")
    kept = next(v for v in memory["requests"].values() if v["status"] == "issued" and "expiresAt" in v)
    assert {"status", "round", "roundId", "expiresAt", "kind", "createdAt"} <= set(kept)

    clock.now += 10 * MIN
    code, second, sent = await once(world, clock)
    assert (code, second, sent) == (OK, [], 1), "nothing changed: the newest page only, no sweep"


async def test_a_new_request_is_reported_on_the_next_poll(world: Sandbox, clock: Clock) -> None:
    await once(world, clock)
    raised = add_request(world.data, world.state.rng, timedelta(days=5))
    clock.now += 10 * MIN
    code, events, sent = await once(world, clock)
    assert code == OK and sent == 1
    assert [(e["event"], e["rfi"]["id"]) for e in events] == [("new_request", raised.id)]


async def test_more_than_a_page_of_new_requests_are_all_reported_by_the_next_poll(world: Sandbox, clock: Clock) -> None:
    await once(world, clock)
    raised = [add_request(world.data, world.state.rng, timedelta(days=5)).id for _ in range(250)]
    clock.now += 10 * MIN  # before the sweep interval: only the newest pages can find them
    code, events, sent = await once(world, clock)
    reported = [e["rfi"]["id"] for e in events if e["event"] == "new_request"]
    assert code == OK
    assert sorted(reported) == sorted(raised), f"{len(reported)} of the {len(raised)} new requests reported"
    assert sent == 3, "the newest pages until a known request: 100 + 100 new, then 50 new and 50 known"


async def test_a_status_change_and_a_new_round_are_reported_by_the_next_sweep(world: Sandbox, clock: Clock) -> None:
    await once(world, clock)
    answered = issued_deep(world, (100, 1000))
    asked_again = next(r.id for r in world.data.rfis[150:] if r.status == "submitted")
    answer(world.data, answered)
    open_round(world.data, world.state.rng, asked_again, timedelta(days=10))

    clock.now += 10 * MIN  # before the sweep interval: only the newest page, where neither is
    code, events, sent = await once(world, clock)
    assert (code, events, sent) == (OK, [], 1)

    clock.now += 6 * MIN  # 16 minutes after the last sweep: this run sweeps
    code, events, sent = await once(world, clock)
    assert code == OK and sent > 4
    changed = next(e for e in events if e["rfi"]["id"] == answered)
    assert (changed["event"], changed["previousStatus"], changed["rfi"]["status"]) == (
        "status_changed", "issued", "submitted")
    assert of(events, asked_again) == ["new_round"]

    clock.now += 10 * MIN
    assert await once(world, clock) == (OK, [], 1), "reported once"


async def test_a_deadline_crossing_is_reported_with_no_request(world: Sandbox, clock: Clock) -> None:
    target = issued_deep(world, (30, 60))
    _, first, _ = await once(world, clock)
    assert of(first, target) == ["deadline_72h"]
    deadline = next(r.deadline for r in world.data.rfis if r.id == target)
    assert deadline is not None

    world.faults.force = "500"  # the server answers nothing useful any more
    clock.now = deadline - 23 * H
    code, events, sent = await once(world, clock)
    assert code == FAILED and sent == 1, "the poll's one request failed"
    (crossed,) = [e for e in events if e["rfi"]["id"] == target]
    assert crossed["event"] == "deadline_24h"
    assert crossed["rfi"]["round"]["expiresAt"].startswith(deadline.strftime("%Y-%m-%dT%H:%M"))

    world.faults.force = None
    clock.now += 10 * MIN
    assert of((await once(world, clock))[1], target) == [], "reported once"


async def test_the_radar_probes_with_one_request_between_sweeps(world: Sandbox) -> None:
    poller = RadarPoller()
    services = Services(sandbox=world, clock=lambda: FIXED_NOW)
    async with services.client_for(EMBEDDED_PROFILE) as client:
        first = await poller.poll(client, FIXED_NOW)
        issued = [r for r in world.data.rfis if r.status == "issued"]
        expected = due_report(issued, FIXED_NOW, 24 * H)
        assert (first.due, first.overdue) == (len(expected.due), len(expected.overdue))
        before = len(calls(world))
        raised = add_request(world.data, world.state.rng, timedelta(minutes=30))
        second = await poller.poll(client, FIXED_NOW + MIN)
        assert len(calls(world)) - before == 1
        assert [(e.kind, e.rfi.id) for e in second.events] == [("new_request", raised.id)]
        assert second.due == first.due + 1


async def test_a_state_file_of_the_previous_version_is_swept_once_without_repeating_events(
    world: Sandbox, clock: Clock
) -> None:
    await once(world, clock)
    memory = watch_state.load(EMBEDDED_PROFILE.name, EMBEDDED_PROFILE.base_url)
    assert memory is not None
    written = ("status", "roundId", "round", "mark")  # all the previous version kept of a request
    requests = {key: {k: seen[k] for k in written if k in seen} for key, seen in memory["requests"].items()}
    older = {"primed": True, "requests": requests}
    watch_state.save(EMBEDDED_PROFILE.name, EMBEDDED_PROFILE.base_url, older)

    clock.now += MIN
    code, events, sent = await once(world, clock)
    assert code == OK and events == [], "what was reported before is not reported again"
    assert sent > 1, "no sweep time kept: this run sweeps, and keeps the deadlines it needs"
    clock.now += MIN
    assert await once(world, clock) == (OK, [], 1)
