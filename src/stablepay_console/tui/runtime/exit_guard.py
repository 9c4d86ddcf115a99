"""SIGHUP and SIGTERM end the console within two seconds, whatever state it is in.

The console leaves the way `q` does: the app exits, the terminal (if still there) is restored, and
the record's queued writes are flushed. That path runs on the event loop, and a loop that is
blocked, or a shutdown that waits on something that never comes, must not keep a console with a
key in memory running after its terminal is closed. So a guard thread, started before the console
and woken by the signal, gives the graceful path `GRACE_SECONDS`, or `LEAVING_SECONDS` once the
event loop has begun to leave (`leaving()`: on a busy machine the loop may reach the signal's request
late, then need a moment to finish); after that it flushes the record for at most `FLUSH_SECONDS`
and ends the process itself.

The signal handler only sets plain attributes and writes one byte to a pipe: a handler runs between
two bytecodes of whatever the main thread was doing, so it must take no lock that code may hold.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType

log = logging.getLogger(__name__)

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
GRACE_SECONDS = 1.2
"""How long the console may take to leave on its own after a signal."""
LEAVING_SECONDS = 1.5
"""The same, from the signal, once its event loop has begun to leave."""
FLUSH_SECONDS = 0.5
"""How long the record's accepted writes may take when the guard ends the process (so at most 2 s in all)."""

Flush = Callable[[float], int]
"""Flushes the record within the seconds given; returns how many accepted writes did not get written."""

SIGNALLED, LEAVING, FINISHED = b"!", b"~", b"."


def flush_record(seconds: float) -> int:
    """Flush every record worker of the process, if the record was ever used (never importing it here:
    the main thread may hold the import lock when the guard runs)."""
    worker = sys.modules.get("stablepay_console.storage.record_worker")
    return int(worker.flush_all(seconds)) if worker is not None else 0


class ExitGuard:
    """Install once, before the console starts; `finish()` once it has ended by itself."""

    def __init__(self, flush: Flush = flush_record, *, grace: float = GRACE_SECONDS,
                 leaving: float = LEAVING_SECONDS, end: Callable[[int], object] = os._exit) -> None:
        self.flush = flush
        self.grace, self.leaving_grace = grace, max(grace, leaving)
        self.end = end
        """Ends the process with the signal's code (`os._exit`; a test records the call instead)."""
        self.signal: int | None = None
        """The first exit signal received, if any."""
        self.on_signal: Callable[[int], None] | None = None
        """Asks the running console to leave (set once its event loop runs; called in the handler)."""
        self.on_hangup: Callable[[], None] | None = None
        """Tells the terminal driver that the terminal is gone (called in the handler)."""
        self._read, self._write = os.pipe()
        self._thread = threading.Thread(target=self._watch, name="stablepay-exit-guard", daemon=True)

    def install(self) -> None:
        for sig in EXIT_SIGNALS:
            signal.signal(sig, self._handle)
        self._thread.start()

    @property
    def code(self) -> int:
        """The exit code a signal gives: 128 + its number (129 for SIGHUP, 143 for SIGTERM)."""
        return 128 + (self.signal or 0)

    def _handle(self, sig: int, frame: FrameType | None) -> None:
        if sig == signal.SIGHUP and self.on_hangup is not None:
            self.on_hangup()
        if self.signal is not None:
            return  # the second signal changes nothing: the first one's deadline stands
        self.signal = sig
        os.write(self._write, SIGNALLED)
        if self.on_signal is not None:
            self.on_signal(sig)

    def leaving(self) -> None:
        """The console's event loop has begun to leave after the signal: it gets `LEAVING_SECONDS` in all."""
        if self.signal is not None:
            os.write(self._write, LEAVING)

    def finish(self) -> int:
        """The console has ended: stand the guard down. After a signal, flush the record (bounded) and
        return how many accepted writes were not written; 0 otherwise."""
        unsaved = self.flush(FLUSH_SECONDS) if self.signal is not None else 0
        os.write(self._write, FINISHED)
        return unsaved

    def tell(self, unsaved: int) -> None:
        """Log, and say on the terminal if it is still there, that the console ended on the signal and
        what it could not save. Written to the file descriptor itself: the thread that holds
        sys.stderr's lock may be the one that is stuck."""
        said = f"stablepay-console: ended by {signal.Signals(self.signal or 0).name}."
        if unsaved:
            said += f" {unsaved} record write(s) could not be saved in time and are lost."
        log.info("%s", said)
        try:
            if self.signal != signal.SIGHUP or os.isatty(2):  # a closed terminal has no one to read it
                os.write(2, f"{said}\n".encode())
        except OSError:
            pass

    def _watch(self) -> None:
        if os.read(self._read, 1) != SIGNALLED:
            return
        signalled = time.monotonic()
        deadline = signalled + self.grace
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([self._read], [], [], left)
            if not ready:
                break
            if os.read(self._read, 1) != LEAVING:
                return  # the console left on its own; finish() flushed the record
            deadline = signalled + self.leaving_grace
        log.warning("The console had not left %.1f s after %s: ending it", time.monotonic() - signalled,
                    signal.Signals(self.signal or 0).name)
        self.tell(self.flush(FLUSH_SECONDS))
        self.end(self.code)
