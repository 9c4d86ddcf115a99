"""The inbox's queues over the whole account: "My requests" (key M) and "Awaiting my review" (key v).

Which requests are in a queue is read from the record (`services.triage.queues`: the claims, the steps), then
each is read again from the API and the rows put deadline first; the view pages them as needs action does. A
queue is read again each time it is opened, on `r`, after a step and when the team's claims or steps change.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING

from stablepay_console.services.triage.queues import MINE, QUEUES, REVIEW
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.tui.screens.inbox_base import InboxBase
    from stablepay_console.tui.triage.steps import Entry

QUEUES_HELP = """
**M** shows My requests: every request of the account claimed by you or assigned to you (not only the page in
view), deadline first, each read again from the server, the count in the view's line; **M** again goes back.
The steps (keys and the palette) act on the highlighted row of any view.
"""


class InboxQueues:
    def __init__(self, screen: InboxBase) -> None:
        self.screen = screen

    def entries(self) -> list[Entry]:
        """The palette's way into each queue, or back to all requests from the one in view."""
        screen = self.screen
        view = screen.paging.view
        return [("Back to all requests" if view == MINE else "My requests", screen.action_toggle_mine,
                 "every request of the account claimed by or assigned to me, deadline first (key M)"),
                ("Back to all requests" if view == REVIEW else "Awaiting my review", screen.action_toggle_review,
                 "every answer of the account someone else made ready, deadline first (key v)")]

    def read_again(self) -> None:
        """A queue in view is the record's claims and steps: read again once they may have changed."""
        pager = self.screen.pager
        if pager is not None and pager.view in QUEUES:
            self.load(pager.view)

    def load(self, queue: str) -> None:
        start(self.screen, partial(self._load, queue), "inbox-load", exclusive=True)

    async def _load(self, queue: str) -> None:
        screen = self.screen
        console = screen.console
        profile = console.profile
        if profile is None:
            return
        pager = screen.paging
        state = pager.queues[queue]
        state.begin("Reading the queue from the record…")
        screen.render_state(busy_only=True)
        try:
            ask = await asyncio.wrap_future(console.services.triage.queue(profile.name, queue))
        except RecordError as exc:
            state.fail(f"The record could not be read: {exc}")
            screen.render_state()
            return
        if console.profile is not profile:
            return  # another profile since: its queue is read again there
        await pager.load_queue(console.client, ask)
        if ask.queue == REVIEW:
            console.review_count = len(ask.review)
        screen.claims.read()  # the rows' claims as the queue found them: the steps offered on a row follow them
        screen.render_state()
