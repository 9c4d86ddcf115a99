"""Textual's Linux driver, for a terminal that can go away at any moment.

Closing the terminal window hangs up its tty: the kernel sends the console SIGHUP and SIGCONT
together, and every later read or write of the tty fails with EIO. Textual 8's `LinuxDriver` meets
that in two ways that can hang the process for ever in shutdown:

- its writer thread dies on the first failed write; the next 30 writes fill its bounded queue, and
  the 31st (or `close()`'s final `put(None)`) blocks the event loop's thread for good;
- it answers the SIGCONT by starting application mode again (the handler is meant for `fg` after
  Ctrl+Z), which swaps in a second writer thread while the first is being stopped.

Here a failed write marks the terminal gone and later output is dropped (there is nothing left to
draw on, or to restore), the writer thread never dies, SIGCONT does nothing once the terminal is
gone, and a read that fails ends the console as SIGHUP would.
"""

from __future__ import annotations

import logging
import os
import signal
from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver

log = logging.getLogger(__name__)


class TerminalOutput:
    """The file the driver's writer thread writes to: a failed write or flush says the terminal is gone."""

    def __init__(self, file: IO[str], driver: TerminalDriver) -> None:
        self._file = file
        self._driver = driver

    def write(self, text: str) -> None:
        if self._driver.gone:
            return
        try:
            self._file.write(text)
        except (OSError, ValueError):  # EIO on a hung-up tty; ValueError on a closed file
            self._driver.mark_gone()

    def flush(self) -> None:
        if self._driver.gone:
            return
        try:
            self._file.flush()
        except (OSError, ValueError):
            self._driver.mark_gone()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return True


class TerminalDriver(LinuxDriver):
    """`LinuxDriver` that stops writing to a terminal once it is gone, and never waits on it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.gone = False
        """The terminal hung up (SIGHUP, or a read or write of it failed): nothing is written to it again."""
        super().__init__(*args, **kwargs)
        self._file = TerminalOutput(self._file, self)  # type: ignore[arg-type,assignment]

    def mark_gone(self) -> None:
        if not self.gone:
            self.gone = True
            log.info("The terminal is gone; nothing more is written to it")

    def write(self, data: str) -> None:
        if not self.gone:
            super().write(data)

    def _sigcont_application(self, *_: object) -> None:
        # A hang-up comes with SIGCONT: starting application mode again on a dead tty would only hang.
        if not self.gone and os.isatty(self.fileno):
            super()._sigcont_application()

    def stop_application_mode(self) -> None:
        if self.gone:
            self.disable_input()  # stops the input thread; the terminal has nothing to restore
            return
        super().stop_application_mode()

    def close(self) -> None:
        if self.gone:
            return  # the writer thread is a daemon: never wait on output nobody will read
        super().close()

    def run_input_thread(self) -> None:
        try:
            super().run_input_thread()
        except OSError:  # EIO: the terminal hung up, perhaps before its SIGHUP reached us
            self.mark_gone()
            os.kill(os.getpid(), signal.SIGHUP)
