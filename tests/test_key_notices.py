"""Rotation due at start-up and on every switch, pending rotations, quitting mid-rotation, shared keys."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Step
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.tui.app import ConsoleApp
from tests.conftest import CANARY_KEY, FIXED_NOW, wait_for_workers
from tests.test_profiles_screen import OLD_PROD_KEY, add_team_profile, banner, build_app, goto_row, open_profiles


def notices(app: ConsoleApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app.said]


async def start_on(profile: Profile, sandbox: Sandbox) -> ConsoleApp:
    app = build_app(sandbox)
    app.set_reactive(ConsoleApp.profile, profile)
    app.client = app.services.client_for(profile)
    return app


async def test_a_due_key_is_said_at_start_up_with_a_banner_badge(sandbox: Sandbox) -> None:
    team = add_team_profile(since_months=11)
    app = await start_on(team, sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        assert "ROTATION DUE" in banner(app)
        said = "\n".join(notices(app))
        assert "Rotation due: Profile team: The key is 11 months old" in said
        assert "press r to rotate" in said


async def test_every_switch_sets_the_badge_and_says_so_when_due(sandbox: Sandbox) -> None:
    add_team_profile(since_months=12)
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        assert "ROTATION" not in banner(app) and not any("Rotation" in n for n in notices(app))
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)  # the simulated production's key is about to be due
        await wait_for_workers(pilot)
        assert "ROTATION DUE" in banner(app)
        assert any(n.startswith("Rotation due: Profile embedded-production") for n in notices(app))
        app.clear_notifications()
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("down", "enter")  # to team, whose key is past 12 months
        await wait_for_workers(pilot)
        assert app.profile is not None and app.profile.name == "team"
        assert "ROTATION OVERDUE" in banner(app)
        assert any(n.startswith("Rotation overdue: Profile team") for n in notices(app))
        await app.use_profile(EMBEDDED_PROFILE)
        await wait_for_workers(pilot)
        assert "ROTATION" not in banner(app)


async def test_the_switcher_marks_due_keys(sandbox: Sandbox) -> None:
    add_team_profile(since_months=11)
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("f2")
        await pilot.pause()
        options = app.screen.query_one("#switcher-list")
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]  # type: ignore[attr-defined]
        assert "Rotation due: 11 months" in next(p for p in prompts if "team" in p)
        assert "Rotation due" not in next(p for p in prompts if p.strip().startswith("▶ embedded "))


async def rotate_until_switch(pilot: Pilot[Any], name: str, key: str) -> None:
    app = pilot.app
    await open_profiles(pilot)
    await goto_row(pilot, name)
    await pilot.press("r")
    await wait_for_workers(pilot)
    await pilot.click("#generated")
    await wait_for_workers(pilot)
    app.screen.query_one("#new-key", Input).value = key
    await pilot.press("enter")
    await wait_for_workers(pilot)


async def test_quitting_mid_rotation_on_production_asks_and_the_next_start_says_it_is_pending(
    sandbox: Sandbox,
) -> None:
    production = Sandbox(now=FIXED_NOW, environment="production", keys={OLD_PROD_KEY: "demo", CANARY_KEY: "new"})
    app = build_app(sandbox, production)
    async with app.run_test(size=(120, 40)) as pilot:
        await rotate_until_switch(pilot, "embedded-production", CANARY_KEY)
        assert app.screen.rotation.step is Step.SWITCH  # type: ignore[attr-defined]
        await pilot.press("q")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "QuitMidRotation"
        question = str(app.screen.query_one("#confirm-question").render())
        assert "step 4 of 6 (Switch the profile to the new key)" in question
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and app.screen.__class__.__name__ == "RotationScreen"
        await pilot.press("ctrl+c")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0

    again = build_app(sandbox, production)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        said = "\n".join(notices(again))
        assert "The key rotation of embedded-production (PRODUCTION) is pending: it stopped at step 4 of 6" in said
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("q")  # q again quits: the question was read
        await pilot.pause()
    assert not again.is_running


async def test_quitting_without_an_unfinished_production_rotation_does_not_ask(sandbox: Sandbox) -> None:
    add_team_profile()
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await rotate_until_switch(pilot, "team", SANDBOX_KEY + "x")  # a sandbox rotation, refused at the check
        await pilot.press("escape", "escape")
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running


async def test_the_pasted_key_waits_in_the_keyring_across_a_quit(sandbox: Sandbox, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    add_team_profile()
    sandbox.add_key(CANARY_KEY, "new")
    app = build_app(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await rotate_until_switch(pilot, "team", CANARY_KEY)
        assert app.screen.rotation.step is Step.SWITCH  # type: ignore[attr-defined]
    assert memory_keyring.entries[("stablepay-console", "team:pending")] == CANARY_KEY
    assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY


async def test_the_banner_pings_again_with_the_new_key_after_the_switch(sandbox: Sandbox) -> None:
    production = Sandbox(now=FIXED_NOW, environment="production", keys={OLD_PROD_KEY: "demo", CANARY_KEY: "new"})
    app = build_app(sandbox, production)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
        await rotate_until_switch(pilot, "embedded-production", CANARY_KEY)
        del production.state.keys[OLD_PROD_KEY]  # only the new key works now: a ping with the old one would fail
        pings = production.api_calls().count(("GET", "/ping"))
        await pilot.click("#switch")
        await wait_for_workers(pilot)
        assert production.api_calls().count(("GET", "/ping")) == pings + 1
        assert "✓ pong" in banner(app)


@pytest.mark.parametrize("shared", [True, False])
async def test_the_wizard_warns_when_another_profile_uses_the_old_key(sandbox: Sandbox, shared: bool) -> None:
    add_team_profile()
    other_key = SANDBOX_KEY if shared else "sk_sandbox_some_other_key_00000000"
    team_eu = Profile("team-eu", "sandbox", "https://eu.stablepay.test")
    ProfileBook(clock=lambda: FIXED_NOW).add(team_eu, ApiKey(other_key))
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(120, 40)) as pilot:
        await open_profiles(pilot)
        await goto_row(pilot, "team")
        await pilot.press("r")
        await wait_for_workers(pilot)
        warning = app.screen.query_one("#rotation-shared")
        assert warning.display is shared
        if shared:
            assert "also the key of profile team-eu: deleting it in the dashboard stops it too" in str(warning.render())
