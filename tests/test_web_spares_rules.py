"""The spare console's rules (web/spares.py), in the test process, with a stand-in for the console process the
module is given (`make`): what it was asked to do is recorded, nothing is started.

- `fill()` starts one spare, never a second while one waits or one is starting, none when spares are off or
  after `stop()`; a spare that could not start leaves none (and a line in the log), and the next fill tries again;
  one that finished starting after `stop()` is ended, not kept;
- `take()` gives the spare while it is alive; a spare that ended is stopped and a fresh console given instead;
  with no spare, a fresh one;
- after a hand-over the next spare starts once the taken console has shown its first screen and then drawn
  nothing for QUIET_SECONDS, or REFILL_AFTER after the hand-over at the latest, whatever it does;
- `stop()` ends the waiting spare and every refill still to come.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import Any, cast

import pytest

from stablepay_console.web import spares
from stablepay_console.web.consoles import ConsoleProcess
from stablepay_console.web.spares import Spares
from tests.conftest import settles

PIDS = itertools.count(1000)


class Stand:
    """What Spares uses of a console process, and what it was asked."""

    def __init__(self, *, alive: bool = True, fails: OSError | None = None, gate: asyncio.Event | None = None) -> None:
        self.alive = alive
        self.fails = fails
        self.gate = gate
        self.pid = next(PIDS)
        self.spawned = 0
        self.stopped = 0
        self.shown = asyncio.Event()
        self.last_output = time.monotonic() - 3600.0

    async def spawn(self) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.fails is not None:
            raise self.fails
        self.spawned += 1

    async def stop(self) -> None:
        self.stopped += 1


class Maker:
    """The `make` Spares is given: each call a new stand-in, shaped by what `next` says."""

    def __init__(self) -> None:
        self.made: list[Stand] = []
        self.next: dict[str, Any] = {}

    def __call__(self) -> ConsoleProcess:
        stand = Stand(**self.next)
        self.made.append(stand)
        return cast(ConsoleProcess, stand)


def spare_of(pool: Spares) -> Stand | None:
    return cast("Stand | None", pool.spare)


async def turns(count: int = 20) -> None:
    """Let every task that can run do so a few times over."""
    for _ in range(count):
        await asyncio.sleep(0)


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module's own figures, small: quiet after 50 ms, looked at every 5 ms; the latest refill far off."""
    monkeypatch.setattr(spares, "QUIET_SECONDS", 0.05)
    monkeypatch.setattr(spares, "LOOK_EVERY", 0.005)
    monkeypatch.setattr(spares, "REFILL_AFTER", 3600.0)


# --- fill ------------------------------------------------------------------------------------------------------


async def test_fill_starts_one_spare_and_no_second_while_it_waits(caplog: pytest.LogCaptureFixture) -> None:
    make = Maker()
    pool = Spares(make)
    with caplog.at_level(logging.INFO, logger="stablepay_console.web.access"):
        await pool.fill()
    [spare] = make.made
    assert spare_of(pool) is spare and spare.spawned == 1
    assert f"spare console started pid={spare.pid}" in caplog.messages
    await pool.fill()
    assert make.made == [spare] and spare_of(pool) is spare


async def test_two_fills_at_once_start_one_spare_and_a_later_fill_after_a_take_starts_the_next() -> None:
    make = Maker()
    gate = asyncio.Event()
    make.next = {"gate": gate}
    pool = Spares(make, enabled=False)
    pool.enabled = True  # no refill after take(): only the fills below start anything
    first = asyncio.create_task(pool.fill())
    await turns()
    second = asyncio.create_task(pool.fill())
    await turns()
    assert len(make.made) == 1, "a second spare started while the first was starting"
    gate.set()
    await asyncio.gather(first, second)
    assert spare_of(pool) is make.made[0] and len(make.made) == 1
    pool.enabled = False
    taken = pool.take()
    pool.enabled = True
    assert taken is make.made[0] and pool.spare is None
    await pool.fill()
    assert len(make.made) == 2 and spare_of(pool) is make.made[1], "the fill after a start never started again"


async def test_no_spare_when_spares_are_off() -> None:
    make = Maker()
    pool = Spares(make, enabled=False)
    await pool.fill()
    assert make.made == [] and pool.spare is None


async def test_a_spare_that_cannot_start_leaves_none_and_the_next_fill_tries_again(
        caplog: pytest.LogCaptureFixture) -> None:
    make = Maker()
    make.next = {"fails": PermissionError("no")}
    pool = Spares(make)
    with caplog.at_level(logging.INFO, logger="stablepay_console.web.access"):
        await pool.fill()
    assert pool.spare is None and make.made[0].stopped == 0
    assert caplog.messages == ["spare console not started: PermissionError"]
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    make.next = {}
    await pool.fill()
    assert len(make.made) == 2 and spare_of(pool) is make.made[1] and make.made[1].spawned == 1


