"""The team's queues over the whole account (UI-free): "My requests" and "Awaiting my review".

Which requests are in a queue is the record's: the claims (claimed by me, or assigned to me by a lead, which makes
me the claimant) and the steps (an answer someone else made ready: `services.triage.review`), never the page in
view. Each row is then read again from the API, as it is now (`services.rfi_lookup.find`: what the record last saw
of a request narrows the list it is in; the server's shared gate bounds the pages), and the rows are put deadline
first: the nearest deadline first, then the passed ones (most recently passed first), then those with none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.needs_action import needs_action_order
from stablepay_console.services.rfi_lookup import Wanted, find, find_one, wanted_from
from stablepay_console.services.triage.review import ReviewItem, review_queue
from stablepay_console.storage.record import Record

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi

MINE, REVIEW = "my requests", "awaiting my review"
QUEUES = (MINE, REVIEW)
MOST = 500
"""The most requests a queue holds: a person's queue is a handful; a record that says otherwise is not read whole."""


@dataclass(frozen=True)
class QueueAsk:
    """Which requests are in a queue, from the record: each one's ID and what the record last saw of it."""

    queue: str
    ids: tuple[str, ...]
    seen: dict[str, Wanted] = field(default_factory=dict)
    """What narrows the list each request is in (a request the record never saw is not here)."""
    review: tuple[ReviewItem, ...] = ()
    """The review queue's items (who made each answer ready), for "Awaiting my review"."""


@dataclass(frozen=True)
class QueueRows:
    """A queue's rows as the API has them now, deadline first; `missing`: in the queue, in no list of the account."""

    queue: str
    rows: list[Rfi]
    overdue: set[str]
    missing: list[str]
    pages: int


def queue_ask(record: Record, profile: str, me: str, queue: str) -> QueueAsk:
    """The requests of `queue` for `me`, read from the record alone (on its thread)."""
    review: tuple[ReviewItem, ...] = ()
    if queue == MINE:
        claims = record.claims(profile)
        ids = tuple(sorted(rfi_id for rfi_id, claim in claims.items() if claim.claimant == me))[:MOST]
    elif queue == REVIEW:
        review = tuple(review_queue(record, profile, me))
        ids = tuple(item.rfi_id for item in review)
    else:
        raise ValueError(f"no queue named {queue!r}")
    seen = {}
    for rfi_id in ids:
        wanted = wanted_from(record.history(profile, rfi_id))
        if wanted is not None:
            seen[rfi_id] = wanted
    return QueueAsk(queue, ids, seen, review)


async def queue_rows(client: StablePayClient, ask: QueueAsk, now: datetime) -> QueueRows:
    """Each request of the queue read again from the API; deadline first."""
    found = await find(client, ask.seen.values()) if ask.seen else None
    rows: list[Rfi] = list(found.rfis) if found is not None else []
    pages = found.pages if found is not None else 0
    lost = [rfi_id for rfi_id in ask.ids if rfi_id not in ask.seen or (found is not None and rfi_id in found.missing)]
    missing = []
    for rfi_id in lost:  # never seen by the record, or no longer where it was seen: the account's pages
        looked = await find_one(client, rfi_id)
        pages += looked.pages
        if looked.rfi is None:
            missing.append(rfi_id)
        else:
            rows.append(looked.rfi)
    in_queue = set(ask.ids)
    ordered, overdue = needs_action_order([rfi for rfi in rows if rfi.id in in_queue], now)
    return QueueRows(ask.queue, ordered, overdue, missing, pages)


def title(queue: str, count: int | None) -> str:
    """The queue's name with its count, as the view's line says it: `my requests (3)`."""
    return queue if count is None else f"{queue} ({count})"
