"""One console process kept started for the next tab: the interpreter up and the console's modules imported
(about 0.6 s of a console's start), waiting for its hand-over with nobody's name anywhere in it.

The next page or tab takes it; the next spare starts once the taken console has shown its tab its first screen
and then drawn nothing for a moment (its inbox is in), so the two never compete for the processor while someone
waits. With no spare ready (two tabs at once,
or the spare ended), a console is started on the spot: it imports first, then reads the same hand-over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from stablepay_console.web.consoles import ConsoleProcess

log = logging.getLogger("stablepay_console.web.access")

REFILL_AFTER = 10.0
"""Seconds after a hand-over the next spare starts at the latest, however busy the taken console still is."""
QUIET_SECONDS = 0.5
"""How long the taken console must have drawn nothing (after its first screen reached its tab)."""
LOOK_EVERY = 0.1


class Spares:
    def __init__(self, make: Callable[[], ConsoleProcess], enabled: bool = True) -> None:
        self.make = make
        self.enabled = enabled
        self.spare: ConsoleProcess | None = None
        self.filling = False
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    def take(self) -> ConsoleProcess:
        """The spare if one is started and alive, else a new console (started by its hand-over); a new spare follows."""
        spare, self.spare = self.spare, None
        if spare is not None and not spare.alive:
            self._later(spare.stop())
            spare = None
        taken = spare or self.make()
        if self.enabled:
            self._later(self._refill_after(taken))
        return taken

    async def fill(self) -> None:
        """Start a spare now, unless there is one or one is starting."""
        if not self.enabled or self.closed or self.spare is not None or self.filling:
            return
        self.filling = True
        try:
            process = self.make()
            await process.spawn()
        except OSError as exc:
            log.warning("spare console not started: %s", type(exc).__name__)
            return
        finally:
            self.filling = False
        if self.closed:
            await process.stop()
            return
        self.spare = process
        log.info("spare console started pid=%s", process.pid)

    async def _refill_after(self, taken: ConsoleProcess) -> None:
        deadline = time.monotonic() + REFILL_AFTER
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(taken.shown.wait(), REFILL_AFTER)
        while time.monotonic() < deadline and time.monotonic() - taken.last_output < QUIET_SECONDS:
            await asyncio.sleep(LOOK_EVERY)
        await self.fill()

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        """No more spares; the one waiting ends."""
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        spare, self.spare = self.spare, None
        if spare is not None:
            await spare.stop()
