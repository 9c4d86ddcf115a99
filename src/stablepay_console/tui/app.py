"""The Textual application: modes, global bindings, the active profile and client."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App
from textual.binding import Binding

from stablepay_console.api.error_text import error_text
from stablepay_console.api.errors import APIError
from stablepay_console.profiles.model import Profile
from stablepay_console.tui.commands import ProfilesProvider, ScreensProvider, TriageProvider
from stablepay_console.tui.console import Clock, Console, utc_now
from stablepay_console.tui.formatters.text import clean, has_control
from stablepay_console.tui.modes import TOP_LEVEL
from stablepay_console.tui.radar import Radar, RadarCommands, open_needs_action
from stablepay_console.tui.runtime.audit_hooks import announce_record_notices
from stablepay_console.tui.screens import load

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from stablepay_console.api import StablePayClient
    from stablepay_console.wiring import Services

BOOTING_ACTIONS = frozenset({"switch_mode", "switch_profile", "radar_needs_action", "command_palette"})
"""What waits until the services are built (a first frame painted before them has no client yet)."""


def started_memory() -> None:
    """The installed console's startup is over: collect garbage again, never walking what exists now.

    The CLI starts the console with the collector off (`cli.console.run_console`). Everything made until now
    (modules, styles, services) lives as long as the console, so it is frozen out of every later pass: full
    passes over it paused paging. What is left for full passes is mostly the cyclic garbage of Textual's drawing
    caches: one pass per hundred of the youngest generation's (not ten) keeps a page switch from meeting one
    every few pages (benchmarks/README.md, the page switch of `in_process.py`)."""
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)
    gc.enable()


class ConsoleApp(Console):
    """stablepay-console. Give it the profile to start on and the wired services."""

    TITLE = "stablepay-console"
    CSS_PATH = "styles/app.tcss"
    COMMANDS = App.COMMANDS | {ScreensProvider, ProfilesProvider, RadarCommands, TriageProvider}
    BINDINGS = [
        *(
            Binding(e.key, f"switch_mode('{e.mode}')", e.title, id=f"screen.{e.mode}", tooltip=e.description)
            for e in TOP_LEVEL
        ),
        Binding("f2", "switch_profile", "Profile", id="profile.switch", tooltip="Switch to another profile"),
        Binding("exclamation_mark", "radar_needs_action", "Due", show=False, id="radar.due",
                tooltip="Needs action: issued requests, nearest deadline first"),
        Binding("f1,question_mark", "toggle_help", "Help", id="help", tooltip="Keys and help for this screen"),
        Binding("q", "quit", "Quit", id="quit", tooltip="Leave the console"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="quit.ctrl_c"),
    ]

    radar: Radar | None = None

    def __init__(
        self,
        profile: Profile,
        services: Services | Callable[[], Services],
        *,
        clock: Clock = utc_now,
        ping_on_start: bool = True,
        radar: bool = False,
        inbox_page_size: int | None = None,
        freeze_after_start: bool = False,
    ) -> None:
        super().__init__()
        self.clock = clock
        self.freeze_after_start = freeze_after_start
        """Once started, hide what exists from the garbage collector for good (the installed console;
        tests run many consoles in one process and want theirs collected)."""
        self.ping_on_start = ping_on_start
        self.inbox_page_size = inbox_page_size
        self.radar = Radar(self) if radar else None
        self.set_reactive(ConsoleApp.profile, profile)
        for entry in TOP_LEVEL:
            self.add_mode(entry.mode, load(entry.mode))
        if callable(services) and not hasattr(services, "client_for"):
            self.build_services = services
        else:
            self._wire(services)  # type: ignore[arg-type]

    def _wire(self, services: Services, client: StablePayClient | None = None) -> None:
        self.services = services
        services.record_clock = self.clock  # what the console records happened at its own "now"
        self.client = client or services.client_for(self.profile)  # type: ignore[arg-type]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.ready and action in BOOTING_ACTIONS:
            return False
        return True

    def on_mount(self) -> None:
        self.catch_exit_signals()
        from stablepay_console.tui.keymap import use_keymap_file

        use_keymap_file(self)  # the user's own keys (keymap.toml), before the first screen's footer
        if self.build_services is not None:
            from stablepay_console.tui.runtime.boot import BootScreen

            self.push_screen(BootScreen())
            self.boot()
            return
        self.start()

    @work(thread=True, exclusive=True, group="boot")
    def boot(self) -> None:
        """Build the services (and load the client stack and the inbox) off the UI thread."""
        assert self.build_services is not None
        from stablepay_console.tui.runtime.boot import read_first_page

        read_first_page(self)  # a repeat start's rows from the record, before the heavy loading below
        try:
            services = self.build_services()
            client = services.client_for(self.profile)  # type: ignore[arg-type]  # builds the embedded sandbox too
            import stablepay_console.tui.screens.inbox  # noqa: F401  - loaded here, not on the UI thread
        except Exception as exc:  # a data folder that cannot be written, say: say so, never a traceback
            log.warning("The console could not start: %s", type(exc).__name__)
            self.call_from_thread(self._boot_failed, f"{type(exc).__name__}: {clean(str(exc), 300)}")
            return
        self.call_from_thread(self._booted, services, client)

    def _boot_failed(self, why: str) -> None:
        from rich.text import Text

        gc.enable()  # the console never started: nothing to freeze
        said = Text.assemble(("The console could not start. ", "bold red"), why, "\nq quits.")
        self.screen.query_one("#boot-status").update(said)  # type: ignore[attr-defined]

    def _booted(self, services: Services, client: StablePayClient) -> None:
        self._wire(services, client)
        self.build_services = None
        self.start()

    def start(self) -> None:
        """What the console does once its services exist: the inbox, the radar, the ping, the notices."""
        from stablepay_console.tui.runtime import key_notices

        announce_record_notices(self)
        self.switch_mode("inbox")
        if self.freeze_after_start:
            self.call_after_refresh(started_memory)
        if self.radar is not None:
            self.radar.start()
        if self.ping_on_start:
            self.check_ping()
        if self.profile is not None:
            key_notices.announce_key_age(self, self.profile)
        key_notices.announce_pending_rotations(self)

    async def on_unmount(self) -> None:
        self.release_exit_signals()
        if self.team_listener is not None:
            self.team_listener.stop()
        if self.ready:
            await self.client.aclose()

    async def on_event(self, event: events.Event) -> None:
        # A text field would draw pasted escape sequences raw, and the terminal would run them.
        if isinstance(event, events.Paste) and not event.is_forwarded and has_control(event.text, allow="\t\r\n"):
            self.notify(
                f"Nothing was pasted: the text holds control characters or escape sequences ({clean(event.text, 60)}).",
                title="Paste refused",
                severity="warning",
                markup=False,
            )
            return
        await super().on_event(event)

    @work(exclusive=True, group="ping")
    async def check_ping(self) -> None:
        """Ping the active profile; the banner shows the answer."""
        self.ping_state = "checking…"
        try:
            pong = await self.client.ping()
        except APIError as exc:
            self.ping_state = f"✗ {error_text(exc, 80)}"
        else:
            self.ping_state = f"✓ {clean(pong.message, 20)}"
        self.services.audit.append("ping", self.profile, outcome=self.ping_state)

    def switched_to(self, profile: Profile) -> None:
        from stablepay_console.tui.runtime import key_notices

        key_notices.announce_key_age(self, profile)

    async def action_quit(self) -> None:
        """Quit; with a production key's rotation unfinished, ask first."""
        from stablepay_console.tui.runtime import key_notices

        if not self.ready or not key_notices.ask_before_quitting(self):
            self.exit()

    def action_switch_profile(self) -> None:
        from stablepay_console.tui.modals.profile_switcher import open_switcher

        open_switcher(self)

    async def action_radar_needs_action(self) -> None:
        await open_needs_action(self)

    def action_toggle_help(self) -> None:
        from stablepay_console.tui.modals.keys_help import KeysHelp

        if isinstance(self.screen, KeysHelp):
            self.screen.dismiss(None)
        else:
            self.push_screen(KeysHelp(self.screen))
