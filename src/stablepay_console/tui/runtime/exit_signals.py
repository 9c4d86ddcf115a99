"""SIGTERM and SIGHUP end the console the way `q` does, so a terminal still there is given back as it was.

The signals themselves are caught by an `ExitGuard` installed before the console starts (see
exit_guard.py): it asks the running app to leave, and ends the process itself if that takes too long.
A closed terminal (SIGHUP) is never written to again (terminal_driver.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

from textual.app import App
from textual.driver import Driver
from textual.drivers.linux_driver import LinuxDriver
from textual.widget import AwaitMount

from stablepay_console.tui.runtime.exit_guard import ExitGuard
from stablepay_console.tui.runtime.terminal_driver import TerminalDriver

log = logging.getLogger(__name__)


class ExitOnSignals(App[None]):
    """Left to Python's default, either signal kills the process at once: the alternate screen and mouse
    tracking stay on in the user's terminal. Headless runs (tests) have no guard and leave signals alone."""

    exit_guard: ExitGuard | None = None
    """Set by the command line before `run()`: the installed console's guard."""

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        return TerminalDriver if driver is LinuxDriver else driver

    def catch_exit_signals(self) -> None:
        guard = self.exit_guard
        if guard is None or self.is_headless:
            return
        loop = asyncio.get_running_loop()
        guard.on_hangup = self.terminal_gone

        def leave(sig: int) -> None:  # in the signal handler: hand it to the event loop, take no lock
            loop.call_soon_threadsafe(self.exit_on_signal, sig)

        guard.on_signal = leave
        if guard.signal is not None:  # it came while the console was starting
            self.exit_on_signal(guard.signal)

    def release_exit_signals(self) -> None:
        if self.exit_guard is not None:
            self.exit_guard.on_signal = None  # the guard's deadline still stands until the process ends

    def terminal_gone(self) -> None:
        """SIGHUP: when the terminal really hung up (it is a terminal no more), never write to it again.
        Called in a signal handler: one system call and a flag."""
        driver = self._driver
        if isinstance(driver, TerminalDriver) and not os.isatty(driver.fileno):
            driver.gone = True

    def exit_on_signal(self, sig: int) -> None:
        log.info("Leaving on signal %s", signal.Signals(sig).name)
        if self.exit_guard is not None:
            self.exit_guard.leaving()
        self.exit(return_code=128 + sig)

    @property
    def leaving(self) -> bool:
        """The console is leaving: it was asked to (q), or an exit signal came and its request to leave may still
        wait behind the keys already queued (read in a plain attribute the signal handler set)."""
        guard = self.exit_guard
        return self._exit or (guard is not None and guard.signal is not None)

    def switch_mode(self, mode: str) -> AwaitMount:
        # Leaving: a mode's first screen added now would change the stacks shutdown walks. After a signal, the
        # screens asked for by keys typed before it are not built either: on a busy machine five queued switches
        # kept the event loop from the signal's request to leave past the guard's 1.2 s.
        if self.leaving:
            return AwaitMount(self, [])  # type: ignore[arg-type]  # no widgets: the parent is never used
        return super().switch_mode(mode)

    def _handle_exception(self, error: Exception) -> None:
        # Leaving (q, or a signal) while a screen is still being mounted can make its on_mount query
        # children that shutdown already removed. The user asked to leave: log it, never a traceback, and leave
        # now, as Textual does after any unhandled error (left waiting, the signal guard had to end the process).
        if self._exit:
            log.warning("While leaving: %s", type(error).__name__)
            self._close_messages_no_wait()
            return
        super()._handle_exception(error)

    def _print_error_renderables(self) -> None:
        driver = self._driver
        if isinstance(driver, TerminalDriver) and driver.gone:
            if self._exit_renderables:
                log.warning("%d error(s) not shown: the terminal was gone", len(self._exit_renderables))
            self._exit_renderables.clear()
            return
        super()._print_error_renderables()
