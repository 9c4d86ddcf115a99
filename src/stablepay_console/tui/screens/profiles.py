"""Profiles & keys: every profile, its key (masked) and age; add, edit, remove, default, switch, rotate."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import STEP_TITLES, RotationError, Step
from stablepay_console.profiles.store import ProfileStoreError
from stablepay_console.profiles.verify import KeyCheck, check_key
from stablepay_console.tui.formatters.text import clean, when
from stablepay_console.tui.modals.profile_form import ProfileForm
from stablepay_console.tui.modals.profile_switcher import environment_label, profile_book, switch_to
from stablepay_console.tui.runtime.web_mode import READ_ONLY, in_browser
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.columns import FittedTable

CHANGES_KEYS = frozenset({"add", "edit", "remove", "make_default", "rotate"})
"""What the profiles screen does not do in a browser (tui/runtime/web_mode.py)."""

AGE_STYLES = {"ok": "", "due": "bold yellow", "overdue": "bold red", "unknown": "dim"}


COLUMNS = ("", "Profile", "Env", "Where", "Key", "Key age", "Rotating")
DROP = (0, 0, 0, 3, 2, 0, 1)
"""Narrow first drops where, then the key, then the rotation step: the panel below says them all."""


class ProfilesScreen(ConsoleScreen):
    CSS_PATH = "../styles/profiles.tcss"

    BINDINGS = [
        Binding("enter", "use", "Use", id="profiles.use", tooltip="Switch the console to this profile"),
        Binding("a", "add", "Add", id="profiles.add", tooltip="Add a profile and its key"),
        Binding("e", "edit", "Edit", id="profiles.edit", tooltip="Change the environment, base URL or key"),
        Binding("x", "remove", "Remove", id="profiles.remove", tooltip="Remove the profile and forget its key"),
        Binding("d", "make_default", "Default", id="profiles.default", tooltip="Start the console on this profile"),
        Binding("r", "rotate", "Rotate key", id="profiles.rotate", tooltip="Start or resume the key-rotation wizard"),
    ]

    HELP = """\
## Profiles & keys

Each profile is a name, an environment (sandbox or production) and a base URL. Keys live in the OS
keyring (one entry per profile), or come from `STABLEPAY_API_KEY` for the profile named by
`STABLEPAY_PROFILE`. A key is only ever shown masked.

- **Enter** switch the console to the highlighted profile (the key is checked with `/ping`); **F2** anywhere
- **a** add a profile, **e** edit it, **x** remove it, **d** make it the default
- **r** rotate its key: the wizard follows the spec's order and resumes where it stopped

