"""Round history: every RFI the console or a headless command receives goes into the local record.

The API returns only a request's current round (spec 2.3: "earlier rounds are retained but not
returned"). The record keeps each round as it was seen (number, items, deadline, link state,
submittedAt) and each status with when it was first and last seen. A round that changes between
two fetches becomes the next round entry, so what changed stays visible.

`HistoryRecorder.saw` costs the caller a list append: the pages wait for the record's thread,
which writes whatever has gathered in one transaction.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from datetime import datetime

from stablepay_console.api.models import Rfi, RfiRound
from stablepay_console.api.sanitize import clean, json_safe
from stablepay_console.storage.record import Record
from stablepay_console.storage.record_types import RfiSighting, RoundSighting, SeenPage, stamp
from stablepay_console.storage.record_worker import RecordWorker


def _safe_json(text: str) -> str:
    # Printable ASCII holds nothing a terminal could act on: skip the per-character look (most pages).
    return text if text.isascii() and text.isprintable() else json_safe(text)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _round_sighting(r: RfiRound) -> RoundSighting:
    # pydantic writes the JSON (fast, in one pass); json_safe escapes what a terminal could act on.
    wire = _safe_json(r.model_dump_json(by_alias=True))
    return RoundSighting(
        round_no=r.round,
        round_id=clean(r.id, 80),
        issued_at=stamp(r.issued_at),
        expires_at=stamp(r.expires_at) if r.expires_at else None,
        submitted_at=stamp(r.submitted_at) if r.submitted_at else None,
        link=clean(r.link, 2000) if r.link else None,
        wire_json=wire,
        fingerprint=_digest(wire),
    )


def sighting(rfi: Rfi) -> RfiSighting:
    """What the record keeps of one fetched request (every string safe to show)."""
    request = _safe_json(rfi.model_dump_json(by_alias=True, exclude={"round"}))
    round_ = _round_sighting(rfi.round) if rfi.round is not None else None
    whole = request + (round_.fingerprint if round_ else "")
    return RfiSighting(clean(rfi.id, 80), clean(rfi.status, 40), _digest(whole), request, round_)


class HistoryRecorder:
    """Gathers fetched pages and hands them to the record's thread, a batch per transaction."""

    def __init__(self, worker: RecordWorker) -> None:
        self.worker = worker
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str, datetime, Sequence[Rfi]]] = []
        self._scheduled = False

    def saw(self, profile: str, environment: str, rfis: Sequence[Rfi], at: datetime) -> None:
        """Record a fetched page, later and elsewhere; returns at once."""
        if not rfis:
            return
        with self._lock:
            self._pending.append((profile, environment, at, rfis))
            if self._scheduled:
                return
            self._scheduled = True
        self.worker.fire(self._write, "record the requests it received")

    def _write(self, record: Record) -> int:
        with self._lock:
            batch, self._pending, self._scheduled = self._pending, [], False
        pages = [SeenPage(p, e, at, tuple(sighting(r) for r in rfis)) for p, e, at, rfis in batch]
        return record.observe(pages)
