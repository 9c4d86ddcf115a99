"""The add/edit profile form: name, environment, base URL and a masked key field (never echoed)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from stablepay_console.api import ApiKey
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.model import ENVIRONMENTS, Profile
from stablepay_console.profiles.store import ProfileStoreError, make_profile
from stablepay_console.tui.formatters.text import clean

SaveProfile = Callable[[Profile, ApiKey | None, bool], None]


class ProfileForm(ModalScreen[Profile | None]):
    """Add a profile, or edit one (its name stays; an empty key field keeps the stored key)."""

    DEFAULT_CSS = """
    ProfileForm { align: center middle; background: $background 60%; }
    ProfileForm > #form-box {
        width: 84; height: auto; padding: 1 2; border: thick $primary; background: $surface;
    }
    ProfileForm #form-title { text-style: bold; margin-bottom: 1; }
    ProfileForm Label { margin-top: 1; }
    ProfileForm #form-keyring { color: $warning; margin-top: 1; }
    ProfileForm #form-error { color: $error; margin-top: 1; height: auto; }
    ProfileForm #form-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    ProfileForm #form-buttons Button { margin-left: 2; }
    """

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="form.cancel", tooltip="Close without saving")]

    HELP = (
        "## Profile\n\nA profile is a name, an environment and a base URL. The key is typed or pasted into a "
        "hidden field and goes to the OS keyring, never to a file. Tab moves between fields; Enter in a field saves."
    )

    def __init__(self, save: SaveProfile, *, profile: Profile | None = None, keyring_problem: str | None = None,
                 is_default: bool = False) -> None:
        super().__init__()
        self.save = save
        self.editing = profile
        self.keyring_problem = keyring_problem
        self.is_default = is_default

    def compose(self) -> ComposeResult:
        p = self.editing
        with Vertical(id="form-box"):
            title = f"Edit profile {p.name}" if p else "Add a profile"
            yield Static(Text(title), id="form-title")
            yield Label("Name")
            yield Input(p.name if p else "", placeholder="e.g. acme-production", id="form-name", disabled=p is not None)
            yield Label("Environment")
            yield Select([(e, e) for e in ENVIRONMENTS], value=p.environment if p else "sandbox", allow_blank=False,
                         id="form-environment")
            yield Label("Base URL")
            yield Input(p.base_url if p else "", placeholder="https://…", id="form-base-url")
            yield Label("API key (hidden as you type)" + (" — leave empty to keep the stored key" if p else ""))
            yield Input(password=True, placeholder="paste the key", id="form-key")
            yield Checkbox("Make this the default profile", value=self.is_default, id="form-default")
            if self.keyring_problem:
                yield Static(Text(self.keyring_problem), id="form-keyring")
            yield Static("", id="form-error")
            with Horizontal(id="form-buttons"):
                yield Button("Save", id="form-save", variant="primary")
                yield Button("Cancel", id="form-cancel")

    def on_mount(self) -> None:
        self.query_one("#form-base-url" if self.editing else "#form-name", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "form-save":
            self.submit()
        else:
            self.dismiss(None)

    def submit(self) -> None:
        error = self.query_one("#form-error", Static)
        key_input = self.query_one("#form-key", Input)
        try:
            profile = make_profile(
                self.query_one("#form-name", Input).value,
                str(self.query_one("#form-environment", Select).value),
                self.query_one("#form-base-url", Input).value,
            )
            key = ApiKey(key_input.value) if key_input.value.strip() else None
        except ValueError as exc:
            error.update(Text(clean(str(exc), 300)))
            return
        try:
            self.save(profile, key, self.query_one("#form-default", Checkbox).value)
        except (KeyStoreError, ProfileStoreError) as exc:
            error.update(Text(clean(str(exc), 300)))
            return
        key_input.value = ""
        self.dismiss(profile)
