"""A webhook delivery as a hint to the watch: ask the API, report and record only what it says (UI-free).

The provider's RFI event names a transfer and, in it, the transfer's user. The watch reads that user's
transaction requests (`/v2/rfis?userId=…&kind=transaction`, paged through the shared gate like every other
request) and keeps those of the named transfer. What changed is what the watch's `Tracker` finds between
what it remembers and what the API said: a new request, a new round, a status change. A transfer the API
does not know leads to nothing; a replayed OPEN of a request since answered finds it answered.

The comparison runs on a scratch copy of what is remembered: the watch's memory moves on (`commit`) only
once the delivery and what it led to are recorded, so a delivery refused with a 503 and retried later is
reported then, not lost.
"""

from __future__ import annotations

import dataclasses
import json
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.sanitize import clean
from stablepay_console.services.gc_pause import gc_paused
from stablepay_console.services.watch.events import Tracker, WatchEvent

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi
    from stablepay_console.services.webhooks.envelope import Envelope

TRANSACTION = "transaction"


@dataclass
class Learned:
    """What one delivery led to: the requests the API holds for its transfer, and the events found."""

    rfis: list[Rfi]
    events: list[WatchEvent]
    requests: int = 0
    """API requests it cost (pages read)."""
    scratch: Tracker = field(default_factory=Tracker)

    def summary(self) -> str:
        """What the record keeps of it (`led_to`): short JSON, every value cleaned."""
        body = {"requests": [clean(r.id, 80) for r in self.rfis][:20],
                "events": [[e.kind, clean(e.rfi.id, 80)] for e in self.events][:20], "apiRequests": self.requests}
        return json.dumps(body, ensure_ascii=True)[:2000]

    def commit(self, tracker: Tracker) -> None:
        """The watch remembers what the API said (once it is recorded)."""
        tracker.seen.update(self.scratch.seen)


async def learn(client: StablePayClient, tracker: Tracker, envelope: Envelope, now: datetime) -> Learned:
    """Ask the API about the delivery's transfer; `tracker` is not changed (see `Learned.commit`)."""
    from stablepay_console.api.paging import PagingReport

    if envelope.user_id is None or envelope.transfer_id is None:
        return Learned([], [])
    paging = PagingReport()
    found: list[Rfi] = []
    rfis = client.iter_rfis(RfiFilters(kind=TRANSACTION, user_id=envelope.user_id), report=paging)
    with gc_paused():
        async with aclosing(rfis):
            async for rfi in rfis:
                if rfi.transfer_id is not None and rfi.transfer_id.lower() == envelope.transfer_id:
                    found.append(rfi)
    keys = {clean(rfi.id, 80) for rfi in found}
    scratch = Tracker(seen={k: dataclasses.replace(v) for k, v in tracker.seen.items() if k in keys},
                      primed=True, marks=tracker.marks)
    events = scratch.observe(found, now, baseline=False)
    return Learned(found, events, paging.pages + paging.reread_pages, scratch)
