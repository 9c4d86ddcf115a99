"""SIGTERM and SIGHUP end the console the way `q` does, so the terminal is given back as it was."""

from __future__ import annotations

import asyncio
import logging
import signal

from textual.app import App

log = logging.getLogger(__name__)


class ExitOnSignals(App[None]):
    """Left to Python's default, either signal kills the process at once: the alternate screen and mouse
    tracking stay on in the user's terminal. Headless runs (tests) leave signals alone."""

    EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

    def catch_exit_signals(self) -> None:
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for sig in self.EXIT_SIGNALS:
            try:
                loop.add_signal_handler(sig, self.exit_on_signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such signal
                continue

    def release_exit_signals(self) -> None:
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for sig in self.EXIT_SIGNALS:
            try:
                loop.remove_signal_handler(sig)
            except (NotImplementedError, RuntimeError, ValueError):
                continue

    def exit_on_signal(self, sig: int) -> None:
        log.info("Leaving on signal %s", signal.Signals(sig).name)
        self.exit(return_code=128 + sig)
