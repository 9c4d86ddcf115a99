"""What every part of the console knows of the app it runs in: its services, client, profile, clock and the
banner's state (`Console`). `ConsoleApp` (tui/app.py) builds on it with the screens, the palette and the keys;
the screens, modals and runtime hooks below it reach the app as a `Console`, so no import runs back up to app.py.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Protocol

from textual.reactive import reactive

from stablepay_console.profiles.model import Profile
from stablepay_console.tui.runtime.clipboard import SafeOutput
from stablepay_console.tui.runtime.exit_signals import ExitOnSignals

if TYPE_CHECKING:
    from stablepay_console.api import StablePayClient
    from stablepay_console.services.switching import SwitchOutcome
    from stablepay_console.services.team.live import TeamListener
    from stablepay_console.wiring import Services

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Poll(Protocol):
    """The console's background poll of due requests, as its parts ask it: once more, now."""

    def poll(self, *, restart: bool = False) -> None: ...


class Console(SafeOutput, ExitOnSignals):
    """The app as its parts see it. `ConsoleApp` gives it its screens and keys."""

    services: Services
    """Built before the app (tests) or in a thread after the first frame (the installed console)."""
    client: StablePayClient
    clock: Clock = utc_now
    build_services: Callable[[], Services] | None = None
    """Given a way to build the services (the installed console), the first frame is painted before them."""
    inbox_page_size: int | None = None
    """The inbox's rows per page to start with; None follows the table's height (the filter bar changes it)."""
    radar: Poll | None = None
    """The background poll of due requests (the installed console turns it on)."""

    profile: reactive[Profile | None] = reactive(None)
    ping_state: reactive[str] = reactive("not checked")
    radar_label: reactive[str] = reactive("")
    """The deadline radar's count for the banner ("2 due < 24h · 1 overdue"); "" hides it."""
    key_badge: reactive[str] = reactive("")
    """"ROTATION DUE" (or OVERDUE) while the active profile's key is 11 months old or more; else ""."""
    record_badge: reactive[str] = reactive("")
    """"TEAM RECORD UNREACHABLE" while the team record cannot be reached (tui/team_live.py); else ""."""
    review_count: reactive[int] = reactive(0)
    """How many answers someone else made ready await this reader's review (the banner's `3 to review`)."""
    team_listener: TeamListener | None = None
    radar_source = ""
    """In team mode, where the radar's count comes from (tui/radar.py)."""

    @property
    def ready(self) -> bool:
        """The services are built (the installed console builds them after its first frame)."""
        return self.build_services is None

    def now(self) -> datetime:
        return self.clock()

    async def apply_switch(self, outcome: SwitchOutcome) -> bool:
        """Apply a profile switch the services resolved; screens see it through the `profile` reactive.

        A switch that cannot be applied (no usable key, a bad base URL) leaves the console as it was
        and says why; the screens keep the old profile's results, still current under the old banner.
        """
        self.services.audit.switched(outcome, self.profile)
        if outcome.client is None:
            self.notify(outcome.problem, title="Cannot switch", severity="error", timeout=10, markup=False)
            return False
        old = self.client
        self.client = outcome.client
        self.ping_state = outcome.ping or "not checked"
        self.profile = outcome.profile
        self.switched_to(outcome.profile)
        await old.aclose()
        return True

    def switched_to(self, profile: Profile) -> None:
        """What the console does once it is on `profile` (the app says how old its key is)."""

    async def use_profile(self, profile: Profile) -> bool:
        """Switch to `profile` now (resolve, build, ping, apply); False, having said why, when it can't."""
        return await self.apply_switch(await self.services.switch(profile))