async def test_no_spare_after_stop_and_one_that_finishes_starting_after_stop_is_ended() -> None:
    make = Maker()
    gate = asyncio.Event()
    make.next = {"gate": gate}
    pool = Spares(make)
    filling = asyncio.create_task(pool.fill())
    await turns()
    await pool.stop()
    gate.set()
    await filling
    [late] = make.made
    assert pool.spare is None and late.stopped == 1, "a spare that came after stop() was kept"
    make.next = {}
    await pool.fill()
    assert len(make.made) == 1 and pool.spare is None, "a spare started after stop()"


async def test_stop_ends_the_waiting_spare() -> None:
    make = Maker()
    pool = Spares(make)
    await pool.fill()
    [spare] = make.made
    await pool.stop()
    assert pool.spare is None and spare.stopped == 1
    await pool.stop()
    assert spare.stopped == 1, "the same spare was stopped twice"


# --- take ------------------------------------------------------------------------------------------------------


async def test_take_gives_the_live_spare_and_leaves_none_behind() -> None:
    make = Maker()
    pool = Spares(make, enabled=False)
    pool.enabled = True
    await pool.fill()
    [spare] = make.made
    pool.enabled = False
    assert pool.take() is spare
    assert pool.spare is None and spare.stopped == 0 and len(make.made) == 1
    fresh = cast(Stand, pool.take())
    assert fresh is make.made[1] and fresh.spawned == 0, "with no spare, a fresh console (started by its hand-over)"


async def test_take_replaces_a_spare_that_ended_and_stops_it() -> None:
    make = Maker()
    pool = Spares(make, enabled=False)
    pool.enabled = True
    await pool.fill()
    [dead] = make.made
    dead.alive = False
    pool.enabled = False
    taken = pool.take()
    assert taken is not dead and taken is make.made[1]
    await settles(lambda: dead.stopped == 1, "the spare that ended was never stopped")
    assert pool.spare is None


async def test_with_spares_off_take_gives_a_fresh_console_each_time_and_none_is_refilled(fast: None) -> None:
    make = Maker()
    pool = Spares(make, enabled=False)
    first, second = pool.take(), pool.take()
    assert first is not second and make.made == [first, second]
    first.shown.set()
    await asyncio.sleep(0.2)  # four times the quiet the refill waits for (not a timing: only a chance to go wrong)
    assert len(make.made) == 2 and pool.spare is None


# --- refill after a hand-over ----------------------------------------------------------------------------------


async def test_the_next_spare_waits_for_the_taken_consoles_first_screen_then_starts(fast: None) -> None:
    make = Maker()
    pool = Spares(make)
    taken = cast(Stand, pool.take())
    await asyncio.sleep(0.2)
    assert make.made == [taken], "the next spare started before the taken console showed its tab anything"
    taken.shown.set()
    await settles(lambda: pool.spare is not None, "no spare after the taken console showed its screen and went quiet")
    assert spare_of(pool) is make.made[1] and make.made[1].spawned == 1


def keeps_drawing(console: Stand) -> None:
    """The console's last output is always now, however late the loop gets to look (a moment ahead)."""
    console.last_output = time.monotonic() + 3600


async def test_the_next_spare_waits_while_the_taken_console_draws(fast: None) -> None:
    make = Maker()
    pool = Spares(make)
    taken = cast(Stand, pool.take())
    taken.shown.set()
    keeps_drawing(taken)
    await asyncio.sleep(0.3)  # six quiet periods, were it quiet (not a timing: only a chance to go wrong)
    assert make.made == [taken], "the next spare started while the taken console was still drawing"
    taken.last_output = time.monotonic() - 1  # it stops drawing
    await settles(lambda: pool.spare is not None, "no spare once the taken console stopped drawing")


@pytest.mark.parametrize("shown", [False, True], ids=["never-shown", "shown-never-quiet"])
async def test_the_next_spare_starts_by_refill_after_however_busy_the_taken_console(
        fast: None, monkeypatch: pytest.MonkeyPatch, shown: bool) -> None:
    """Whether the taken console never shows a screen, or shows one and then draws all the time."""
    monkeypatch.setattr(spares, "REFILL_AFTER", 0.1)
    make = Maker()
    pool = Spares(make)
    taken = cast(Stand, pool.take())
    if shown:
        taken.shown.set()
    keeps_drawing(taken)
    await settles(lambda: pool.spare is not None, "no spare REFILL_AFTER after the hand-over")


async def test_stop_cancels_the_refill_still_to_come(fast: None) -> None:
    make = Maker()
    pool = Spares(make)
    taken = cast(Stand, pool.take())
    await turns()
    await pool.stop()
    taken.shown.set()
    await asyncio.sleep(0.2)
    assert make.made == [taken] and pool.spare is None, "a spare started after stop()"


async def test_nothing_of_a_hand_over_is_kept_once_its_refill_is_done(fast: None) -> None:
    """A server up for months hands over a console per tab: each refill's task is let go once it is done."""
    make = Maker()
    pool = Spares(make)
    for _ in range(3):
        taken = cast(Stand, pool.take())
        taken.shown.set()
        await settles(lambda: pool.spare is not None, "no spare after the hand-over")
    await settles(lambda: not pool._tasks, "the server keeps a task for every hand-over it ever made")
    assert len(make.made) == 4
