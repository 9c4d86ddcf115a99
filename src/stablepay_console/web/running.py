"""The running consoles: the caps per user and in total, the console a page started for its tab, the idle limit,
and ending them all.

A page of the console starts a console for its sign-in as it is served (the page's script and the WebSocket
take about a second to come; the console starts meanwhile). At most one such console waits per sign-in, it
counts against the caps like any other, and it is ended if no tab of that sign-in attaches within
`unclaimed_seconds`.
"""

from __future__ import annotations

import asyncio
import logging
import time

from stablepay_console.web.consoles import ConsoleProcess
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import SignIn

log = logging.getLogger("stablepay_console.web.access")

DEFAULT_SIZE = (80, 24)


class Consoles:
    """The running consoles, those waiting for their tab among them."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.running: dict[str, tuple[ConsoleProcess, asyncio.Event]] = {}
        self.waiting: dict[str, ConsoleProcess] = {}
        """Sign-in id -> the console a page of that sign-in started, until one of its tabs attaches."""
        self.last_size: tuple[int, int] | None = None

    def refusal(self, user: str) -> str | None:
        """Why another console may not start for `user` now, or None."""
        if len(self.running) >= self.settings.max_sessions:
            return f"the server runs its limit of {self.settings.max_sessions} consoles; try again later"
        mine = sum(1 for process, _ in self.running.values() if process.user == user)
        if mine >= self.settings.max_sessions_per_user:
            return (f"you have {mine} consoles open, the limit per user; close a tab first")
        return None

    def add(self, process: ConsoleProcess) -> asyncio.Event:
        """Register a console as it starts; the event is set when it must end (idle, or the server stopping)."""
        ended = asyncio.Event()
        self.running[process.app_service_id] = (process, ended)
        return ended

    def remove(self, process: ConsoleProcess) -> None:
        self.running.pop(process.app_service_id, None)
        self.unclaim(process)

    # --- the console a page started, waiting for its tab ------------------------------------

    def waits_for(self, signin: SignIn) -> bool:
        return signin.id in self.waiting

    def hold_for(self, signin: SignIn, process: ConsoleProcess) -> None:
        self.waiting[signin.id] = process

    def claim(self, signin: SignIn) -> tuple[ConsoleProcess, asyncio.Event] | None:
        """The console waiting for this sign-in's tab, now this tab's (even one that ended: the tab is told why)."""
        process = self.waiting.pop(signin.id, None)
        if process is None:
            return None
        found = self.running.get(process.app_service_id)
        return (process, found[1]) if found is not None else None

    def unclaim(self, process: ConsoleProcess) -> bool:
        """Take back a console no tab claimed; False once a tab has it."""
        for key, waiting in list(self.waiting.items()):
            if waiting is process:
                del self.waiting[key]
                return True
        return False

    def size_guess(self, signin: SignIn) -> tuple[int, int]:
        """The terminal size a console started for a page draws at until its tab says: this sign-in's last tab's, or
        the last any tab had (a resize on attach corrects a wrong guess)."""
        return signin.terminal_size or self.last_size or DEFAULT_SIZE

    def note_size(self, signin: SignIn, size: tuple[int, int]) -> None:
        signin.terminal_size = self.last_size = size

    # --- ending -----------------------------------------------------------------------------

    def idle(self) -> list[ConsoleProcess]:
        now = time.monotonic()
        return [p for p, _ in self.running.values() if now - p.last_active > self.settings.idle_seconds]

    def end(self, process: ConsoleProcess) -> None:
        found = self.running.get(process.app_service_id)
        if found is not None:
            found[1].set()

    def end_all(self) -> None:
        for _, ended in self.running.values():
            ended.set()

    async def watch_idle(self) -> None:
        """End idle consoles, checking a few times per idle period (at most every 30 s)."""
        every = max(0.2, min(30.0, self.settings.idle_seconds / 4))
        while True:
            await asyncio.sleep(every)
            for process in self.idle():
                log.info("session idle user=%s console=%s", process.user, process.app_service_id[:8])
                self.end(process)
