"""Switching profile: the switcher modal (global key F2), and the helpers the palette and screens share."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.store import ProfileStoreError
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.base import ConsoleModal

if TYPE_CHECKING:
    from stablepay_console.tui.console import Console


def profile_book(app: App[Any]) -> ProfileBook:
    """The console's one profile book: its built-in profiles, then the configured ones."""
    return cast("Console", app).services.book


def environment_label(profile: Profile) -> Text:
    if profile.is_production:
        return Text("PRODUCTION ", style="bold red")
    return Text("sandbox    ", style="green")


async def switch_to(app: App[Any], profile: Profile) -> bool:
    """Ask the services for a switch to `profile` and let the app apply it; say plainly why not when it can't."""
    console = cast("Console", app)
    outcome = await console.services.switch(profile)
    if not await console.apply_switch(outcome):
        return False
    where = "PRODUCTION: real money" if profile.is_production else "sandbox"
    app.notify(f"Now on {clean(profile.name)} ({where}). Key check: {outcome.ping}", title="Profile", markup=False)
    return True


def request_switch(app: App[Any], profile: Profile) -> None:
    """Switch from a synchronous callback (the command palette)."""
    app.run_worker(switch_to(app, profile), group="switch-profile", exclusive=True)


AGE_STYLES = {"due": "bold black on yellow", "overdue": "bold white on red"}


def profile_prompt(profile: Profile, active: Profile | None, book: ProfileBook, now: datetime | None = None) -> Text:
    marker = "▶ " if active is not None and profile.name == active.name else "  "
    status = book.key_status(profile)
    try:
        age = book.age(profile, now)
    except (ProfileStoreError, KeyStoreError):
        age = None
    due = Text(f" {age.short} ", style=AGE_STYLES[age.level]) if age is not None and age.level in AGE_STYLES else ""
    # Two lines: what matters first (name, environment, key, rotation), where it points below.
    return Text.assemble(
        marker,
        (clean(profile.name, 30).ljust(22), "bold"),
        environment_label(profile),
        " ",
        (clean(status.label, 40), "" if status.usable else "red"),
        "  " if due else "",
        due,
        "\n  ",
        (clean(profile.where, 90), "dim"),
    )


class ProfileSwitcher(ConsoleModal[Profile | None]):
    """Pick a profile; Enter switches to it, Escape leaves everything as it was."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel", id="switcher.cancel", tooltip="Keep the current profile")]

    HELP = (
        "## Switch profile\n\nUp/Down to choose, Enter to switch. The banner turns red on production, "
        "and the new profile's key is checked with `/ping`. Escape keeps the current profile."
    )

    def __init__(
        self, profiles: list[Profile], active: Profile | None, book: ProfileBook, now: datetime | None = None
    ) -> None:
        super().__init__()
        self.profiles = profiles
        self.active = active
        self.book = book
        self.now = now

    def compose(self) -> ComposeResult:
        with Vertical(id="switcher-box", classes="modal-box"):
            yield Static(Text("Switch profile"), id="switcher-title", classes="modal-title")
            yield OptionList(
                *(Option(profile_prompt(p, self.active, self.book, self.now), id=p.name) for p in self.profiles),
                id="switcher-list",
            )
            yield Static(Text("Enter switches · Escape cancels"), classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = [p.name for p in self.profiles]
        if self.active is not None and self.active.name in names:
            options.highlighted = names.index(self.active.name)
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        chosen = next((p for p in self.profiles if p.name == event.option_id), None)
        self.dismiss(chosen)


def open_switcher(app: App[Any]) -> None:
    """Show the switcher; switch when a profile other than the active one is chosen."""
    console = cast("Console", app)
    book = profile_book(app)
    try:
        profiles = book.profiles()
    except ProfileStoreError as exc:
        app.notify(clean(str(exc), 600), title="Profiles", severity="error", timeout=10, markup=False)
        profiles = list(book.embedded)

    def chosen(profile: Profile | None) -> None:
        if profile is not None and profile != console.profile:
            request_switch(app, profile)  # a worker: the new key's /ping must not hold the keyboard

    app.push_screen(ProfileSwitcher(profiles, console.profile, book, console.now()), chosen)
