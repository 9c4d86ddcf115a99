"""The add/edit profile form: name, environment, base URL, a masked key field (never echoed) and the key's date.

A new key is checked with `/ping` against the base URL before anything is saved: a refused key is
not saved; when the server cannot be reached, "Save without checking" is offered, said plainly.

On a machine with no keyring the form has no key field: the profile is saved without a key, which the
console then reads from STABLEPAY_API_KEY (as `profile add --no-key`), and the form says so once. A new
profile becomes the one the console starts on only when its box is ticked (unticked at first).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from stablepay_console.api import ApiKey
from stablepay_console.profiles.key_date import key_created, parse_key_created
from stablepay_console.profiles.keys import ENV_KEY, ENV_PROFILE, KeyStoreError
from stablepay_console.profiles.model import ENVIRONMENTS, Profile
from stablepay_console.profiles.store import ProfileStoreError, make_profile
from stablepay_console.profiles.verify import KeyCheck
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.base import ConsoleModal

SaveProfile = Callable[[Profile, ApiKey | None, bool, datetime | None], None]
"""Keep (profile, new key or None, make it the default, the key's creation date or None)."""
CheckKey = Callable[[Profile, ApiKey], Awaitable[KeyCheck]]

NO_KEYRING = (
    f"No keyring on this machine, so no key is kept: the profile is saved without one, and the console reads "
    f"its key from {ENV_KEY} when started with {ENV_PROFILE} set to its name (as `profile add --no-key`)."
)


class ProfileForm(ConsoleModal[Profile | None]):
    """Add a profile, or edit one (its name stays; an empty key field keeps the stored key)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="form.cancel", tooltip="Close without saving")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    """Short (80x24): the fields go borderless (styles/modals.tcss), so Save is on screen without scrolling."""

    HELP = (
        "## Profile\n\nA profile is a name, an environment and a base URL. The key is typed or pasted into a "
        "hidden field and goes to the OS keyring, never to a file; it is checked with `/ping` before it is saved. "
        "The key's creation date (YYYY-MM-DD) drives the rotation reminders: empty means today, or a JWT key's "
        "own issue date. Tab moves between fields; Enter in a field saves."
    )

    def __init__(
        self,
        save: SaveProfile,
        *,
        profile: Profile | None = None,
        keyring_problem: str | None = None,
        is_default: bool = False,
        check: CheckKey | None = None,
        now: Callable[[], datetime] | None = None,
        key_since: datetime | None = None,
    ) -> None:
        super().__init__()
        self.save = save
        self.editing = profile
        self.keyring_problem = keyring_problem
        self.is_default = is_default
        self.check = check
        self.now = now or (lambda: datetime.now().astimezone())
        self.stored_date = f"{key_since:%Y-%m-%d}" if key_since is not None else ""

    def compose(self) -> ComposeResult:
        p = self.editing
        with VerticalScroll(id="form-box", classes="modal-box"):
            title = f"Edit profile {clean(p.name, 40)}" if p else "Add a profile"
            yield Static(Text(title), id="form-title", classes="modal-title")
            with Grid(id="form-grid"):
                yield Label("Name")
                yield Input(p.name if p else "", placeholder="e.g. acme-production", id="form-name",
                            disabled=p is not None)
                yield Label("Environment")
                yield Select([(e, e) for e in ENVIRONMENTS], value=p.environment if p else "sandbox",
                             allow_blank=False, id="form-environment")
                yield Label("Base URL")
                yield Input(p.base_url if p else "", placeholder="https://…", id="form-base-url")
                if not self.keyring_problem:  # nowhere to keep a key: none is asked for
                    yield Label("API key")
                    yield Input(password=True, id="form-key", placeholder="paste it (hidden)" + (
                        "; empty keeps the stored key" if p else "; empty: no key kept"))
                yield Label("Key created")
                yield Input(self.stored_date, id="form-key-created",
                            placeholder=f"YYYY-MM-DD (empty: {self.now():%Y-%m-%d})")
            yield Static("", id="form-date-hint")
            yield Checkbox("Make this the default profile", value=self.is_default, id="form-default")
            if self.keyring_problem:
                yield Static(Text(NO_KEYRING), id="form-keyring")
            yield Static("", id="form-error", classes="modal-error")
            with Horizontal(id="form-buttons", classes="modal-buttons"):
                yield Button("Save", id="form-save", variant="primary")
                yield Button("Save without checking", id="form-save-unchecked", variant="warning")
                yield Button("Cancel", id="form-cancel")

    def on_mount(self) -> None:
        self.query_one("#form-save-unchecked", Button).display = False
        self.query_one("#form-base-url" if self.editing else "#form-name", Input).focus()
        self.show_date()

    # --- the key's date ----------------------------------------------------------------------------

    def key_and_date(self) -> tuple[ApiKey | None, datetime | None]:
        """The typed key (None: keep the stored one) and the given creation date (None: default). ValueError."""
        raw_key = "" if self.keyring_problem else self.query_one("#form-key", Input).value
        key = ApiKey(raw_key) if raw_key.strip() else None
        typed = self.query_one("#form-key-created", Input).value.strip()
        if not typed or (key is not None and typed == self.stored_date):
            return key, None  # a new key with the old key's date untouched is dated afresh
        return key, parse_key_created(typed, self.now())

    def show_date(self) -> None:
        hint = self.query_one("#form-date-hint", Static)
        try:
            key, given = self.key_and_date()
        except ValueError as exc:
            hint.update(Text(clean(str(exc), 200)))
            return
        if key is None and given is None:
            hint.update(Text(f"The stored key keeps its date ({self.stored_date})." if self.stored_date else ""))
            return
        when, source = key_created(key, given, self.now())
        hint.update(Text(f"The key's age counts from {when:%Y-%m-%d}, {source}."))

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id in ("form-key", "form-key-created"):
            self.show_date()
            self.query_one("#form-save-unchecked", Button).display = False

    # --- saving ------------------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "form-save":
            self.submit()
        elif event.button.id == "form-save-unchecked":
            self.submit(checked=False)
        else:
            self.dismiss(None)

    def fail(self, message: str) -> None:
        self.query_one("#form-error", Static).update(Text(clean(message, 400)))

    def submit(self, checked: bool = True) -> None:
        try:
            profile = make_profile(
                self.query_one("#form-name", Input).value,
                str(self.query_one("#form-environment", Select).value),
                self.query_one("#form-base-url", Input).value,
            )
            key, given = self.key_and_date()
        except ValueError as exc:
            self.fail(str(exc))
            return
        if key is not None and checked and self.check is not None and not self.keyring_problem:
            self.fail(f"Checking the key with /ping at {profile.base_url}…")
            self.check_then_save(profile, key, given)
            return
        self.keep(profile, key, given)

    @work(exclusive=True, group="profile-form-check")
    async def check_then_save(self, profile: Profile, key: ApiKey, given: datetime | None) -> None:
        assert self.check is not None
        verdict = await self.check(profile, key)
        if verdict.ok:
            self.keep(profile, key, given)
            return
        self.fail(verdict.message if verdict.refused else f"{verdict.message} Save it without the check?")
        self.query_one("#form-save-unchecked", Button).display = not verdict.refused

    def keep(self, profile: Profile, key: ApiKey | None, given: datetime | None) -> None:
        try:
            self.save(profile, key, self.query_one("#form-default", Checkbox).value, given)
        except (KeyStoreError, ProfileStoreError) as exc:
            self.fail(str(exc))
            return
        for field in self.query("#form-key").results(Input):
            field.value = ""
        self.dismiss(profile)
