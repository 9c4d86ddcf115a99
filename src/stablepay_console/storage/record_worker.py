"""Every record call on one background thread, so neither the event loop nor the UI waits on the disk.

Calls run one at a time, in the order they were made (a read sees every write made before it).
The thread opens the record on first use and ends, closing it, after a few idle seconds; a later
call starts it again. At interpreter exit every queued call still runs, so a headless command that
returns before its last page is written loses nothing.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from stablepay_console.storage.record import Record, RecordError, RecordNotWritten
from stablepay_console.storage.witness import Witness, WitnessCheck, WitnessUnreadable
from stablepay_console.storage.writing import NOT_WRITTEN, NotWritten

log = logging.getLogger(__name__)

T = TypeVar("T")
Opener = Callable[[bool], Record]
"""Opens the record; the flag asks for an integrity check (the first open of this run)."""

IDLE_SECONDS = 5.0

_LIVE: weakref.WeakSet[RecordWorker] = weakref.WeakSet()
_made = 0
"""How many workers this process has made."""


def file_opener(path: Path) -> Opener:
    """Opens the record file at `path` (fixed when the worker is made, not when it first opens)."""
    from stablepay_console.storage.local import open_record  # here: a team record's commands never open SQLite

    return lambda check: open_record(path, check=check)


class RecordWorker:
    """Runs `fn(record)` calls on its own thread. `problem` says why the record cannot be used, if so."""

    def __init__(
        self, opener: Opener | None = None, idle_seconds: float = IDLE_SECONDS, witness: Witness | None = None
    ) -> None:
        if opener is None:
            from stablepay_console.storage.local import record_file

            opener = file_opener(record_file())
        self._opener = opener
        self.witness = witness
        """Where this machine keeps the last chain head it saw; looked at once, when the record first opens."""
        self.witnessed: WitnessCheck | None = None
        """What that look found (None until the record was opened, or when it could not look)."""
        self._idle = idle_seconds
        self._cond = threading.Condition()
        self._tasks: deque[tuple[Callable[[Record], Any], Future[Any]]] = deque()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._busy = False
        self._checked = False
        self.notice: str | None = None
        """Set when a bad file was set aside on opening (the message says where it was kept)."""
        self.problem: str | None = None
        """Set when the record cannot be used at all (a newer console's file); every call then fails."""
        self._refusal: RecordError | None = None
        self.on_notice: Callable[[str, bool], None] | None = None
        """Told (on the record's thread, once) what opening the record came to: a bad file set aside
        (False), or the record refused, every call failing from then on (True); the message says why."""
        self._feeders: list[Callable[[], None]] = []
        global _made
        self.made, _made = _made, _made + 1
        """The order this worker was made in, in this process (`made_so_far`)."""
        self.unsaved = 0
        """How many `fire` calls failed: what they were for is `last_unsaved` (and the log)."""
        self.last_unsaved = ""
        _LIVE.add(self)

    def add_feeder(self, push: Callable[[], None]) -> None:
        """`push` hands over work it holds back (pages waiting for a quiet moment); called before a read."""
        self._feeders.append(push)

    def _feed(self) -> None:
        for push in self._feeders:
            push()

    def submit_after_held(self, fn: Callable[[Record], T]) -> Future[T]:
        """`submit`, after handing over what is held back: a read that must see every page fetched so far."""
        self._feed()
        return self.submit(fn)

    # --- calling ------------------------------------------------------------------------------

    def submit(self, fn: Callable[[Record], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._cond:
            self._stopping = False
            self._tasks.append((fn, future))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="stablepay-record", daemon=True)
                self._thread.start()
            self._cond.notify()
        return future

    def call(self, fn: Callable[[Record], T], timeout: float | None = 60.0) -> T:
        """Run `fn` after everything held back, and wait for its result (the headless commands)."""
        self._feed()
        return self.submit(fn).result(timeout)

    async def run(self, fn: Callable[[Record], T]) -> T:
        """Run `fn` after everything held back, without blocking the event loop."""
        import asyncio  # here: the headless commands (`call`, `submit`) start no loop

        self._feed()
        return await asyncio.wrap_future(self.submit(fn))

    def fire(self, fn: Callable[[Record], T], what: str) -> Future[T]:
        """Run `fn` and do not wait; a failure is logged (once the reason is known), never raised."""
        future = self.submit(fn)

        def done(f: Future[T]) -> None:
            exc = f.exception() if not f.cancelled() else None
            if exc is not None:
                log.warning("Not recorded: %s. %s", what, exc)
                self.unsaved, self.last_unsaved = self.unsaved + 1, f"{what}: {exc}"
            if isinstance(exc, RecordNotWritten):  # a full or read-only disk: said once, not once per batch
                NOT_WRITTEN.post(f"{exc} Not recorded: {what}.")

        future.add_done_callback(done)
        return future

    def flush(self, timeout: float | None = 60.0) -> None:
        """Wait until every call made so far (and everything held back) has run."""
        self._feed()
        if self._thread is None and not self._tasks:
            return
        probe = self.submit(lambda record: None)
        try:
            probe.result(timeout)
        except RecordError:
            pass
        except TimeoutError:
            probe.cancel()  # the probe is not a write: `pending` then counts the caller's calls only
            raise

    @property
    def pending(self) -> int:
        """Calls accepted and not yet run (the one running included; a cancelled one not)."""
        with self._cond:
            waiting = sum(not future.cancelled() for _, future in self._tasks)
            return waiting + (self._thread is not None and self._busy)

    def close(self, timeout: float | None = 60.0) -> None:
        """Run what is queued, close the record and end the thread."""
        self._feed()
        with self._cond:
            self._stopping = True
            thread = self._thread
            self._cond.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # --- the thread ---------------------------------------------------------------------------

    def _open(self) -> Record:
        if self._refusal is not None:
            raise type(self._refusal)(str(self._refusal))
        try:
            record = self._opener(not self._checked)
        except RecordNotWritten:
            raise  # the disk refused for now (full, read-only): the next call tries again
        except RecordError as exc:
            self._refusal, self.problem = exc, str(exc)
            log.warning("%s", exc)
            self._tell(str(exc), refused=True)
            raise
        first = not self._checked
        self._checked = True
        if record.notice:
            self.notice = record.notice
            self._tell(record.notice, refused=False)
        if first and self.witness is not None:
            self._look(record, self.witness)
        return record

    def _look(self, record: Record, witness: Witness) -> None:
        """Compare the record's chain with what this machine saw of it (a file set aside starts anew)."""
        try:
            if record.notice:
                witness.forget(record.witness_key)
            holds = witness.holds
            self.witnessed = witness.look(record.witness_key, record.audit_head(), record.audit_hash,
                                          chain_ok=lambda: holds is not None and holds(record))
        except WitnessUnreadable as exc:
            self.witnessed = WitnessCheck(None, str(exc))
        except (RecordError, NotWritten) as exc:  # the record went away, or the disk is full: the call itself says
            log.warning("Could not compare the audit log with this machine's witness: %s", exc)
            return
        if not self.witnessed.ok:
            log.warning("%s", self.witnessed.problem)
            self._tell(f"{self.witnessed.problem} Run `stablepay-console audit verify`.", refused=False)

    def _tell(self, message: str, refused: bool) -> None:
        if self.on_notice is not None:
            try:
                self.on_notice(message, refused)
            except Exception:  # whoever listens must not stop the record from working
                log.warning("Could not pass on the record's notice", exc_info=True)

    def _next(self) -> tuple[Callable[[Record], Any], Future[Any]] | None:
        with self._cond:
            while not self._tasks:
                if self._stopping or (not self._cond.wait(self._idle) and not self._tasks):
                    self._thread = None
                    return None
            return self._tasks.popleft()

    def _serve(self) -> None:
        record: Record | None = None
        try:
            while (task := self._next()) is not None:
                fn, future = task
                if not future.set_running_or_notify_cancel():
                    continue
                self._busy = True
                try:
                    if record is None:
                        record = self._open()
                    future.set_result(fn(record))
                except BaseException as exc:
                    future.set_exception(exc)
                finally:
                    self._busy = False
        finally:
            if record is not None:
                record.close()


def made_so_far() -> int:
    """How many workers this process has made: `flush_all(since=...)` leaves those alone."""
    return _made


def flush_all(seconds: float, since: int = 0) -> int:
    """Run every call accepted so far, waiting at most `seconds` in all (a signal's exit path); with `since`,
    only in the workers made from then on (a command's own, not a console's of the same process).

    Returns how many accepted calls had not run when the time was up: 0 when everything was written."""
    deadline = time.monotonic() + seconds
    workers = [worker for worker in list(_LIVE) if worker.made >= since]
    for worker in workers:
        try:
            worker.flush(max(0.0, deadline - time.monotonic()))
        except Exception:  # timed out, or the record could not be opened: count what is left
            pass
    return sum(worker.pending for worker in workers)


@atexit.register
def _drain_all() -> None:
    for worker in list(_LIVE):
        worker.close(timeout=30.0)
