"""The deadline radar in the console: nothing due slips by while the console is open.

A background poll of the active profile's requests (a Textual worker: a key press never waits on
it) keeps a count in the banner, "2 due < 24h · 1 overdue" (hidden when zero), and raises a
notification when a new request or round arrives or a deadline crosses 24 h or 1 h. Pressing `!`,
clicking the count, or the command palette opens the inbox's needs-action view. The palette also
sets how often it polls (30 s, 60 s, 5 min) or switches it off, and how often it reads every issued
request (its sweep: 5, 15 or 60 min); both choices are kept between runs. A poll between sweeps is
one request (the newest page); deadlines are counted by the clock. What is due and what changed is
worked out UI-free in `services.radar`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from textual.notifications import SeverityLevel
from textual.timer import Timer

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import watch_state
from stablepay_console.tui.commands import EntriesProvider, Entry
from stablepay_console.tui.formatters.radar import NEEDS_ACTION_ACTION

if TYPE_CHECKING:
    from textual.app import App

    from stablepay_console.profiles.model import Profile
    from stablepay_console.services.watch.events import WatchEvent
    from stablepay_console.services.watch.radar import RadarPoller
    from stablepay_console.tui.console import Console

# The poller and the watch's events load with the first poll, not with the console's first frame.

log = logging.getLogger(__name__)

GROUP = "deadline-radar"
NEEDS_ACTION_VIEW = "needs action"
TITLES = {
    "new_request": "New request",  # services.watch_events.NEW_REQUEST
    "new_round": "Compliance asked again",  # NEW_ROUND
    "deadline_24h": "Deadline in under 24 hours",
    "deadline_1h": "Deadline in under 1 hour",
}


def describe(event: WatchEvent, now_words: str) -> str:
    rfi = event.rfi
    what = f"{clean(rfi.kind, 20)} request {clean(rfi.id, 40)[:8]}"
    if event.kind == "new_round" and rfi.round is not None:
        what = f"Round {rfi.round.round} of {what}"
    return f"{what}: {now_words}. Press ! for needs action."


class Radar:
    """Polls in the background for one app; follows profile switches; `seconds` 0 means off."""

    def __init__(self, app: Console) -> None:
        self.app = app
        self._poller: RadarPoller | None = None
        self.seconds = watch_state.radar_seconds()
        self.sweep_minutes: int | None = None
        """Read from the data folder (off the UI thread) by the first poll."""
        self._timer: Timer | None = None

    @property
    def poller(self) -> RadarPoller:
        if self._poller is None:
            from stablepay_console.services.watch.radar import RadarPoller

            self._poller = RadarPoller()
        return self._poller

    def start(self) -> None:
        self.app.watch(self.app, "profile", self._switched, init=False)
        self._schedule()
        self.poll()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.seconds:
            self._timer = self.app.set_interval(self.seconds, self.poll, name="deadline radar")

    def set_seconds(self, seconds: int) -> None:
        """A new interval (0: off), kept for the next run too."""
        self.seconds = seconds
        try:
            watch_state.save_radar_seconds(seconds)
        except OSError as exc:  # NotWritten: the interval holds for this run
            log.warning("%s", exc)
            self.app.notify(f"{exc} It holds for this run only.", severity="warning", markup=False)
        self._schedule()
        if seconds:
            self.app.notify(f"Deadline radar: every {interval_words(seconds)}.", timeout=3, markup=False)
            self.poll()
        else:
            self.app.workers.cancel_group(self.app, GROUP)
            self.app.radar_label = ""
            self.app.notify("Deadline radar off.", timeout=3, markup=False)

    def set_sweep(self, minutes: int) -> None:
        """How often every issued request is read (never more often than the poll), kept for the next run."""
        self.sweep_minutes = minutes
        self.poller.watch.sweep_every = timedelta(minutes=minutes)
        try:
            watch_state.save_sweep_minutes(minutes)
        except OSError as exc:  # NotWritten: the setting holds for this run
            log.warning("%s", exc)
            self.app.notify(f"{exc} It holds for this run only.", severity="warning", markup=False)
        self.app.notify(f"Deadline radar: every issued request read every {minutes} min.", timeout=3, markup=False)

    def poll(self, *, restart: bool = False) -> None:
        """Start a poll unless one is running (`restart`: cancel it and start again)."""
        if not self.seconds:
            return
        running = [w for w in self.app.workers if w.group == GROUP and not w.is_finished]
        if running and not restart:
            return
        self.app.run_worker(self._poll(), name="deadline radar", group=GROUP, exclusive=True, exit_on_error=False)

    async def _poll(self) -> None:
        from stablepay_console.services.watch.events import deadline_words
        from stablepay_console.tui.triage.breach_count import with_breaches

        app, poller, profile = self.app, self.poller, self.app.profile
        if await team_radar_used(app, profile):  # one poller per team: a fresh `rfis watch` swept for us
            return
        if self.sweep_minutes is None:
            self.sweep_minutes = await asyncio.to_thread(watch_state.sweep_minutes)
        poller.watch.sweep_every = timedelta(minutes=self.sweep_minutes)
        update = await poller.poll(app.client, app.now())
        if app.profile is not profile or poller is not self.poller:
            return  # the profile changed meanwhile: this count is another profile's
        if update.failed is not None:
            log.info("Deadline radar: the poll failed (%s); counts and deadlines from memory", update.failed.kind)
        label = await with_breaches(app, profile, update.label) if profile is not None else update.label
        if app.profile is profile:
            app.radar_label = label
        for event in update.events:
            severity: SeverityLevel = "warning" if event.kind == "deadline_1h" else "information"
            message = describe(event, deadline_words(event.rfi.deadline, update.at))
            app.notify(message, title=TITLES.get(event.kind, "Deadline radar"), severity=severity, timeout=12,
                       markup=False)

    def _switched(self) -> None:
        # Another profile's requests: start from a clean memory, hide the old count, look at once.
        self._poller = None
        self.app.radar_label = ""
        self.poll(restart=True)


def interval_words(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds} s"


def in_needs_action(screen: object) -> bool:
    """Whether the inbox shows needs action (its view is kept on the screen or on its pager)."""
    for holder in (getattr(screen, "paging", None), screen):
        view = getattr(holder, "view", None)
        if isinstance(view, str):
            return view == NEEDS_ACTION_VIEW
    return False


async def open_needs_action(app: App[None]) -> None:
    """The inbox's needs-action view: every issued request, nearest deadline first."""
    from stablepay_console.tui.screens.inbox import InboxScreen

    if getattr(app, "current_mode", None) != "inbox":
        await app.switch_mode("inbox")
    while not isinstance(app.screen, InboxScreen) and len(app.screen_stack) > 1:
        await app.pop_screen()
    screen = app.screen
    if isinstance(screen, InboxScreen) and not in_needs_action(screen):
        screen.action_toggle_needs_action()


