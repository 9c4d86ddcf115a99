"""The two lines above the inbox table: what is asked (filters, view), and what is shown (page, origin)."""

from __future__ import annotations

from rich.text import Text

from stablepay_console.api.sanitize import clean
from stablepay_console.services.inbox_pager import BY_DEADLINE, INBOX, MINE, NEEDS_ACTION, QUEUES, REVIEW, InboxPager
from stablepay_console.services.provenance import clock_text
from stablepay_console.services.triage.queues import title
from stablepay_console.tui.formatters.record_rows import record_line

GROUP_SEPARATOR = " │ "
"""Between the line's groups (filters, view, claims, auto-refresh): visible where styles are lost
(copied text, a screen reader), unlike the spaces that made "user anyView:" of it."""


def active_line(pager: InboxPager, claim_note: Text, auto_secs: int) -> Text:
    """`Filters: status issued · kind any · user any │ View: all requests`."""
    view = {NEEDS_ACTION: "needs action (issued: deadline ahead, then overdue)",
            MINE: "claimed by me or assigned to me, every request of the account, deadline first",
            REVIEW: "made ready by someone else, every request of the account, deadline first",
            }.get(pager.view, "all requests")
    if pager.view in QUEUES:
        read = pager.queues[pager.view].current
        view = f"{title(pager.view, None if read is None else len(read.value))}: {view}"
    active = Text.assemble(
        ("Filters: ", "bold"), clean(pager.filters.describe()), GROUP_SEPARATOR, ("View: ", "bold"), view
    )
    if pager.view == INBOX and pager.order == BY_DEADLINE:
        active.append_text(Text.assemble(GROUP_SEPARATOR, ("Sorted: ", "bold"), "deadline first (this page)"))
    if claim_note.plain:
        active.append_text(Text.assemble(GROUP_SEPARATOR, claim_note))
    if auto_secs:
        active.append(f"{GROUP_SEPARATOR}Auto-refresh: every {auto_secs}s")
    return active


def status_line(pager: InboxPager) -> Text:
    """`Page 2 of 12, 240 total · 20 per page · Loading page 3… · embedded (sandbox) at 09:30:00 UTC`."""
    state = pager.state
    status = Text()
    window = pager.window()
    if window is not None:
        offset, limit, total = window
        pages = max(1, -(-total // limit))
        status.append(f"Page {offset // limit + 1} of {pages}, {total} total", style="bold")
        status.append(f" · {limit} per page")
        if total == 0 and pager.view == REVIEW:
            status.append(" · Nothing awaits your review: no answer made ready by someone else.")
        elif total == 0 and pager.view == MINE:
            status.append(" · Nothing is yours: no request claimed by you or assigned to you.")
        elif total == 0:
            status.append(" · No requests match these filters.")
        if pager.revalidated and pager.view == INBOX:
            status.append(" · updated", style="italic green")
    if window is None and pager.from_record is not None:  # a repeat start's rows, until the server's come
        return record_line(pager.from_record[1], pager.clock(), refreshing=state.loading is not None)
    if state.loading:
        status.append(("   " if status else "") + state.loading, style="italic")
    if window is not None and state.current is not None and state.error is None:
        # Last: on one line at 80 columns, where the page came from is what gets cut (the banner says it).
        shown = state.current.provenance
        if shown.origin:  # not the API itself: said before the profile, so it stays on one line at 80 columns
            status.append(f" · {clean(shown.origin, 60)}", style="dim")
        status.append(f" · {clean(shown.profile, 30)} ({shown.environment}) at {clock_text(shown.at)}", style="dim")
    return status
