"""The inbox's "Go to request" (key i, and the palette from any screen): a pasted ID, straight to its detail; and
its order (key o: by deadline or by created).

A request on a page already read opens as that page had it. Any other whole ID is looked for on the server
(`services.rfi_lookup.find_one`: what the record last saw of it narrows the list, else the account's pages until
the first match, every page through the server's shared gate), in a worker; the inbox says when the account has
no such request.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from stablepay_console.api.error_text import error_lines
from stablepay_console.api.errors import APIError
from stablepay_console.services.inbox_pager import BY_DEADLINE, WHOLE_VIEWS
from stablepay_console.services.inbox_seen import seen as seen_in
from stablepay_console.services.inbox_seen import seen_ids
from stablepay_console.services.provenance import Provenance
from stablepay_console.services.rfi_lookup import PREFIX, Resolved, find_one, resolve, wanted_from
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.tui.screens.inbox_base import InboxBase

GO_TO_HELP = """
**i** goes to a request by its ID: paste the whole ID (from an email, a ticket), or type the 8 characters the
inbox shows (`o` sorts the page by deadline or by created). From the shell: `rfis show ID`.
"""


class InboxGoTo:
    def __init__(self, screen: InboxBase) -> None:
        self.screen = screen

    def ask(self) -> None:
        from stablepay_console.tui.modals.go_to import GoToDialog

        def chosen(rfi_id: str | None) -> None:
            if rfi_id is not None:
                self.open(rfi_id)

        self.screen.app.push_screen(GoToDialog(self.resolve), chosen)

    async def resolve(self, text: str) -> Resolved:
        """A whole ID as it is; a prefix among the pages read and the record's requests."""
        known = seen_ids(self.screen.paging)
        typed = text.strip().lower()
        if len(typed) == PREFIX:
            console = self.screen.console
            profile = console.profile.name if console.profile is not None else ""
            try:
                known |= set(await console.services.record.run(lambda record: record.ids_starting(profile, typed)))
            except RecordError:
                pass  # the pages read still count
        return resolve(text, known)

    def open(self, rfi_id: str) -> None:
        seen = seen_in(self.screen.paging, rfi_id)
        if seen is not None:
            self._show(*seen)
            return
        self.screen.notify(f"Looking for {rfi_id} in the account…", timeout=3, markup=False)
        start(self.screen, partial(self._look_up, rfi_id), "inbox-goto", exclusive=True)

    async def _look_up(self, rfi_id: str) -> None:
        screen, console = self.screen, self.screen.console
        profile = console.profile
        if profile is None:
            return
        try:
            seen = wanted_from(await console.services.record.run(lambda record: record.history(profile.name, rfi_id)))
        except RecordError:
            seen = None
        try:
            found = await find_one(console.client, rfi_id, seen)
        except APIError as exc:
            screen.notify(error_lines(exc), title="Go to request", severity="error", timeout=8,
                          markup=False)
            return
        if console.profile is not profile:
            return  # another profile since: its requests are not this one's
        if found.rfi is None:
            screen.notify(f"No request {rfi_id} in the account ({found.pages} pages read).", title="Go to request",
                          severity="warning", timeout=8, markup=False)
            return
        asked = f"request {rfi_id} by its ID"
        self._show(found.rfi, Provenance(profile.name, profile.environment, asked, console.now()))

    def cycle_order(self) -> None:
        """`o`: the page by deadline, or back to the server's order (the whole views keep their own)."""
        screen = self.screen
        pager = screen.paging
        if pager.view in WHOLE_VIEWS:
            screen.notify("This view keeps its own order (nearest deadline first); o sorts the inbox.", timeout=3)
            return
        order = pager.cycle_order()
        screen.render_state()
        said = "deadline, nearest first (this page)" if order == BY_DEADLINE else "created, newest first"
        screen.notify(f"Sorted by {said}.", timeout=2)

    def _show(self, rfi: Rfi, provenance: Provenance) -> None:
        from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

        self.screen.app.push_screen(RfiDetailScreen(rfi, provenance))

