"""Profiles & keys, the profile switcher (F2, command palette), the production banner and the rotation wizard."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from textual.command import CommandList
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, DataTable, Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.age import add_months
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import KeyStore
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Step
from stablepay_console.profiles.store import ProfileStore
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW, wait_for_workers
from tests.opened_on import OpenedOn


async def settle(pilot: Pilot[Any]) -> None:
    """`wait_for_workers` for a pilot of any app type."""
    await wait_for_workers(pilot)

TEAM_URL = "https://api.sandbox.stablepay.test"
OLD_PROD_KEY = "sk_production_demo_old_key_0000000000000a1b2"


def build_app(sandbox: Sandbox, production: Sandbox | None = None, opens_on: str | None = None) -> ConsoleApp:
    """The console with both built-in profiles (fixed keys) and configured profiles answered by `sandbox`;
    `opens_on`: started on that screen instead of the inbox (tests/opened_on.py)."""
    production = production or Sandbox(now=FIXED_NOW, environment="production", keys={OLD_PROD_KEY: "demo"})
    connector = Services(
        sandbox=sandbox,
        production_sandbox=production,
        clock=lambda: FIXED_NOW,
        transport_for=lambda p: httpx.ASGITransport(app=sandbox.app),
    )
    connector.embedded_vault.set(EMBEDDED_PRODUCTION_PROFILE.name, ApiKey(OLD_PROD_KEY))
    if opens_on is not None:
        return OpenedOn(opens_on, EMBEDDED_PROFILE, connector, clock=lambda: FIXED_NOW)
    return ConsoleApp(EMBEDDED_PROFILE, connector, clock=lambda: FIXED_NOW)


def banner(app: ConsoleApp) -> str:
    return str(app.screen.query_one("EnvironmentBanner").render())


def table_text(app: ConsoleApp) -> str:
    table = app.screen.query_one(DataTable)
    return "\n".join(" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count))


async def open_profiles(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    if pilot.app.current_mode != "profiles":  # a console opened on the profiles screen is there
        await pilot.press("5")
    await settle(pilot)


async def goto_row(pilot: Pilot[Any], name: str) -> None:
    app = pilot.app
    table = app.screen.query_one(DataTable)
    names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
    table.move_cursor(row=names.index(name))
    await pilot.pause()


def add_team_profile(key: str = SANDBOX_KEY, since_months: int = 0) -> Profile:
    profile = Profile("team", "sandbox", TEAM_URL)
    book = ProfileBook(clock=lambda: add_months(FIXED_NOW, -since_months))
    book.add(profile, ApiKey(key))
    return profile


def no_blink(app: ConsoleApp) -> None:
    app.clear_notifications()
    for field in app.screen.query(Input):
        field.cursor_blink = False


# --- the profiles screen ------------------------------------------------------------------------------------------


async def test_profiles_are_listed_with_masked_keys_and_age(sandbox: Sandbox) -> None:
    add_team_profile(since_months=11)
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        text = table_text(app)
        assert "embedded-production" in text and "team" in text
        assert ApiKey(SANDBOX_KEY).masked in text and SANDBOX_KEY not in text
        assert "due: 11 months" in text
        await goto_row(pilot, "team")
        detail = str(app.screen.query_one("#profiles-detail").render())
        assert "rotate it before 2026-12-20" in detail


async def test_overdue_key_is_marked(sandbox: Sandbox) -> None:
    add_team_profile(since_months=12)
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        assert "OVERDUE: 12 months" in table_text(app)


async def test_add_a_profile_from_the_form(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#form-name", Input).value = "team"
        app.screen.query_one("#form-base-url", Input).value = TEAM_URL
        app.screen.query_one("#form-key", Input).value = CANARY_KEY
        app.screen.query_one("#form-key-created", Input).value = "2025-12-01"
        await pilot.pause()
        assert "counts from 2025-12-01, as given" in str(app.screen.query_one("#form-date-hint").render())
        await pilot.click("#form-save")
        await settle(pilot)
        error = str(app.screen.query_one("#form-error").render())
        assert "refused the key (Not authorized). Nothing was saved." in error, "checked with /ping first"
        assert not app.screen.query_one("#form-save-unchecked").display, "a refused key cannot be saved anyway"
        assert memory_keyring.entries == {} and ProfileStore().profiles() == []

        sandbox.add_key(CANARY_KEY, "the team's key")
        await pilot.click("#form-save")
        await settle(pilot)
        assert memory_keyring.entries[("stablepay-console", "team")] == CANARY_KEY
        assert ProfileStore().profiles() == [Profile("team", "sandbox", TEAM_URL)]
        assert ProfileStore().load().default is None, "the default box was left unticked"
        assert "team" in table_text(app)
        assert "Rotation due: 11 months" in table_text(app)


async def test_form_offers_to_save_unchecked_when_the_server_cannot_be_reached(sandbox: Sandbox) -> None:
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#form-name", Input).value = "team"
        app.screen.query_one("#form-base-url", Input).value = TEAM_URL
        app.screen.query_one("#form-key", Input).value = SANDBOX_KEY
        sandbox.faults.force = "502_html"
        await pilot.click("#form-save")
        await settle(pilot)
        assert "could not be checked" in str(app.screen.query_one("#form-error").render())
        assert ProfileStore().profiles() == []
        await pilot.click("#form-save-unchecked")
        await settle(pilot)
        assert ProfileStore().get("team") is not None


async def test_form_refuses_plain_http_inline(sandbox: Sandbox) -> None:
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#form-name", Input).value = "team"
        app.screen.query_one("#form-base-url", Input).value = "http://api.example.com"
        await pilot.click("#form-save")
        await pilot.pause()
        assert "https://" in str(app.screen.query_one("#form-error").render())
        assert ProfileStore().profiles() == []


async def test_without_a_keyring_the_form_says_so_and_keeps_no_key(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, isolated_config
) -> None:  # type: ignore[no-untyped-def]
    from keyring.backends import fail

    monkeypatch.setattr(ProfileBook, "__init__", _with_keys(KeyStore(fail.Keyring())))
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        assert "STABLEPAY_API_KEY" in str(app.screen.query_one("#profiles-keyring").render())
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        # No key field (nowhere to keep one), and one sentence for where the key comes from instead.
        assert not form.query("#form-key")
        said = " ".join(str(w.render()) for w in form.query("Static"))
        assert said.count("STABLEPAY_API_KEY") == 1 and "'fail' backend" not in said
        assert not form.query_one("#form-default", Checkbox).value, "unticked: only a tick makes it the start profile"
        form.query_one("#form-name", Input).value = "team"
        form.query_one("#form-base-url", Input).value = TEAM_URL
        await pilot.click("#form-save")
        await settle(pilot)
        assert app.screen is not form, str(form.query_one("#form-error").render())
        assert [p.name for p in ProfileStore().profiles()] == ["team"]
        assert ProfileStore().load().default is None
        assert "team" in table_text(app)
    monkeypatch.setenv("STABLEPAY_PROFILE", "team")
    monkeypatch.setenv("STABLEPAY_API_KEY", CANARY_KEY)
    book = ProfileBook(keys=KeyStore(fail.Keyring()))
    assert book.key_status(book.start_profile()).source == "environment", "as `profile add --no-key`"
    for path in isolated_config.rglob("*"):
        if path.is_file():
            assert CANARY_KEY not in path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("keyring_here", [True, False])
async def test_every_button_of_the_profile_form_is_on_screen_at_80x24(  # type: ignore[no-untyped-def]
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, keyring_here: bool, memory_keyring
) -> None:
    from keyring.backends import fail

    if not keyring_here:
        monkeypatch.setattr(ProfileBook, "__init__", _with_keys(KeyStore(fail.Keyring())))
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_profiles(pilot)
        await pilot.press("a")
        await settle(pilot)
        screen = app.screen
        for button in screen.query(Button):
            if not button.display:
                continue
            region = button.region
            assert region.height and screen.region.contains_region(region), f"{button.id} at {region}"
            assert screen.get_widget_at(*region.center)[0] is button, f"{button.id} is covered"
            assert button.focusable
        save = screen.query_one("#form-save", Button)
        for _ in range(10):  # Tab reaches Save without the box scrolling it into view
            if screen.focused is save:
                break
            await pilot.press("tab")
        assert screen.focused is save
        assert screen.query_one("#form-box").scroll_offset.y == 0


def _with_keys(keys: KeyStore) -> Callable[..., None]:
    original = ProfileBook.__init__

    def init(self: ProfileBook, **kwargs: object) -> None:
        kwargs["keys"] = keys
        original(self, **kwargs)  # type: ignore[arg-type]

    return init


async def test_edit_default_and_remove(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()
    ProfileBook().add(Profile("other", "sandbox", "https://other.stablepay.test"), None)
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await goto_row(pilot, "other")
        await pilot.press("d")
        await pilot.pause()
        assert ProfileStore().default() is not None and ProfileStore().default().name == "other"  # type: ignore[union-attr]

        await goto_row(pilot, "team")
        await pilot.press("e")
        await pilot.pause()
        assert app.screen.query_one("#form-name", Input).disabled
        app.screen.query_one("#form-base-url", Input).value = "https://eu.sandbox.stablepay.test"
        await pilot.click("#form-save")
        await settle(pilot)
        assert ProfileStore().get("team").profile.base_url == "https://eu.sandbox.stablepay.test"  # type: ignore[union-attr]
        assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY, "an empty key field keeps it"

        await goto_row(pilot, "team")
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert ProfileStore().get("team") is None
        assert ("stablepay-console", "team") not in memory_keyring.entries

        await goto_row(pilot, "embedded")
        await pilot.press("x")
        await pilot.pause()
        assert app.screen.query_one(DataTable).row_count == 3, "built-in profiles cannot be removed"


# --- switching ------------------------------------------------------------------------------------------------------


async def test_f2_switches_to_production_with_a_red_banner_and_a_ping(sandbox: Sandbox) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "SANDBOX" in banner(app)
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert app.profile == EMBEDDED_PRODUCTION_PROFILE
        assert "PRODUCTION: real money" in banner(app) and "pong" in banner(app)
        assert app.screen.query_one("EnvironmentBanner").has_class("-production")


async def test_switch_shows_the_servers_not_authorized(sandbox: Sandbox) -> None:
    add_team_profile(key="sk_sandbox_revoked_key_000000000000")
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert app.profile is not None and app.profile.name == "team"
        assert "Not authorized" in banner(app)


async def test_profile_without_a_key_is_not_switched_to(sandbox: Sandbox) -> None:
    ProfileBook().add(Profile("bare", "sandbox", TEAM_URL), None)
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await goto_row(pilot, "bare")
        await pilot.press("enter")
        await settle(pilot)
        assert app.profile == EMBEDDED_PROFILE


async def test_command_palette_offers_switch_to_profile(sandbox: Sandbox) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"switch to profile embedded-prod")
        await settle(pilot)
        deadline = time.monotonic() + 10  # the palette searches in the background: poll for the hit
        while True:
            hits = app.screen.query(CommandList)
            first = hits.first().get_option_at_index(0).prompt if hits and hits.first().option_count else ""
            if "Switch to profile embedded-production" in str(first):
                break
            assert time.monotonic() < deadline, f"the palette never offered the switch; first hit {first!r}"
            await pilot.pause(0.02)
        await pilot.press("enter")
        await settle(pilot)
        assert app.profile == EMBEDDED_PRODUCTION_PROFILE
        assert "PRODUCTION" in banner(app)


# --- the wizard -----------------------------------------------------------------------------------------------------


async def start_wizard(pilot: Pilot[Any], name: str) -> None:
    await open_profiles(pilot)
    await goto_row(pilot, name)
    await pilot.press("r")
    await settle(pilot)


def step_of(app: ConsoleApp) -> Step:
    return app.screen.rotation.step  # type: ignore[attr-defined,no-any-return]


def wizard_error(app: ConsoleApp) -> str:
    return str(app.screen.query_one("#rotation-error").render())


async def test_wizard_on_built_in_production_with_the_simulated_dashboard() -> None:
    sandbox = Sandbox(now=FIXED_NOW)
    production = Sandbox(now=FIXED_NOW, environment="production", keys={OLD_PROD_KEY: "demo"})
    app = build_app(sandbox, production, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
        await start_wizard(pilot, "embedded-production")
        instructions = app.screen.query_one("#rotation-step").query("Static").first().render()
        assert "Developer, then API Keys" in str(instructions)
        await pilot.click("#simulate-create")
        await settle(pilot)
        assert step_of(app) is Step.PASTE
        await pilot.click("#paste")
        await settle(pilot)
        assert step_of(app) is Step.SWITCH
        await pilot.click("#switch")
        await settle(pilot)
        assert step_of(app) is Step.DELETE_OLD
        assert "pong" in banner(app), "the console now talks with the new key"
        await pilot.click("#deleted")  # not yet deleted: the old key still works
        await settle(pilot)
        assert step_of(app) is Step.DELETE_OLD and "still works" in wizard_error(app)
        await pilot.click("#simulate-delete")
        await settle(pilot)
        assert step_of(app) is Step.DONE
        assert OLD_PROD_KEY not in production.state.keys
        new_key = app.services.embedded_vault.get(EMBEDDED_PRODUCTION_PROFILE.name)  # type: ignore[attr-defined]
        assert new_key is not None and new_key.reveal() in production.state.keys
        await pilot.click("#close")
        await settle(pilot)
        assert app.screen.__class__.__name__ == "ProfilesScreen"
        assert "0 months" in table_text(app)


async def test_wizard_refuses_a_mistyped_key_and_switches_nothing(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await start_wizard(pilot, "team")
        await pilot.click("#generated")
        await pilot.pause()
        app.screen.query_one("#new-key", Input).value = "sk_sandbox_mistyped_key_0000000000"
        await pilot.press("enter")
        await settle(pilot)
        assert step_of(app) is Step.PASTE
        assert "Not authorized" in wizard_error(app) and "Nothing was switched" in wizard_error(app)
        assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY
        app.screen.query_one("#new-key", Input).value = "has a space"
        await pilot.press("enter")
        await pilot.pause()
        assert "spaces" in wizard_error(app)


async def test_wizard_resumes_after_the_console_was_closed(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()
    sandbox.add_key(CANARY_KEY, "new")
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await start_wizard(pilot, "team")
        await pilot.click("#generated")
        await pilot.pause()
        app.screen.query_one("#new-key", Input).value = CANARY_KEY
        await pilot.press("enter")
        await settle(pilot)
        assert step_of(app) is Step.SWITCH
    # A new console, as after quitting half-way.
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        assert "step 4/6" in table_text(app)
        await goto_row(pilot, "team")
        await pilot.press("r")
        await settle(pilot)
        assert step_of(app) is Step.SWITCH
        assert "Resumed" in str(app.screen.query_one("#rotation-steps").render())
        await pilot.click("#switch")
        await settle(pilot)
        assert memory_keyring.entries[("stablepay-console", "team")] == CANARY_KEY
        await pilot.press("escape")
        await settle(pilot)
        assert "step 5/6" in table_text(app)


async def test_wizard_can_be_abandoned_before_the_switch(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await start_wizard(pilot, "team")
        await pilot.click("#abandon")
        await settle(pilot)
        assert app.screen.__class__.__name__ == "ProfilesScreen"
        assert "step" not in table_text(app)


# --- snapshots --------------------------------------------------------------------------------------------------


async def table_fitted(pilot: Pilot[Any]) -> None:
    """Let the profiles table settle: a switch refreshes it from its worker and again from the profile
    watch, and a picture taken between the two can catch columns not yet fitted to the new rows."""
    await settle(pilot)
    screen = pilot.app.screen
    if screen.query("#profiles-table"):
        screen.refresh_profiles()  # type: ignore[attr-defined]
        await settle(pilot)


def _snap(sandbox: Sandbox, drive: Callable[[Pilot[Any]], Awaitable[None]]):  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await drive(pilot)
        no_blink(pilot.app)  # type: ignore[arg-type]
        await table_fitted(pilot)

    return build_app(sandbox, opens_on="profiles"), run_before


def test_snapshot_profiles_screen(snap_compare, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    add_team_profile(since_months=11)
    ProfileBook(clock=lambda: FIXED_NOW - timedelta(days=400)).add(
        Profile("acme-prod", "production", "https://api.stablepay.example"), ApiKey(CANARY_KEY)
    )
    app, run_before = _snap(sandbox, open_profiles)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_profile_switcher(snap_compare, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()

    async def drive(pilot: Pilot[Any]) -> None:
        await open_profiles(pilot)
        await pilot.press("f2")

    app, run_before = _snap(sandbox, drive)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_snapshot_production_banner(snap_compare, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    async def drive(pilot: Pilot[Any]) -> None:
        await open_profiles(pilot)
        await goto_row(pilot, "embedded-production")
        await pilot.press("enter")
        await settle(pilot)
        # The picture is of the red banner; the switch's notifications (tested on their own) expire in
        # real time, so a slow run could catch them half gone.
        pilot.app.clear_notifications()

    app, run_before = _snap(sandbox, drive)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


WIZARD_PATHS: dict[str, list[str]] = {
    "1-generate": [],
    "2-paste": ["#generated", "type"],
    "3-verify-failed": ["#generated", "type-wrong", "#paste"],
    "4-switch": ["#generated", "type", "#paste"],
    "5-delete-old": ["#generated", "type", "#paste", "#switch"],
    "6-old-still-works": ["#generated", "type", "#paste", "#switch", "#deleted"],
    "7-done": ["#generated", "type", "#paste", "#switch", "#simulate-delete"],
}


@pytest.mark.parametrize("state", list(WIZARD_PATHS))
def test_snapshot_wizard_steps(snap_compare, sandbox: Sandbox, state: str) -> None:  # type: ignore[no-untyped-def]
    production = Sandbox(now=FIXED_NOW, environment="production", keys={OLD_PROD_KEY: "demo", CANARY_KEY: "new"})
    app = build_app(sandbox, production, opens_on="profiles")

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
        await start_wizard(pilot, "embedded-production")
        for action in WIZARD_PATHS[state]:
            if action == "type":
                app.screen.query_one("#new-key", Input).value = CANARY_KEY
            elif action == "type-wrong":
                app.screen.query_one("#new-key", Input).value = SANDBOX_KEY
            else:
                await pilot.click(action)
            await settle(pilot)
        no_blink(app)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


async def test_highlight_follows_the_profile_in_use_so_r_rotates_it(sandbox: Sandbox) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)  # switched before the screen was ever opened
        await open_profiles(pilot)
        assert app.screen.selected() == EMBEDDED_PRODUCTION_PROFILE  # type: ignore[attr-defined]
        await pilot.press("f2", "up", "enter")  # back to the sandbox from the switcher
        await settle(pilot)
        assert app.profile == EMBEDDED_PROFILE
        assert app.screen.selected() == EMBEDDED_PROFILE  # type: ignore[attr-defined]
        await pilot.press("r")
        await settle(pilot)
        assert "Rotate the key of embedded (sandbox)" in str(app.screen.query_one("#rotation-title").render())
