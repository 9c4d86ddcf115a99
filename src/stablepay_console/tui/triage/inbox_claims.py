"""Claims in the inbox: a marker on claimed rows and a "claimed by me / unclaimed" filter (key m).

Claims live in the local record (see `services.notes`); the API knows nothing of them, so the
filter keeps or hides rows of the page shown. The claims are read in the background when the inbox
is shown or its profile changes, never on the way to showing a page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.binding import Binding

from stablepay_console.api.models import Rfi
from stablepay_console.api.sanitize import clean
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.storage.record_types import Claim
    from stablepay_console.tui.screens.inbox_base import InboxBase
    from stablepay_console.tui.widgets.inbox.table import InboxTable

ANY, MINE, UNCLAIMED = "any", "mine", "unclaimed"
CHOICES = (ANY, MINE, UNCLAIMED)
SAID = {MINE: "claimed by me", UNCLAIMED: "unclaimed"}

CLAIM_BINDING = Binding("m", "cycle_claims", "Claims", show=False, id="inbox.claims",
                        tooltip="Cycle the claim filter: any, claimed by me, unclaimed")

CLAIMS_HELP = """
Claims (kept in the local record): a claimed request's status shows **◆ me** or **◆ who** (a bare **◆**,
yours, or **◇**, someone else's, when the table has no room for who; the detail says who).
**m** cycles the claim filter on the page shown: any, claimed by me, unclaimed (**M**, My requests, lists every
request of the account that is yours).
"""


def newly_assigned(before: dict[str, Claim], now: dict[str, Claim], me: str) -> list[tuple[str, str]]:
    """(request, lead) of each request a lead assigned to `me` since `before` was read."""
    return [(rfi_id, claim.assigned_by) for rfi_id, claim in now.items()
            if claim.claimant == me and claim.assigned_by and claim.assigned_by != me
            and (before.get(rfi_id) is None or before[rfi_id].claimant != me
                 or before[rfi_id].assigned_by != claim.assigned_by)]


class ClaimMarks:
    """The claims of one profile as last read, and the filter chosen."""

    def __init__(self) -> None:
        self.claims: dict[str, Claim] = {}
        self.me = ""
        self.choice = ANY
        self.read_once = False
        """Claims were read at least once: what appears after that is news (an assignment to me)."""

    def mine(self, rfi_id: str) -> bool:
        claim = self.claims.get(rfi_id)
        return claim is not None and claim.claimant == self.me

    def keep(self, rfis: Sequence[Rfi]) -> list[Rfi]:
        if self.choice == MINE:
            return [r for r in rfis if self.mine(r.id)]
        if self.choice == UNCLAIMED:
            return [r for r in rfis if r.id not in self.claims]
        return list(rfis)

    def marks(self) -> dict[str, Text]:
        """The marker each claimed request's status cell gets: ` ◆ me` or ` ◆ <who>`."""
        return {
            rfi_id: Text(" ◆ me", style="bold green") if claim.claimant == self.me
            else Text(f" ◆ {clean(claim.claimant, 12)}", style="yellow")
            for rfi_id, claim in self.claims.items()
        }

    @property
    def said(self) -> str:
        return SAID.get(self.choice, "")


class InboxClaims:
    """The inbox's claims, held by the inbox screen: `rows` before a page is shown; `read` to read them again."""

    def __init__(self, screen: InboxBase) -> None:
        self.screen = screen
        self.marks = ClaimMarks()

    def rows(self, table: InboxTable, rfis: Sequence[Rfi]) -> list[Rfi]:
        """The rows the claim filter keeps; the table learns the markers."""
        table.marks = self.marks.marks()
        return self.marks.keep(rfis)

    def read(self) -> None:
        start(self.screen, self._read, "inbox-claims", exclusive=True)

    async def _read(self) -> None:
        screen, console = self.screen, self.screen.console
        profile = console.profile.name if console.profile is not None else ""
        try:
            claims = await asyncio.wrap_future(console.services.notes.claims(profile))
        except RecordError:
            claims = {}
        marks = self.marks
        me = console.services.audit.actor_for(profile)
        if marks.read_once:
            for rfi_id, by in newly_assigned(marks.claims, claims, me):
                screen.notify(f"{clean(by, 40)} assigned {rfi_id} to you: it is in My requests (M).",
                              title="Assigned to you", timeout=15, markup=False)
        marks.read_once = True
        shown_differs = claims != marks.claims or (me != marks.me and bool(claims))  # who "me" is shows only on claims
        marks.claims, marks.me = claims, me
        if shown_differs:
            screen.render_state()

    def cycle(self) -> None:
        marks = self.marks
        marks.choice = CHOICES[(CHOICES.index(marks.choice) + 1) % len(CHOICES)]
        self.screen.render_state()

    def note(self) -> Text:
        """For the line of active filters: the claim filter, when one is on."""
        said = self.marks.said
        if not said:
            return Text()
        whole = " · M: every one of the account" if self.marks.choice == MINE else ""
        return Text.assemble(("Claims: ", "bold"), f"{said} (this page){whole}")
