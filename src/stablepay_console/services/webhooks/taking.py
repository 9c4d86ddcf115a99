"""Taking a verified delivery: once, recorded, and only what the API says (UI-free).

1. Taken before (by this watcher or another on the same team record)? Acknowledged, nothing done.
2. The API is asked about the delivery's transfer (`services.watch.hints.learn`), through the client and
   its shared gate: a burst of deliveries waits its turn like any other request.
3. The delivery's row and the facts it led to are written in one transaction of the team record
   (`DeliveryLedger.take_delivery`): the unique key (server, eventId) is the database's, so of two
   watchers given the same delivery one writes and the other finds it taken.
   With them goes the watcher's radar as it now stands (the banner's count), and the database tells every
   console of the team (LISTEN): they read the count and the needs-action view again.
4. Only then is it acknowledged, and its events reported (`on_taken`), and the watch's memory moved on.

The team record unreachable, or the API failing: **503**, the provider retries (for 24 hours), and the
sweep remains the reconcile for whatever a retry never brings. Deliveries are taken one at a time, so two
deliveries about one request never report the same change twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.history import sighting
from stablepay_console.services.team.radar import snapshot
from stablepay_console.services.watch.events import Tracker
from stablepay_console.services.watch.hints import Learned, learn
from stablepay_console.services.webhooks.receiver import Outcome
from stablepay_console.storage.record import RecordError, delivery_ledger
from stablepay_console.storage.record_types import SeenPage

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.profiles.model import Profile
    from stablepay_console.services.webhooks.envelope import Envelope
    from stablepay_console.storage.record_worker import RecordWorker

TAKEN, TAKEN_BEFORE = "taken", "taken before"


class DeliveryTaker:
    """`process` for the `Receiver`: one profile's client, the watch's tracker, and the team record."""

    def __init__(self, record: RecordWorker, profile: Profile, client: StablePayClient, tracker: Tracker,
                 clock: Callable[[], datetime], on_taken: Callable[[Learned], None],
                 say: Callable[[str], None]) -> None:
        self.record = record
        self.profile = profile
        self.client = client
        self.tracker = tracker
        self.clock = clock
        self.on_taken = on_taken
        self.say = say
        self._one_at_a_time = asyncio.Lock()
        self.api_requests = 0
        """API requests the deliveries cost so far (for the benchmark and the logs)."""

    def _unavailable(self, envelope: Envelope, why: str) -> Outcome:
        self.say(f"webhook {envelope.event_id} not taken (503, the provider retries): {why}")
        return Outcome(503, "not taken")

    async def __call__(self, envelope: Envelope) -> Outcome:
        from stablepay_console.api.error_text import error_text
        from stablepay_console.api.errors import APIError

        name = self.profile.name
        async with self._one_at_a_time:
            try:
                if await self.record.run(lambda r: delivery_ledger(r).delivery_known(name, envelope.event_id)):
                    return Outcome(200, TAKEN_BEFORE)
            except RecordError as exc:
                return self._unavailable(envelope, str(exc))
            now = self.clock()
            try:
                learned = await learn(self.client, self.tracker, envelope, now)
            except APIError as exc:
                return self._unavailable(envelope, f"the API: {error_text(exc, 200, status=True)}")
            self.api_requests += learned.requests
            sightings = tuple(sighting(rfi) for rfi in learned.rfis)
            pages = [SeenPage(name, self.profile.environment, now, sightings)] if sightings else []
            led_to = learned.summary()
            radar = snapshot(Tracker(seen={**self.tracker.seen, **learned.scratch.seen}), now)
            try:
                taken = await self.record.run(lambda r: delivery_ledger(r).take_delivery(
                    name, envelope.event_id, envelope.event_type, led_to, pages, radar))
            except RecordError as exc:
                return self._unavailable(envelope, str(exc))
            if not taken:
                return Outcome(200, TAKEN_BEFORE)
            learned.commit(self.tracker)
            self.on_taken(learned)
            return Outcome(200, TAKEN)
