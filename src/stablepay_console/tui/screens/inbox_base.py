"""What the inbox's components know of the screen they serve: its pager, table and state, and the views it shows.

The components (claims, triage marks, queues, review, go-to, the first rows from the record) live in their own
modules and are given the screen as an `InboxBase`; `InboxScreen` (screens/inbox.py) composes them on it, so no
import runs from a component back to the screen that holds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.inbox.table import InboxTable

if TYPE_CHECKING:
    from stablepay_console.services.inbox_pager import InboxPager


class Reads(Protocol):
    """A component that reads the record again for the rows shown (the claims)."""

    def read(self) -> None: ...


class Loads(Protocol):
    """The queues: one read again from the record."""

    def load(self, queue: str) -> None: ...


class InboxBase(ConsoleScreen):
    """The inbox screen as its components see it."""

    pager: InboxPager | None = None
    """Made on mount (it needs the profile)."""
    claims: Reads
    queues: Loads

    @property
    def table(self) -> InboxTable:
        return self.query_one(InboxTable)

    @property
    def paging(self) -> InboxPager:
        assert self.pager is not None, "the pager is made on mount"
        return self.pager

    def render_state(self, busy_only: bool = False) -> None:
        """Draw what the pager holds (with `busy_only`, only the busy line)."""
        raise NotImplementedError

    def show_view(self, view: str) -> None:
        """Show one of the pager's views (all requests, needs action, a queue)."""
        raise NotImplementedError

    def action_toggle_mine(self) -> None:
        raise NotImplementedError

    def action_toggle_review(self) -> None:
        raise NotImplementedError