Keys must be rotated at least every 12 months: the console warns from 11 months and marks 12 as overdue.
The built-in profiles are in-process simulations (no network, no real money).
"""

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Profiles & keys"), classes="title")
        if in_browser():
            yield Static(Text(READ_ONLY), id="profiles-read-only")
        yield Static("", id="profiles-keyring")
        table = FittedTable(id="profiles-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="profiles-detail")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # In a browser no key is typed, changed or rotated: the operator does that on the server.
        return not (action in CHANGES_KEYS and in_browser())

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self.refresh_profiles(follow_active=True)
        table.focus()

    def on_screen_resume(self) -> None:
        self.refresh_profiles()

    def on_profile_changed(self) -> None:
        # After a switch the highlighted row follows it, so `r` rotates the profile now in use.
        self.refresh_profiles(follow_active=True)

    # --- data ----------------------------------------------------------------------

    @property
    def book(self) -> ProfileBook:
        return profile_book(self.app)

    def _profiles(self, book: ProfileBook) -> list[Profile]:
        try:
            return book.profiles()
        except ProfileStoreError as exc:
            self.notify(clean(str(exc), 600), title="Profiles file", severity="error", timeout=10, markup=False)
            return list(book.embedded)

    def refresh_profiles(self, follow_active: bool = False) -> None:
        book = self.book
        self.profiles = self._profiles(book)
        problem = "" if in_browser() else book.keys.problem  # the server's keyring is its operator's business
        self.query_one("#profiles-keyring", Static).update(Text(f"⚠ {clean(problem, 600)}") if problem else "")
        self.query_one("#profiles-keyring", Static).display = bool(problem)
        table = self.query_one(FittedTable)
        keep = table.cursor_row
        rows: list[tuple[Text | str, ...]] = []
        default = self._default(book)
        active = self.console.profile
        for profile in self.profiles:
            marks = ("▶" if active is not None and active.name == profile.name else " ") + (
                "★" if profile.name == default else " "
            )
            status = book.key_status(profile)
            age = book.age(profile)
            step = book.rotation_step(profile)
            rows.append((
                marks,
                Text(clean(profile.name, 30), style="bold"),
                environment_label(profile),
                Text(clean(profile.where, 30)),
                Text(clean(status.label, 60), style="" if status.usable else "red"),
                Text(age.short, style=AGE_STYLES[age.level]),
                Text(f"step {step}/6" if step and step < Step.DONE else "—", style="yellow" if step else "dim"),
            ))
        table.show(COLUMNS, DROP, rows, [p.name for p in self.profiles])
        names = [p.name for p in self.profiles]
        if follow_active and active is not None and active.name in names:
            keep = names.index(active.name)
        if self.profiles:
            table.move_cursor(row=min(max(keep, 0), len(self.profiles) - 1))
        self.show_detail()

    def _default(self, book: ProfileBook) -> str | None:
        """The profile the console starts on: the default, else the built-in sandbox (★ in the table)."""
        try:
            return book.default_name() or (book.embedded[0].name if book.embedded else None)
        except ProfileStoreError:
            return None

    def selected(self) -> Profile | None:
        table = self.query_one(DataTable)
        if not self.profiles or table.cursor_row < 0:
            return None
        return self.profiles[min(table.cursor_row, len(self.profiles) - 1)]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # The focused table takes Enter for its own row selection before the screen's binding sees it.
        event.stop()
        self.action_use()

    def show_detail(self) -> None:
        profile = self.selected()
        detail = self.query_one("#profiles-detail", Static)
        if profile is None:
            detail.update("")
            return
        book = self.book
        status = book.key_status(profile)
        age = book.age(profile, self.console.now())
        lines = Text()
        lines.append(f"{clean(profile.name)}: ", style="bold")
        label = environment_label(profile)
        lines.append(label.plain.strip(), style=label.style)
        lines.append(f" at {clean(profile.where)}\n")
        note = f" — {clean(status.note, 600)}" if status.note else ""
        lines.append(f"Key: {clean(status.label, 60)}{note}\n")
        lines.append(age.sentence, style=AGE_STYLES[age.level])
        if age.level == "unknown" and not profile.embedded and not in_browser():
            lines.append(" Give it with e (edit), or rotate the key.", style=AGE_STYLES[age.level])
        rotations = book.rotations(profile)
        if rotations:
            lines.append("\nRotated: " + ", ".join(when(r) for r in rotations[-3:]))
        step = book.rotation_step(profile)
        if step and step < Step.DONE:
            resume = "the operator resumes it on the server" if in_browser() else "press r to resume"
            lines.append(f"\nA rotation stopped at step {step} ({STEP_TITLES[Step(step)]}): {resume}.",
                         style="yellow")
        if profile.embedded:
            lines.append("\nBuilt-in: an in-process simulation for trying the console; it cannot be edited or removed.",
                         style="dim")
        detail.update(lines)

    # --- actions -------------------------------------------------------------------

    def _configured(self, verb: str) -> Profile | None:
        profile = self.selected()
        if profile is not None and profile.embedded:
            self.notify(f"The built-in profile {profile.name} cannot be {verb}.", severity="warning", markup=False)
            return None
        return profile

    def action_use(self) -> None:
        profile = self.selected()
        if profile is not None:
            self.use_profile(profile)

    @work(exclusive=True, group="switch-profile")
    async def use_profile(self, profile: Profile) -> None:
        """Switch in a worker: the new key's /ping may be slow, and the screen keeps answering keys meanwhile."""
        await switch_to(self.app, profile)
        self.refresh_profiles()

    async def check_key(self, profile: Profile, key: ApiKey) -> KeyCheck:
        """`/ping` with a key the form is about to save, against the profile's own base URL."""
        return await check_key(self.console.services.client_with(profile, key), profile.base_url)

    def action_add(self) -> None:
        book = self.book

        def save(profile: Profile, key: ApiKey | None, make_default: bool, since: datetime | None) -> None:
            book.add(profile, key, make_default=make_default, key_since=since)

        form = ProfileForm(save, keyring_problem=book.keys.problem, check=self.check_key, now=self.console.now)
        self.app.push_screen(form, self._saved)

    def action_edit(self) -> None:
        profile = self._configured("edited")
        if profile is None:
            return
        book = self.book

        def save(changed: Profile, key: ApiKey | None, make_default: bool, since: datetime | None) -> None:
            book.edit(changed, key, key_since=since)
            if make_default:
                book.set_default(changed.name)

        form = ProfileForm(save, profile=profile, keyring_problem=book.keys.problem,
                           is_default=self._default(book) == profile.name, check=self.check_key,
                           now=self.console.now, key_since=book.key_since(profile))
        self.app.push_screen(form, self._saved)

    def _saved(self, profile: Profile | None) -> None:
        if profile is None:
            return
        self.notify(f"Saved profile {clean(profile.name)}.", title="Profiles", markup=False)
        self.refresh_profiles()
        active = self.console.profile
        if active is not None and active.name == profile.name:
            self.use_profile(profile)  # a changed URL or key takes effect at once

    def action_remove(self) -> None:
        from stablepay_console.tui.modals.confirm import ConfirmScreen

        profile = self._configured("removed")
        if profile is None:
            return
        active = self.console.profile
        if active is not None and active.name == profile.name:
            self.notify("Switch to another profile before removing this one.", severity="warning", markup=False)
            return
        question = Text(
            f"Remove profile {clean(profile.name)} and forget its key from the keyring? The key stays valid "
            "until it is deleted in the dashboard (Developer, then API Keys)."
        )

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.book.remove(profile)
            except (ProfileStoreError, KeyStoreError) as exc:
                self.notify(clean(str(exc), 600), severity="error", timeout=10, markup=False)
                return
            self.notify(f"Removed profile {clean(profile.name)}.", title="Profiles", markup=False)
            self.refresh_profiles()

        self.app.push_screen(ConfirmScreen(question, title="Remove profile", yes_label="Remove", danger=True), answered)

    def action_make_default(self) -> None:
        profile = self.selected()  # a built-in one too: the way back to the sandbox
        if profile is None:
            return
        try:
            self.book.set_default(profile.name)
        except ProfileStoreError as exc:
            self.notify(clean(str(exc), 600), severity="error", markup=False)
            return
        self.notify(f"The console now starts on {clean(profile.name)}.", title="Default profile", markup=False)
        self.refresh_profiles()

    def action_rotate(self) -> None:
        from stablepay_console.tui.screens.rotation import RotationScreen

        profile = self.selected()
        if profile is None:
            return
        services = self.console.services
        try:
            rotation = self.book.rotation(profile, services.client_with, clock=self.console.now)
            rotation.on_step = services.audit.rotation_hook(profile)
            rotation.start()
        except (RotationError, KeyStoreError) as exc:
            self.notify(clean(str(exc), 600), title="Cannot rotate", severity="error", timeout=10, markup=False)
            return
        dashboard = services.dashboard(profile)
        self.app.push_screen(RotationScreen(rotation, dashboard))
