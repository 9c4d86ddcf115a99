"""Page switch and responsiveness, measured in-process (Textual headless, 120x40).

Keys go in the way the terminal driver sends them, and the clock stops inside the app's own
paint: the first frame, after the key, in which the screen shows the expected change. Headless
Textual skips turning a frame into terminal bytes, so the probe does that work too, as a real
terminal would. (The pilot's `press`/`pause` sleep 20 ms or more each: too coarse to time with.)
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from common import Row, ms, percentile
from textual import events
from textual.widgets import DataTable

from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services

TARGET_MS = 50.0


def table_of(app: ConsoleApp) -> DataTable[object] | None:
    tables = app.screen.query(DataTable)
    return tables.first() if tables else None


def first_row(app: ConsoleApp) -> object:
    table = table_of(app)
    if table is None or table.row_count == 0:
        return None
    return table.ordered_rows[0].key.value


class PaintProbe:
    """Times a key press to the first painted frame in which `done()` holds."""

    def __init__(self, app: ConsoleApp) -> None:
        self.app = app
        self.done: Callable[[], bool] = lambda: False
        self.painted: asyncio.Future[float] | None = None
        display = app._display

        def probe(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is None:
                return
            if app.is_headless and hasattr(renderable, "render_segments"):
                renderable.render_segments(app.console)
            if self.painted is not None and not self.painted.done() and self.done():
                self.painted.set_result(time.perf_counter())

        setattr(app, "_display", probe)  # noqa: B010 - shadow the method on this instance only

    async def wait(self, done: Callable[[], bool], timeout: float = 30.0) -> None:
        """Until a frame is painted in which `done()` holds."""
        if done():
            return
        await self.press(None, done, timeout)

    async def press(self, key: str | None, done: Callable[[], bool], timeout: float = 30.0) -> float:
        """Seconds from sending `key` (None: nothing) to the first frame painted with `done()` true."""
        self.done = done
        self.painted = asyncio.get_running_loop().create_future()
        start = time.perf_counter()
        if key is not None:
            event = events.Key(key, key if len(key) == 1 else None)
            event.set_sender(self.app)
            driver = self.app._driver
            assert driver is not None
            driver.send_message(event)
        try:
            end = await asyncio.wait_for(self.painted, timeout)
        finally:
            self.painted = None
        return end - start


async def settle(app: ConsoleApp) -> None:
    """Until the workers running now have ended (a prefetch replaced by a newer one ends cancelled)."""
    await asyncio.gather(*(worker.wait() for worker in list(app.workers)), return_exceptions=True)


def new_app(connector: Services, profile: Profile = EMBEDDED_PROFILE) -> ConsoleApp:
    return ConsoleApp(profile, connector, freeze_after_start=True)  # as the installed console starts


async def page_switch(
    connector: Services, presses: int, profile: Profile = EMBEDDED_PROFILE
) -> tuple[float, list[float]]:
    """Seconds from pressing `n` to the next page's first row painted: the first press, then the rest.

    The first press after start pays one-off costs (the footer's bindings change, caches warm up),
    so it is reported on its own; the percentiles are over the presses after it. Between presses the
    console settles (its workers finish) and then a person reads a little before paging on.
    """
    app = new_app(connector, profile)
    samples: list[float] = []
    rng = random.Random(5)
    async with app.run_test(size=(120, 40)):
        probe = PaintProbe(app)
        await probe.wait(lambda: first_row(app) is not None)
        await settle(app)
        for _ in range(presses + 1):
            await asyncio.sleep(rng.uniform(0.05, 0.25))  # a person reads a little before paging on
            before = first_row(app)
            samples.append(await probe.press("n", lambda before=before: first_row(app) not in (None, before)))  # type: ignore[misc]
            await settle(app)
    return samples[0], samples[1:]


async def responsiveness(connector: Services, reloads: int, presses_per_reload: int) -> list[float]:
    """Seconds from a cursor key to the moved cursor painted, while a slow reload is in flight."""
    app = new_app(connector)
    samples: list[float] = []
    rng = random.Random(3)
    async with app.run_test(size=(120, 40)) as pilot:
        probe = PaintProbe(app)
        await probe.wait(lambda: first_row(app) is not None)
        await settle(app)
        table = table_of(app)
        assert table is not None
        table.focus()
        await pilot.pause()
        sandbox = connector.sandbox
        sandbox.faults.latency = 1.0
        for _ in range(reloads):
            await pilot.press("r")
            reload_started = time.perf_counter()
            for _ in range(presses_per_reload):
                await asyncio.sleep(rng.uniform(0.01, 0.05))
                if time.perf_counter() - reload_started > 0.9 or not app.workers:
                    break  # only keys pressed while the load is still in flight count
                table = table_of(app)
                assert table is not None
                row = table.cursor_row
                key = "down" if row < table.row_count - 1 else "up"
                samples.append(await probe.press(key, lambda row=row, t=table: t.cursor_row != row))  # type: ignore[misc]
            await settle(app)
        sandbox.faults.latency = 0.0
    return samples


def measure(rfis: int, presses: int, reloads: int) -> list[Row]:
    started = time.perf_counter()
    connector = Services(sandbox_rfis=rfis)  # the console's own path: it builds the sandbox as the CLI does
    connector.sandbox  # noqa: B018 - build it now, outside the timings
    built = time.perf_counter() - started
    first, switch = asyncio.run(page_switch(connector, presses))
    keys = asyncio.run(responsiveness(connector, reloads, 12))
    p95 = percentile(switch, 95)
    k95 = percentile(keys, 95)
    return [
        Row("page switch p50", ms(percentile(switch, 50)), "-", "-", "-", None,
            f"{rfis} RFIs embedded (sandbox built in {built:.1f} s), {len(switch)} presses of n; "
            f"max {ms(max(switch))}; the first press after start (not in the percentiles) took {ms(first)}"),
        Row("page switch p95", ms(p95), "-", "-", f"< {TARGET_MS:.0f} ms", p95 * 1000 < TARGET_MS),
        Row("responsiveness p95", ms(k95), "-", "-", f"< {TARGET_MS:.0f} ms", k95 * 1000 < TARGET_MS,
            f"up/down while a reload with 1 s latency is in flight; {len(keys)} keys over {reloads} reloads, "
            f"p50 {ms(percentile(keys, 50))}, max {ms(max(keys))}"),
    ]


if __name__ == "__main__":
    import sys

    from common import render

    print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 50000, 60, 5)))
