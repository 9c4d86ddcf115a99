"""The review queue: answers made ready by someone else, waiting for a second analyst (four eyes), oldest first.

Read from the record alone: the requests whose last step is `ready`, each checked against where it stands now
(its current round, its claim, the provider's status as last seen), leaving out the ones the reader made ready
themselves: they may not approve them. The inbox's "Awaiting my review" view shows these requests as the API
has them now, and the banner counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from stablepay_console.services.triage.state import READY, ready_at, step_of
from stablepay_console.storage.record import Record

MOST = 500
"""The most requests the queue holds (the oldest first): a team's review queue is a handful, a record that says
otherwise is not shown whole."""


@dataclass(frozen=True)
class ReviewItem:
    rfi_id: str
    made_ready_by: str
    ready_at: datetime
    note: str = ""
    """What the maker said with `ready`."""


def review_queue(record: Record, profile: str, me: str) -> list[ReviewItem]:
    """The requests ready for `me` to review, oldest ready first."""
    found = []
    for rfi_id, steps in record.every_triage_step(profile).items():
        if not steps or steps[-1].step != "ready":
            continue  # most requests: the last step taken is not a `ready`
        case = record.triage_case(profile, rfi_id)
        if step_of(case.status, case.claim, case.steps) != READY:
            continue  # closed by the provider, or a new round since
        made = ready_at(case.steps)
        if made is None or made.actor == me:
            continue  # four eyes: who made it ready does not review it
        found.append(ReviewItem(rfi_id, made.actor, made.at, made.note))
    return sorted(found, key=lambda item: (item.ready_at, item.rfi_id))[:MOST]
