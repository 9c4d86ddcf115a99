"""Triage in the inbox: each request's step and the time left to its next service level (Step, SLA columns).

The steps of the rows shown and the team's policy are read from the record in the background when a
page is shown (never on the way to showing it); the claims come from `inbox_claims`. Time left is
worked out at each tick by `services.triage_due`, so a countdown turns red the second it is breached.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from stablepay_console.services.inbox_pager import REVIEW
from stablepay_console.services.triage.due import RowTriage, row_triage
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_triage_types import NO_POLICY, TriageStep
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.tui.screens.inbox_base import InboxBase
    from stablepay_console.tui.triage.inbox_claims import ClaimMarks

TRIAGE_HELP = """
Triage (kept in the record): **Step** is unclaimed, claimed, ready (awaiting review), approved or
waiting (on the user). From the shell: `rfis ready|approve|reject|wait|resume ID`.

**SLA**, only where someone set service levels (`record policy`; a team record's `record init` sets
them): the time left to the request's next level, the one its Step works towards (unclaimed: claim it;
claimed: make it ready; ready: approve it). `3h12m` left; `-2h05m` in red: breached that long ago;
`paused`: waiting on the user, the team's clock is stopped; blank: no level ahead (approved, closed).
Without a policy there is no SLA column and nothing is counted as breached.

**Deadline** is the round's own: `in 5h 12m` (red under a day), `overdue` once it has passed,
`answered` once a reply is in. **Round** says `link` while its hosted reply page still takes a reply.
"""


class TriageMarks:
    """The steps of the rows last read, the policy, and the IDs they were read for."""

    def __init__(self) -> None:
        self.steps: dict[str, list[TriageStep]] = {}
        self.policy = NO_POLICY  # until the record is read: no level shown
        self.read_for: tuple[str, ...] | None = None


class InboxTriage:
    """The rows' steps, held by the inbox screen: `want` after showing rows; the table asks `row_of`."""

    def __init__(self, screen: InboxBase, claims: ClaimMarks) -> None:
        self.screen = screen
        self.claims = claims
        self.marks = TriageMarks()

    def row_of(self, rfi: Rfi, now: datetime) -> RowTriage | None:
        marks, pager = self.marks, self.screen.paging
        found = row_triage(rfi, self.claims.claims.get(rfi.id), marks.steps.get(rfi.id, ()), marks.policy, now)
        by = pager.reviewed_by(rfi.id) if pager.view == REVIEW else ""
        return replace(found, by=by) if by else found

    def want(self, rfis: list[Rfi], again: bool = False) -> None:
        ids = tuple(rfi.id for rfi in rfis)
        if again or ids != self.marks.read_for:
            self.marks.read_for = ids
            # not exclusive: a cancelled worker would fail whoever waits on all of them
            start(self.screen, partial(self._read, list(ids)), "inbox-triage")

    def reread(self) -> None:
        """Read the steps of the rows shown again (a colleague's step or claim, heard live)."""
        self.want(list(self.screen.table.order), again=True)

    async def _read(self, ids: list[str]) -> None:
        console = self.screen.console
        profile = console.profile.name if console.profile is not None else ""
        marks = self.marks
        try:
            steps, policy = await asyncio.wrap_future(console.services.triage.steps(profile, ids))
        except RecordError:
            return
        if marks.read_for != tuple(ids):
            return  # other rows are shown now: their own read follows
        if (steps, policy) != (marks.steps, marks.policy):
            marks.steps, marks.policy = steps, policy
            self.screen.table.show_service_levels(policy.is_set)
            self.screen.render_state()