class RadarCommands(EntriesProvider):
    """The radar in the command palette: open needs action, how often to poll, off."""

    def _entries(self) -> list[Entry]:
        app = self.app
        entries: list[Entry] = [
            ("Needs action: requests due first", partial(app.run_action, NEEDS_ACTION_ACTION),
             "Every issued request, nearest deadline first (key !)"),
        ]
        radar: Radar | None = getattr(app, "radar", None)
        if radar is not None:
            for seconds in watch_state.RADAR_CHOICES:
                said = f"every {interval_words(seconds)}" if seconds else "off"
                entries.append((f"Deadline radar: {said}", partial(radar.set_seconds, seconds),
                                "How often the banner's count of due requests is refreshed"))
            for minutes in watch_state.SWEEP_CHOICES:
                entries.append((f"Deadline radar: read every issued request every {minutes} min",
                                partial(radar.set_sweep, minutes),
                                "Status changes and new rounds show within this; new requests and deadlines "
                                "at each poll"))
        return entries


# --- in team mode: from the team watcher while it is fresh, else the console's own poll -------------------------
# Which one counts is said when it changes ("Deadline radar from the team watcher (alice), 40 s ago" /
# "… polls the API on its own"), and kept in `app.radar_source` for the command palette.

OWN_POLL = "the console polls the API on its own (no team watcher swept within two of its intervals)"


async def team_radar_used(app: Console, profile: Profile | None) -> bool:
    """Set the banner's count from a fresh team watcher and say so; False: poll as without a team."""
    if profile is None or app.services.team is None:
        return False
    from stablepay_console.services.team.radar import from_team

    found = await from_team(app.services.team_record, profile, app.now())
    if app.profile is not profile:
        return True  # the profile changed meanwhile: nothing of this count belongs to the new one
    said = found.said if found is not None else OWN_POLL
    if getattr(app, "radar_source", "") != said.split(",")[0]:
        app.notify(f"Deadline {said}." if found else f"Deadline radar: {said}.", title="Team record", timeout=6,
                   markup=False)
    app.radar_source = said.split(",")[0]
    if found is None:
        return False
    from stablepay_console.tui.triage.breach_count import with_breaches

    label = await with_breaches(app, profile, found.update.label)
    if app.profile is profile:
        app.radar_label = label
    return True
