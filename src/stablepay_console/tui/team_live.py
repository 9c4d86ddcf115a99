"""The console in team mode: another analyst's claim or note shows within a second or two, in place.

A `TeamListener` (LISTEN/NOTIFY, on a thread of its own) tells the console of every change; the
inbox reads its claims again and an open detail of that request reads its notes and claim again; a triage
step (or a claim) has the inbox read its rows' steps again.
While the database cannot be reached the banner says so ("TEAM RECORD UNREACHABLE"); the listener tries
again with growing waits, and once back everything shown is read again (changes made meanwhile
were not heard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from stablepay_console.services.team.live import Change, TeamListener, listen

if TYPE_CHECKING:
    from stablepay_console.tui.console import Console

# --- what the listener tells the screens: a Textual message. The listener knows no screen; each screen that
# shows something of the team handles `TeamChanged` with `@on` and reads again what it touched.


class TeamChanged(Message):
    """Another console (or this one) changed a note, a claim or a step; `resync`: read everything again."""

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.change = change

    @property
    def everything(self) -> bool:
        return self.change.kind == "resync"

    def touches(self, *kinds: str) -> bool:
        """Whether a view of these kinds ("claims", "notes", "triage") must read again."""
        return self.everything or self.change.kind in kinds


DOWN_BADGE = "TEAM RECORD UNREACHABLE"


def start_team_live(app: Console) -> TeamListener | None:
    """Listen for the team's changes while the console runs (nothing in local mode)."""
    team = app.services.team
    if team is None:
        return None
    if team.problem or team.url is None:
        app.record_badge = DOWN_BADGE
        app.notify(team.problem, title="Team record", severity="error", timeout=30, markup=False)
        return None

    def changed(change: Change) -> None:
        try:
            app.call_from_thread(apply_change, app, change)
        except RuntimeError:  # the console is closing
            pass

    def state(reachable: bool, problem: str) -> None:
        try:
            app.call_from_thread(show_state, app, reachable, problem)
        except RuntimeError:
            pass

    app.team_listener = listen(team, changed, state)
    return app.team_listener


def show_state(app: Console, reachable: bool, problem: str) -> None:
    team = app.services.team
    if team is not None:
        team.reachable = reachable
    was_down = app.record_badge == DOWN_BADGE
    app.record_badge = "" if reachable else DOWN_BADGE
    if not reachable and not was_down:
        app.notify(f"{problem} The console works on with the API; notes and claims wait until it is back.",
                   title="Team record", severity="error", timeout=15, markup=False)
    elif reachable and was_down:
        app.notify("The team record is reachable again.", title="Team record", timeout=5, markup=False)


def apply_change(app: Console, change: Change) -> None:
    """Tell every open screen (`TeamChanged`): each that shows something of the team reads it again. A webhook
    delivery the team watcher took (`deliveries`) changed its facts: the banner's count is read again too."""
    if change.kind == "deliveries" and app.radar is not None:
        app.radar.poll()
    for screen in app.screen_stack:
        screen.post_message(TeamChanged(change))
