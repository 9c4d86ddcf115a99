"""The review queue in the inbox: the view "Awaiting my review" (key v) and the banner's `3 to review`.

The queue is read from the record (`services.triage.review`: answers made ready by someone else, oldest first)
when the inbox opens, on every team change heard, after a step, and on `r`; the view shows those requests as the
API has them (the issued requests needs action reads), in the queue's order, each with who made it ready.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stablepay_console.services.inbox_pager import REVIEW
from stablepay_console.storage.record import RecordError

if TYPE_CHECKING:
    from stablepay_console.tui.screens.inbox import InboxScreen


REVIEW_HELP = """
**v** shows the requests awaiting your review: answers someone else made ready, oldest first, each with who made
it ready (Step) and the time left to its approve-by level (SLA); **v** again goes back. The banner counts them
(`3 to review`). From the shell: `rfis approve|reject ID`.
"""


class ReviewQueue:
    def __init__(self, screen: InboxScreen) -> None:
        self.screen = screen

    def read(self) -> None:
        self.screen.run_worker(self._read(), group="inbox-review", exclusive=True)

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
        if changed and pager.view == REVIEW:
            self.screen.render_state()

    def toggle(self) -> None:
        self.screen.show_view(REVIEW)
        self.read()
