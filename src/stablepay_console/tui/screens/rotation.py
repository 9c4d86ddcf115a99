"""The key-rotation wizard: one step at a time, in the spec's order; closing it keeps the progress."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Input, Static

from stablepay_console.api import ApiKey
from stablepay_console.profiles.age import add_months
from stablepay_console.profiles.dashboard import DashboardError, SandboxDashboard
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.rotation import STEP_TITLES, Rotation, RotationError, Step
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.screens.base import ConsoleScreen

DASHBOARD = "the StablePay dashboard (Developer, then API Keys)"


class RotationScreen(ConsoleScreen):
    CSS_PATH = "../styles/rotation.tcss"

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
"""

    def __init__(self, rotation: Rotation, dashboard: SandboxDashboard | None = None) -> None:
        super().__init__()
        self.rotation = rotation
        self.dashboard = dashboard

    @property
    def profile_text(self) -> str:
        p = self.rotation.profile
        return f"{clean(p.name)} ({'PRODUCTION' if p.is_production else 'sandbox'})"

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"Rotate the key of {self.profile_text}"), id="rotation-title")
        with Horizontal(id="rotation-main"):
            yield Static("", id="rotation-steps")
            with Vertical(id="rotation-body"):
                yield Vertical(id="rotation-step")
                yield Static("", id="rotation-error")

    async def on_mount(self) -> None:
        await self.show_step()

    # --- rendering -----------------------------------------------------------------

    def steps_text(self) -> Text:
        text = Text()
        current = self.rotation.step
        for step in Step:
            if step is Step.DONE:
                continue
            if step < current:
                text.append(f"✓ {step.value}. {STEP_TITLES[step]}\n", style="green")
            elif step == current:
                text.append(f"▶ {step.value}. {STEP_TITLES[step]}\n", style="bold reverse")
            else:
                text.append(f"  {step.value}. {STEP_TITLES[step]}\n", style="dim")
        if self.rotation.resumed and current is not Step.DONE:
            text.append("\nResumed where the wizard stopped.", style="italic")
        return text

    def step_widgets(self) -> list[Widget]:
        r = self.rotation
        p = r.profile
        state = r.state
        step = r.step
        abandon = Button("Abandon", id="abandon", variant="error") if r.can_abandon else None
        if step is Step.GENERATE:
            widgets: list[Widget] = [
                Static(Text(
                    f"In {DASHBOARD}, generate a new key for the {p.environment} environment and give it a "
                    f"descriptive name (for example \"console {p.name} {self.console.now():%Y-%m}\").\n\n"
                    "The dashboard shows the key once: keep it on the clipboard for the next step."
                )),
            ]
            buttons = [Button("I have created the new key", id="generated", variant="primary")]
            if self.dashboard is not None:
                buttons.append(Button("Simulate in the sandbox dashboard", id="simulate-create"))
        elif step is Step.PASTE:
            widgets = [
                Static(Text("Paste the new key. It stays hidden, and is kept only in the keyring until the switch.")),
                Input(password=True, placeholder="paste the new key", id="new-key"),
            ]
            buttons = [Button("Verify the new key", id="paste", variant="primary")]
        elif step is Step.VERIFY_NEW:
            widgets = [Static(Text(f"Checking the new key {state.new_key} against {p.base_url} with /ping…"))]
            buttons = [Button("Check again", id="verify-new", variant="primary")]
        elif step is Step.SWITCH:
            widgets = [Static(Text(
                f"The new key {state.new_key} works against {p.base_url}.\n\nSwitch profile {p.name} to it? "
                f"The old key {state.old_key} is kept aside until it has been deleted and is refused."
            ))]
            switch = Button("Switch to the new key", id="switch", variant="primary")
            if p.is_production:
                switch.variant = "warning"
            buttons = [switch]
        elif step is Step.DELETE_OLD:
            widgets = [Static(Text(
                f"Profile {p.name} now uses the new key {state.new_key}.\n\nIn {DASHBOARD}, delete the old key "
                f"{state.old_key}. Requests with it stop working at once."
            ))]
            buttons = [Button("I have deleted the old key", id="deleted", variant="primary")]
            if self.dashboard is not None:
                buttons.append(Button("Simulate in the sandbox dashboard", id="simulate-delete"))
        elif step is Step.VERIFY_OLD:
            widgets = [Static(Text(f"Checking that the old key {state.old_key} is now refused (401)…"))]
            buttons = [Button("Check again", id="verify-old", variant="primary")]
        else:
            since = self.console.now()
            widgets = [Static(Text(
                f"Done. Profile {p.name} uses the new key {state.new_key}; the old key {state.old_key} was refused "
                f"and is forgotten.\n\nThe next rotation is due by {add_months(since, 12):%Y-%m-%d}."
            ))]
            buttons = [Button("Close", id="close", variant="primary")]
        if abandon is not None:
            buttons.append(abandon)
        widgets.append(Horizontal(*buttons, classes="rotation-buttons"))
        return widgets

    async def show_step(self, error: str | None = None) -> None:
        self.query_one("#rotation-steps", Static).update(self.steps_text())
        message = error if error is not None else self.rotation.error
        self.query_one("#rotation-error", Static).update(Text(message))
        container = self.query_one("#rotation-step", Vertical)
        await container.remove_children()
        await container.mount_all(self.step_widgets())
        if self.rotation.step is Step.PASTE:
            self.query_one("#new-key", Input).focus()
        else:
            self.query_one(".rotation-buttons Button", Button).focus()
        if not message and self.rotation.step in (Step.VERIFY_NEW, Step.VERIFY_OLD):
            self.run_check()

    # --- steps ---------------------------------------------------------------------

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        handlers = {
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
            self.notify("Rotation abandoned; the profile keeps its key.", title="Key rotation", markup=False)
            self.dismiss()
        elif button == "close":
            self.action_close()

    async def _step(self, action: object) -> None:
        try:
            action()  # type: ignore[operator]
        except (RotationError, KeyStoreError) as exc:
            await self.show_step(str(exc))
            return
        if self.rotation.state.step:  # abandon resets to a fresh state; the screen then closes
            await self.show_step()

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
        await self._step(self.rotation.switch)
        active = self.console.profile
        profile = self.rotation.profile
        if self.rotation.step is Step.DELETE_OLD and active is not None and active.name == profile.name:
            await self.console.use_profile(profile)  # the console itself now talks with the new key
        self.notify(f"Profile {clean(profile.name)} now uses the new key.", title="Key rotation", markup=False)

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
        await self._step(self.rotation.confirm_generated)
        self.query_one("#new-key", Input).value = key.reveal()
        message = f"The sandbox dashboard created {key.masked}; it is in the hidden field."
        self.notify(message, title="Dashboard", markup=False)

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
        self.notify(f"The sandbox dashboard deleted {old.masked}.", title="Dashboard", markup=False)
        await self._step(self.rotation.confirm_deleted)

    def action_close(self) -> None:
        if self.rotation.step is Step.DONE:
            self.rotation.close()
        elif self.rotation.in_progress:
            message = "The rotation's progress is kept: press r on Profiles & keys to resume."
            self.notify(message, title="Key rotation", markup=False)
        self.dismiss()
