"""A repeat start's first rows: the inbox's first page as last shown, painted at once and greyed.

The rows come from the record of the last first page (`services.first_frame`), read off the UI thread,
for this profile and base URL only and only on the unfiltered first page; the status line says
"From the record, as of 14:02 UTC · refreshing…" until the server's page replaces them, and a row
cannot be opened meanwhile. Each first page the server sends is kept again, written off the UI thread.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from stablepay_console.services.first_frame import model_rows, page_to_keep, read_for_start
from stablepay_console.services.inbox_pager import INBOX, InboxPager
from stablepay_console.storage import first_page
from stablepay_console.tui.runtime.boot import READ_AT_BOOT

if TYPE_CHECKING:
    from stablepay_console.storage.first_page import FirstPage
    from stablepay_console.tui.screens.inbox_base import InboxBase

log = logging.getLogger(__name__)

SAID_UNWRITTEN = "first_page_unwritten"


def showing_record(pager: InboxPager) -> bool:
    return pager.view == INBOX and pager.page.current is None and pager.from_record is not None


def paint_from_record(screen: InboxBase) -> None:
    """Paint the kept first page once it is read (at once when the boot screen read it already)."""
    app = screen.app
    if hasattr(app, READ_AT_BOOT):
        _show(screen, getattr(app, READ_AT_BOOT))
        return
    profile = screen.console.profile
    if profile is None:
        return
    name, url = profile.name, profile.base_url

    def read() -> None:
        try:
            page = read_for_start(name, url)
        except OSError:
            return
        if page is not None:
            app.call_from_thread(_show, screen, page)

    screen.run_worker(read, thread=True, group="first-rows", exit_on_error=False)


def _show(screen: InboxBase, page: FirstPage | None) -> None:
    profile = screen.console.profile
    if page is None or profile is None or not screen.is_mounted:
        return
    if (page.profile, page.base_url) != (profile.name, profile.base_url):
        return  # another profile's page: never shown
    if screen.paging.show_from_record(model_rows(page), page.at):
        screen.render_state()


def keep_first_page(screen: InboxBase) -> None:
    """After a page of the server is shown: keep it when it is the start's first page (written off the UI thread)."""
    profile, shown = screen.console.profile, screen.paging.page.current
    if profile is None or shown is None:
        return
    page = page_to_keep(profile.name, profile.base_url, screen.paging.query.filters, shown.value, shown.provenance.at)
    if page is None:
        return

    app = screen.app

    def write() -> None:
        try:
            first_page.save(page)
        except OSError as exc:  # NotWritten: said once a run; the next start paints no head start
            log.warning("%s", exc)
            if not getattr(app, SAID_UNWRITTEN, False):
                setattr(app, SAID_UNWRITTEN, True)
                app.call_from_thread(app.notify, f"{exc} The next start shows no rows before the server's.",
                                     severity="warning", markup=False)

    screen.run_worker(write, thread=True, group="first-rows-keep", exclusive=True, exit_on_error=False)
