"""The key-rotation wizard: one step at a time, in the spec's order; closing it keeps the progress.

Every message shown here passes `clean` (a 401 body's text, a dashboard's refusal, an error read
back from the progress file), and is drawn as a `Text`, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Static

from stablepay_console.api import ApiKey
from stablepay_console.api.dashboard import DashboardError, SandboxDashboard
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.rotation import Rotation, RotationError, Step
from stablepay_console.profiles.store import ProfileStoreError
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.screens.rotation_steps import current_step_line, step_view, steps_text

MAX_MESSAGE = 600


class RotationScreen(ConsoleScreen):
    CSS_PATH = "../styles/rotation.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    BINDINGS = [
        Binding("escape", "close", "Close", id="rotation.close", tooltip="Close the wizard; its progress is kept"),
    ]

    HELP = """\
## Key rotation

The spec's order, one step at a time:

1. generate the new key in the dashboard (Developer, then API Keys), same environment, descriptive name;
2. paste it (hidden);
3. it is checked with `/ping` against this profile's base URL: a mistyped key or one of the other
   environment fails here, and nothing changes;
4. switch: the profile uses the new key, the old one is kept aside;
5. delete the old key in the dashboard;
6. the old key must now be refused (401): only then is it forgotten.

Escape closes the wizard; its progress (never a key) is kept and **r** on Profiles & keys resumes it.
Quitting the console during a production rotation asks first; the next start says it is pending.
"""

    def __init__(self, rotation: Rotation, dashboard: SandboxDashboard | None = None) -> None:
        super().__init__()
        self.rotation = rotation
        self.dashboard = dashboard
        self.told_not_saved = False

    @property
    def profile_text(self) -> str:
        p = self.rotation.profile
        return f"{clean(p.name, 40)} ({'PRODUCTION' if p.is_production else 'sandbox'})"

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"Rotate the key of {self.profile_text}"), id="rotation-title")
        yield Static("", id="rotation-current")
        with Horizontal(id="rotation-main"):
            yield Static("", id="rotation-steps")
            with VerticalScroll(id="rotation-body"):
                yield Static("", id="rotation-shared")
                yield Vertical(id="rotation-step")
                yield Static("", id="rotation-error")

    async def on_mount(self) -> None:
        await self.show_step()

    # --- rendering -----------------------------------------------------------------

    def _key_since(self) -> datetime | None:
        try:
            return self.console.services.book.key_since(self.rotation.profile)
        except (ProfileStoreError, KeyStoreError):  # an unreadable profiles file is reported elsewhere
            return None

    async def show_step(self, error: str | None = None) -> None:
        rotation = self.rotation
        self.query_one("#rotation-steps", Static).update(steps_text(rotation))
        self.query_one("#rotation-current", Static).update(current_step_line(rotation))
        shared = rotation.shared_warning
        shared_line = self.query_one("#rotation-shared", Static)
        shared_line.update(Text(f"⚠ {clean(shared, MAX_MESSAGE)}") if shared else "")
        shared_line.display = bool(shared)
        message = clean(error if error is not None else rotation.error, MAX_MESSAGE)
        self.query_one("#rotation-error", Static).update(Text(message))
        text, buttons = step_view(rotation, self.console.now(), self.dashboard is not None, self._key_since())
        widgets: list[Static | Input | Horizontal] = [Static(text, classes="rotation-text")]
        if rotation.step is Step.PASTE:
            widgets.append(Input(password=True, placeholder="paste the new key", id="new-key"))
        widgets.append(Horizontal(*buttons, classes="rotation-buttons"))
        container = self.query_one("#rotation-step", Vertical)
        await container.remove_children()
        await container.mount_all(widgets)
        if rotation.step is Step.PASTE:
            self.query_one("#new-key", Input).focus()
        else:
            self.query_one(".rotation-buttons Button", Button).focus()
        if not message and rotation.step in (Step.VERIFY_NEW, Step.VERIFY_OLD):
            self.run_check()
        if rotation.not_saved and not self.told_not_saved:
            self.told_not_saved = True
            self.say(rotation.not_saved, title="Progress not saved", severity="warning")

    def say(self, message: str, title: str = "Key rotation", severity: str = "information") -> None:
        self.notify(clean(message, MAX_MESSAGE), title=title, severity=severity, markup=False)  # type: ignore[arg-type]

    # --- steps ---------------------------------------------------------------------

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        handlers: dict[str, Callable[[], None]] = {
            "generated": self.rotation.confirm_generated,
            "deleted": self.rotation.confirm_deleted,
        }
        button = event.button.id or ""
        if button in handlers:
            await self._step(handlers[button])
        elif button == "paste":
            await self.paste()
        elif button in ("verify-new", "verify-old"):
            self.query_one("#rotation-error", Static).update("")
            self.run_check()
        elif button == "switch":
            await self.switch()
        elif button == "simulate-create":
            self.simulate_create()
        elif button == "simulate-delete":
            self.simulate_delete()
        elif button == "abandon":
            await self._step(self.rotation.abandon)
            self.say("Rotation abandoned; the profile keeps its key.")
            self.dismiss()
        elif button == "close":
            self.action_close()

    async def _step(self, action: Callable[[], None]) -> bool:
        try:
            action()
        except (RotationError, KeyStoreError) as exc:
            await self.show_step(str(exc))
            return False
        if self.rotation.state.step:  # abandon resets to a fresh state; the screen then closes
            await self.show_step()
        return True

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        await self.paste()

    async def paste(self) -> None:
        field = self.query_one("#new-key", Input)
        try:
            key = ApiKey(field.value)
        except ValueError as exc:
            await self.show_step(str(exc))
            return
        field.value = ""
        await self._step(lambda: self.rotation.paste(key))

    async def switch(self) -> None:
        if not await self._step(self.rotation.switch):
            return
        active = self.console.profile
        profile = self.rotation.profile
        if self.rotation.step is Step.DELETE_OLD and active is not None and active.name == profile.name:
            # The console itself now talks with the new key: a fresh client, and the banner pings again.
            await self.console.use_profile(profile)
        self.say(f"Profile {profile.name} now uses the new key.")

    @work(exclusive=True, group="rotation-check")
    async def run_check(self) -> None:
        try:
            if self.rotation.step is Step.VERIFY_NEW:
                await self.rotation.verify_new()
            elif self.rotation.step is Step.VERIFY_OLD:
                await self.rotation.verify_old()
        except (RotationError, KeyStoreError) as exc:
            await self.show_step(str(exc))
            return
        await self.show_step()

    @work(exclusive=True, group="rotation-dashboard")
    async def simulate_create(self) -> None:
        if self.dashboard is None:
            return
        try:
            key = await self.dashboard.create_key(f"console {self.rotation.profile.name} {self.console.now():%Y-%m-%d}")
        except DashboardError as exc:
            await self.show_step(str(exc))
            return
        if await self._step(self.rotation.confirm_generated):
            self.query_one("#new-key", Input).value = key.reveal()
            self.say(f"The sandbox dashboard created {key.masked}; it is in the hidden field.", title="Dashboard")

    @work(exclusive=True, group="rotation-dashboard")
    async def simulate_delete(self) -> None:
        old = self.rotation.kept_old_key()
        if self.dashboard is None or old is None:
            return
        try:
            await self.dashboard.delete_key(old)
        except DashboardError as exc:
            await self.show_step(str(exc))
            return
        self.say(f"The sandbox dashboard deleted {old.masked}.", title="Dashboard")
        await self._step(self.rotation.confirm_deleted)

    def action_close(self) -> None:
        if self.rotation.step is Step.DONE:
            self.rotation.close()
        elif self.rotation.in_progress:
            self.say("The rotation's progress is kept: press r on Profiles & keys to resume.")
        self.dismiss()
