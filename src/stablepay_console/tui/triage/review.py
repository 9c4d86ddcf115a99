"""The review queue in the inbox: the banner's `3 to review`, and the view "Awaiting my review" (key v).

The queue is read from the record (`services.triage.review`: answers made ready by someone else) when the inbox
opens, on every team change heard, after a step, and on `r`, for the banner's count and who made each ready; the
view (`tui.triage.queues`) shows every such request of the account as the API has it now, deadline first.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stablepay_console.services.inbox_pager import REVIEW
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.tui.screens.inbox_base import InboxBase


REVIEW_HELP = """
**v** shows the requests awaiting your review: every answer of the account someone else made ready, deadline
first, each with who made it ready (Step) and the time left to its approve-by level (SLA), the count in the
view's line; **v** again goes back. The banner counts them
(`3 to review`). From the shell: `rfis approve|reject ID`.
"""


class ReviewQueue:
    def __init__(self, screen: InboxBase) -> None:
        self.screen = screen

    def read(self) -> None:
        start(self.screen, self._read, "inbox-review", exclusive=True)

    async def _read(self) -> None:
        console = self.screen.console
        profile = console.profile
        if profile is None:
            return
        try:
            queue = await asyncio.wrap_future(console.services.triage.review_queue(profile.name))
        except RecordError:
            return  # the banner keeps its count; the record's problem is said where the record is used
        pager = self.screen.paging
        changed = queue != pager.review
        pager.review = queue
        console.review_count = len(queue)
        if changed and pager.view == REVIEW and pager.queues[REVIEW].current is not None:
            self.screen.queues.load(REVIEW)  # the queue in view changed: its rows are read again

    def toggle(self) -> None:
        self.screen.show_view(REVIEW)
        self.read()
