"""Round history: every RFI the console or a headless command receives goes into the local record.

The API returns only a request's current round (spec 2.3: "earlier rounds are retained but not
returned"). The record keeps each round as it was seen (number, items, deadline, link state,
submittedAt) and each status with when it was first and last seen. A round that changes between
two fetches becomes the next round entry, so what changed stays visible.

`HistoryRecorder.saw` turns a page into what the record keeps of it (`sighting`: about ten microseconds
a request) and returns: the pages wait, as a few strings and bytes rather than as models (a sixth of the
memory), for a quiet moment (no page fetched for a second); then the record's
thread writes whatever has gathered in one transaction.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from stablepay_console.api.sanitize import clean, json_safe
from stablepay_console.storage.record import Record
from stablepay_console.storage.record_types import RfiSighting, RoundSighting, SeenPage
from stablepay_console.storage.record_worker import RecordWorker

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi

log = logging.getLogger(__name__)


def _safe_json(data: bytes) -> str:
    """pydantic's JSON of a model as safe text. JSON escapes every C0 control, so ASCII without DEL holds
    nothing a terminal could act on: most requests skip the per-character look."""
    if data.isascii() and b"\x7f" not in data:
        return data.decode("ascii")
    return json_safe(data.decode("utf-8"))


def _safe(text: str, max_len: int) -> str:
    if text.isascii() and text.isprintable() and len(text) <= max_len:
        return text
    return clean(text, max_len)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_NO_ROUND = {"round"}


def sighting(rfi: Rfi) -> RfiSighting:
    """What the record keeps of one fetched request (every string safe to show). It runs for every request
    received, on the event loop: 35,000 at a time in `rfis due`.

    pydantic writes the request (without its round) and its round as JSON (fast, in one pass: its serializer
    straight, as `model_dump_json` would call it); the fingerprint is the SHA-256 of the two. The safe text
    the record keeps of them, and the round's entry, are made from those bytes when the record's thread finds
    the request new or changed (`RfiSighting.details`): most of a page is neither."""
    request = rfi.__pydantic_serializer__.to_json(rfi, by_alias=True, exclude=_NO_ROUND)
    r = rfi.round
    if r is None:
        fingerprint = hashlib.sha256(request).hexdigest()
        return RfiSighting(_safe(rfi.id, 80), _safe(rfi.status, 40), fingerprint, details=partial(_kept, request))
    for moment in (r.issued_at, r.expires_at, r.submitted_at):
        if moment is not None and moment.tzinfo is None:  # here, so the page alone is not kept
            raise ValueError("The record keeps timezone-aware times only.")
    wire = r.__pydantic_serializer__.to_json(r, by_alias=True)
    digest = hashlib.sha256(request)
    digest.update(wire)
    return RfiSighting(_safe(rfi.id, 80), _safe(rfi.status, 40), digest.hexdigest(),
                       details=partial(_kept, request, r.round, wire))


def _kept(request: bytes, round_no: int = 0, wire: bytes | None = None) -> tuple[str, RoundSighting | None]:
    """The request's JSON as safe text, and its round's entry (`_safe_json` escapes what a terminal could act
    on; the round's fingerprint is the SHA-256 of that text)."""
    if wire is None:
        return _safe_json(request), None
    text = _safe_json(wire)
    return _safe_json(request), RoundSighting(round_no, text, _digest(text))


QUIET_SECONDS = 1.0
"""Fetched pages are written once fetching has paused this long, so the work never competes with paging."""
MAX_HOLD_SECONDS = 30.0
"""...or at the latest this long after the first page began to wait (a console that never pauses)."""
MAX_HELD = 2000
"""...or as soon as this many requests wait: a bulk fetch (an export, a watch poll) is written as it goes."""


class HistoryRecorder:
    """Holds fetched pages until a quiet moment, then hands them to the record's thread in one batch.

    A read of the record (the RFI detail, a shell command, a flush) first hands over what is held,
    so it always sees every page fetched before it. At exit, what is held is written too.
    """

    def __init__(
        self, worker: RecordWorker, quiet: float = QUIET_SECONDS, max_hold: float = MAX_HOLD_SECONDS,
        max_held: int = MAX_HELD,
    ) -> None:
        self.worker = worker
        self.quiet = quiet
        self.max_hold = max_hold
        self.max_held = max_held
        self._lock = threading.Lock()
        self._pending: list[SeenPage] = []
        self._timer: threading.Timer | None = None
        self._first = self._last = 0.0
        self._held = 0
        worker.add_feeder(self.push)

    def hook(self, profile: str, environment: str, clock: Callable[[], datetime]) -> Callable[[list[Rfi]], None]:
        """What a client calls with each page of RFIs it receives (`StablePayClient(on_rfis=...)`):
        `Services.client_for` gives each client one, so the inbox, the needs-action view, exports and `rfis watch`
        all feed the round history without knowing it."""

        def saw(rfis: list[Rfi]) -> None:
            self.saw(profile, environment, rfis, clock())

        return saw

    def saw(self, profile: str, environment: str, rfis: Sequence[Rfi], at: datetime) -> None:
        """Record a fetched page, later and elsewhere. Only what the record keeps is held: a walk of
        100,000 requests that outruns the record's thread holds strings, not the models."""
        if not rfis:
            return
        try:
            page = SeenPage(profile, environment, at, tuple(sighting(r) for r in rfis))
        except Exception as exc:  # the caller is fetching from the API: recording must never fail it
            log.warning("Not recorded: the requests received. %s", type(exc).__name__)
            return
        with self._lock:
            now = time.monotonic()
            if not self._pending:
                self._first, self._held = now, 0
            self._pending.append(page)
            self._last, self._held = now, self._held + len(rfis)
            bulk = self._held >= self.max_held
            if self._timer is None and not bulk:
                self._arm(self.quiet)
        if bulk:
            self.push()

    def _arm(self, delay: float) -> None:
        timer = threading.Timer(delay, self._due)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _due(self) -> None:
        with self._lock:
            self._timer = None
            if not self._pending:
                return
            now = time.monotonic()
            quiet_for = now - self._last
            if quiet_for < self.quiet and now - self._first < self.max_hold:
                self._arm(self.quiet - quiet_for)
                return
        self.push()

    def push(self) -> None:
        """Hand every held page to the record's thread now."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if not self._pending:
                return
            batch, self._pending = self._pending, []
        self.worker.fire(lambda record: _write(record, batch), "the requests received")


def _write(record: Record, batch: list[SeenPage]) -> int:
    return record.observe(batch)
