"""The rotation wizard, headless, against the sandbox and its simulated dashboard (create and delete keys)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest

from stablepay_console.api import ApiKey
from stablepay_console.api.dashboard import DashboardError, SandboxDashboard
from stablepay_console.profiles.age import add_months, key_age, months_between
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import ENV_KEY, ENV_PROFILE, KeyStoreError, entry_name
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import RotationError, Step, StepEvent, progress_path
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW
from tests.small_disk import SmallDisk

BASE_URL = "https://api.sandbox.stablepay.test"


class World:
    """A configured profile whose base URL is answered by an in-process sandbox, plus that sandbox's dashboard."""

    def __init__(self, sandbox: Sandbox, environment: str = "sandbox") -> None:
        self.sandbox = sandbox
        self.profile = Profile("team", environment, BASE_URL)
        self.book = ProfileBook(clock=lambda: FIXED_NOW)
        self.connector = Services(
            sandbox=sandbox, book=self.book, transport_for=lambda p: httpx.ASGITransport(app=sandbox.app)
        )
        self.dashboard = SandboxDashboard(BASE_URL, transport=httpx.ASGITransport(app=sandbox.app))

    def rotation(self):  # type: ignore[no-untyped-def]
        return self.book.rotation(self.profile, self.connector.client_with)

    def key(self, role: str = "") -> ApiKey | None:
        return self.book.keys.get(entry_name(self.profile.name, role))

    def pings(self) -> int:
        return self.sandbox.api_calls().count(("GET", "/ping"))


@pytest.fixture
async def world(sandbox: Sandbox) -> World:
    w = World(sandbox)
    old = await w.dashboard.create_key("console key 2025")
    w.book.add(w.profile, old)
    return w


async def test_whole_rotation_in_the_specs_order(world: World) -> None:
    old = world.key()
    assert old is not None
    rotation = world.rotation()
    assert rotation.start() is Step.GENERATE
    rotation.confirm_generated()
    assert rotation.step is Step.PASTE

    new = await world.dashboard.create_key("console key 2026-11")
    rotation.paste(new)
    assert rotation.step is Step.VERIFY_NEW
    assert world.key() == old, "nothing switches before the new key is verified"
    assert await rotation.verify_new() is True
    assert rotation.step is Step.SWITCH
    assert world.key() == old

    rotation.switch()
    assert rotation.step is Step.DELETE_OLD
    assert world.key() == new
    assert world.key("previous") == old
    assert world.key("pending") is None
    assert world.book.key_since(world.profile) == FIXED_NOW
    assert world.book.rotations(world.profile) == (FIXED_NOW,)

    await world.dashboard.delete_key(old)
    rotation.confirm_deleted()
    assert await rotation.verify_old() is True
    assert rotation.step is Step.DONE
    assert world.key("previous") is None
    assert world.key() == new
    rotation.close()
    assert not progress_path("team").exists()


async def test_old_key_that_still_works_is_kept_until_refused(world: World) -> None:
    old = world.key()
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(await world.dashboard.create_key("new"))
    await rotation.verify_new()
    rotation.switch()
    rotation.confirm_deleted()  # but the old key was not deleted in the dashboard
    assert await rotation.verify_old() is False
    assert rotation.step is Step.DELETE_OLD
    assert "still works" in rotation.error
    assert world.key("previous") == old

    assert old is not None
    await world.dashboard.delete_key(old)
    rotation.confirm_deleted()
    assert await rotation.verify_old() is True
    assert world.key("previous") is None


async def test_mistyped_key_fails_verification_and_nothing_switches(world: World) -> None:
    old = world.key()
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey("sk_sandbox_this_key_was_mistyped_0000"))
    assert await rotation.verify_new() is False
    assert rotation.step is Step.PASTE
    assert "Not authorized" in rotation.error
    assert "Nothing was switched" in rotation.error
    assert world.key() == old
    assert world.key("pending") is None
    with pytest.raises(RotationError):
        rotation.switch()
    assert world.key() == old


async def test_key_of_the_other_environment_fails_on_production(sandbox: Sandbox) -> None:
    production = World(Sandbox(now=FIXED_NOW, environment="production"), environment="production")
    production.book.add(production.profile, await production.dashboard.create_key("prod 2025"))
    sandbox_dashboard = SandboxDashboard("http://localhost", transport=httpx.ASGITransport(app=sandbox.app))
    sandbox_key = await sandbox_dashboard.create_key("a sandbox key, pasted by mistake")
    old = production.key()

    rotation = production.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(sandbox_key)
    assert await rotation.verify_new() is False
    assert rotation.step is Step.PASTE
    assert "production environment" in rotation.error
    assert production.key() == old
    assert production.pings() == 1


async def test_pasting_the_current_key_is_refused(world: World) -> None:
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    current = world.key()
    assert current is not None
    with pytest.raises(RotationError, match="already uses"):
        rotation.paste(current)
    assert rotation.step is Step.PASTE
    assert world.pings() == 0


async def test_server_failure_while_verifying_keeps_the_step(world: World) -> None:
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(await world.dashboard.create_key("new"))
    world.sandbox.faults.force = "500"
    assert await rotation.verify_new() is False
    assert rotation.step is Step.VERIFY_NEW
    assert "Server error" in rotation.error
    assert world.key("pending") is not None
    world.sandbox.faults.force = None
    assert await rotation.verify_new() is True
    assert rotation.error == ""


async def test_server_failure_while_checking_the_old_key_keeps_it(world: World) -> None:
    old = world.key()
    assert old is not None
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(await world.dashboard.create_key("new"))
    await rotation.verify_new()
    rotation.switch()
    await world.dashboard.delete_key(old)
    rotation.confirm_deleted()
    world.sandbox.faults.force = "500"
    assert await rotation.verify_old() is False
    assert rotation.step is Step.VERIFY_OLD
    assert world.key("previous") == old


async def test_steps_cannot_be_skipped(world: World) -> None:
    rotation = world.rotation()
    rotation.start()
    with pytest.raises(RotationError, match="step 1"):
        rotation.paste(ApiKey("sk_sandbox_skipping_ahead_000000"))
    with pytest.raises(RotationError):
        rotation.switch()
    with pytest.raises(RotationError):
        await rotation.verify_old()
    assert world.pings() == 0


async def test_resume_after_the_console_closed_half_way(world: World) -> None:
    new = await world.dashboard.create_key("new")
    first = world.rotation()
    first.start()
    first.confirm_generated()
    first.paste(new)
    del first  # the console is closed here

    again = world.rotation()
    assert again.start() is Step.VERIFY_NEW
    assert again.state.new_key == new.masked
    assert await again.verify_new() is True
    again.switch()
    del again  # closed again, after the switch

    third = world.rotation()
    assert third.start() is Step.DELETE_OLD
    assert not third.can_abandon
    with pytest.raises(RotationError):
        third.abandon()
    old = world.key("previous")
    assert old is not None
    await world.dashboard.delete_key(old)
    third.confirm_deleted()
    assert await third.verify_old() is True


async def test_resume_when_the_pasted_key_was_lost_goes_back_to_paste(world: World) -> None:
    first = world.rotation()
    first.start()
    first.confirm_generated()
    first.paste(await world.dashboard.create_key("new"))
    world.book.keys.delete(entry_name("team", "pending"))

    again = world.rotation()
    assert again.start() is Step.PASTE
    assert again.error == "The pasted key was not kept (it lives only in the key store); paste it again."


async def test_interrupted_switch_does_not_lose_the_old_key(world: World) -> None:
    old = world.key()
    new = await world.dashboard.create_key("new")
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(new)
    await rotation.verify_new()
    # The switch wrote "previous" and the new key, then the console died before saving its progress.
    assert old is not None
    world.book.keys.set(entry_name("team", "previous"), old)
    world.book.keys.set(entry_name("team"), new)
    again = world.rotation()
    assert again.start() is Step.SWITCH
    again.switch()
    assert world.key() == new
    assert world.key("previous") == old


async def test_abandon_before_the_switch_forgets_the_pasted_key(world: World) -> None:
    old = world.key()
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(await world.dashboard.create_key("new"))
    rotation.abandon()
    assert world.key("pending") is None
    assert world.key() == old
    assert not progress_path("team").exists()
    assert world.book.rotation_step(world.profile) is None


async def test_progress_file_holds_no_secret(world: World) -> None:
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    world.sandbox.add_key(CANARY_KEY, "canary")
    rotation.paste(ApiKey(CANARY_KEY))
    text = progress_path("team").read_text(encoding="utf-8")
    assert CANARY_KEY not in text and CANARY_KEY[-12:] not in text
    assert ApiKey(CANARY_KEY).masked in text
    assert world.book.rotation_step(world.profile) == Step.VERIFY_NEW


async def test_rotation_of_an_environment_key_is_refused(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PROFILE, "team")
    monkeypatch.setenv(ENV_KEY, SANDBOX_KEY)
    with pytest.raises(KeyStoreError, match=ENV_KEY):
        world.rotation()


async def test_rotation_without_a_stored_key_is_refused(sandbox: Sandbox) -> None:
    w = World(sandbox)
    w.book.add(w.profile, None)
    with pytest.raises(RotationError, match=r"^Profile team has no key in the key store to rotate\.$"):
        w.rotation().start()


async def test_dashboard_refuses_to_delete_an_unknown_key(world: World) -> None:
    with pytest.raises(DashboardError, match="already deleted"):
        await world.dashboard.delete_key(ApiKey("sk_sandbox_never_created_00000000"))


async def test_built_in_production_rotation_with_its_simulated_dashboard() -> None:
    from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE as PROD

    connector = Services(sandbox=Sandbox(now=FIXED_NOW))
    book = ProfileBook(embedded=connector.embedded_profiles, embedded_vault=connector.embedded_vault)
    old = book.key_for(PROD)
    dashboard = connector.dashboard(PROD)
    assert dashboard is not None
    rotation = book.rotation(PROD, connector.client_with, clock=lambda: FIXED_NOW)
    rotation.start()
    rotation.confirm_generated()
    new = await dashboard.create_key("demo")
    assert new.reveal().startswith("sk_production_")
    rotation.paste(new)
    assert await rotation.verify_new()
    rotation.switch()
    assert book.key_for(PROD) == new
    await dashboard.delete_key(old)
    rotation.confirm_deleted()
    assert await rotation.verify_old()
    assert book.age(PROD).since == FIXED_NOW
    assert not list(progress_path("x").parent.glob("rotation-*")), "built-in profiles keep progress in memory"


def test_key_age_warns_at_eleven_months_and_is_overdue_at_twelve() -> None:
    since = datetime(2025, 12, 20, 9, 30, tzinfo=timezone.utc)
    assert key_age(since, add_months(since, 11) - timedelta(seconds=1)).level == "ok"
    assert key_age(since, add_months(since, 11)).level == "due"
    assert key_age(since, add_months(since, 12) - timedelta(seconds=1)).level == "due"
    overdue = key_age(since, add_months(since, 12))
    assert overdue.level == "overdue"
    assert "OVERDUE" in overdue.short
    assert "2026-12-20" in overdue.sentence
    assert key_age(None, FIXED_NOW).level == "unknown"


def test_month_arithmetic_clamps_to_the_end_of_the_month() -> None:
    jan31 = datetime(2026, 1, 31, tzinfo=timezone.utc)
    assert add_months(jan31, 1) == datetime(2026, 2, 28, tzinfo=timezone.utc)
    assert add_months(jan31, 13) == datetime(2027, 2, 28, tzinfo=timezone.utc)
    assert months_between(jan31, datetime(2026, 2, 27, tzinfo=timezone.utc)) == 0
    assert months_between(jan31, datetime(2026, 2, 28, tzinfo=timezone.utc)) == 1
    assert months_between(FIXED_NOW, FIXED_NOW - timedelta(days=40)) == 0


# --- what the wizard says and keeps at each turn -------------------------------------------------------------------

PASTED_LOST = "The pasted key is no longer in the key store; paste it again."


async def verified(world: World) -> tuple[ApiKey, ApiKey, Any]:
    """A rotation whose new key was pasted and verified: (old key, new key, the rotation)."""
    old = world.key()
    assert old is not None
    new = await world.dashboard.create_key("new")
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(new)
    assert await rotation.verify_new() is True
    return old, new, rotation


async def test_a_started_rotation_names_the_old_key_and_is_in_progress(world: World) -> None:
    old = world.key()
    assert old is not None
    rotation = world.rotation()
    assert not rotation.in_progress
    rotation.start()
    assert rotation.in_progress  # closing the wizard now says its progress is kept
    assert rotation.state.old_key == old.masked  # what the delete step asks to delete


async def test_a_pasted_key_lost_before_its_check_goes_back_to_paste(world: World) -> None:
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(await world.dashboard.create_key("new"))
    world.book.keys.delete(entry_name("team", "pending"))
    assert await rotation.verify_new() is False
    assert (rotation.step, rotation.error) == (Step.PASTE, PASTED_LOST)
    assert world.pings() == 0


async def test_a_pasted_key_lost_before_the_switch_switches_nothing(world: World) -> None:
    old, _, rotation = await verified(world)
    world.book.keys.delete(entry_name("team", "pending"))
    with pytest.raises(RotationError) as refused:
        rotation.switch()
    assert str(refused.value) == PASTED_LOST
    assert (rotation.step, rotation.error) == (Step.PASTE, PASTED_LOST)
    assert world.key() == old and world.key("previous") is None


async def test_a_switch_done_before_an_interruption_resumes_at_deleting_the_old_key(world: World) -> None:
    old, new, _ = await verified(world)
    # The switch stored both keys and forgot the pasted one; the console died before saving its progress.
    world.book.keys.set(entry_name("team", "previous"), old)
    world.book.keys.set(entry_name("team"), new)
    world.book.keys.delete(entry_name("team", "pending"))
    again = world.rotation()
    assert again.start() is Step.SWITCH
    again.switch()
    assert (again.step, again.error) == (Step.DELETE_OLD, "")
    assert world.key() == new and world.key("previous") == old
    assert again.kept_old_key() == old  # what the simulated dashboard is asked to delete


async def test_refusals_are_said_in_full_and_kept_for_a_resume(world: World) -> None:
    current = world.key()
    assert current is not None
    rotation = world.rotation()
    rotation.start()
    rotation.confirm_generated()
    same = "This is the key the profile already uses. Create a new key in the dashboard and paste that."
    with pytest.raises(RotationError) as refused:
        rotation.paste(current)
    assert str(refused.value) == rotation.error == same
    assert world.rotation().error == same  # on resume too
    rotation.paste(ApiKey("sk_sandbox_this_key_was_mistyped_0000"))
    assert rotation.state.new_key
    assert await rotation.verify_new() is False
    assert rotation.error.endswith(
        "Nothing was switched. Is it a key of the sandbox environment, copied whole? Paste it again.")
    assert rotation.state.new_key == ""  # the refused key is forgotten, its mask too


async def test_each_saved_step_is_told_with_why_the_last_attempt_failed(world: World) -> None:
    told: list[tuple[Step, str]] = []
    rotation = world.rotation()
    rotation.on_step = lambda event: told.append((event.reached, "abandoned" if event.abandoned else event.problem))
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey("sk_sandbox_this_key_was_mistyped_0000"))
    await rotation.verify_new()
    assert [step for step, _ in told] == [Step.GENERATE, Step.PASTE, Step.VERIFY_NEW, Step.PASTE]
    assert [error for _, error in told[:3]] == ["", "", ""]
    assert told[3][1] == rotation.error and told[3][1].startswith("The new key was refused by ")
    rotation.abandon()
    assert told[4:] == [(Step.PASTE, "abandoned")]


async def test_an_abandoned_rotation_starts_again_from_the_first_step(world: World) -> None:
    old = world.key()
    assert old is not None
    first = world.rotation()
    first.start()
    first.confirm_generated()
    resumed = world.rotation()  # the console was closed and opened again
    assert resumed.in_progress
    resumed.abandon()
    assert not resumed.in_progress and resumed.step is Step.GENERATE
    assert resumed.start() is Step.GENERATE
    assert resumed.state.old_key == old.masked


async def test_abandoning_after_the_switch_is_refused_in_words(world: World) -> None:
    _, new, rotation = await verified(world)
    rotation.switch()
    told: list[StepEvent] = []
    rotation.on_step = told.append
    with pytest.raises(RotationError) as refused:
        rotation.abandon()
    assert str(refused.value) == (
        "The profile already uses the new key: finish by deleting and checking the old one.")
    assert (rotation.step, world.key(), told) == (Step.DELETE_OLD, new, [])


async def test_the_old_key_is_named_until_it_is_refused(world: World) -> None:
    old, _, rotation = await verified(world)
    rotation.switch()
    rotation.confirm_deleted()  # not deleted in the dashboard
    assert await rotation.verify_old() is False
    assert rotation.error == (f"The old key {old.masked} still works. Delete it in the dashboard (Developer, then "
                              "API Keys), then check again. It is kept until it is refused.")
    await world.dashboard.delete_key(old)
    rotation.confirm_deleted()
    world.sandbox.faults.force = "500"
    assert await rotation.verify_old() is False
    assert rotation.error == ("The old key could not be checked (Server error: Simulated internal failure "
                              "(sandbox fault injection)).")


async def test_an_old_key_already_forgotten_finishes_the_rotation_without_a_check(world: World) -> None:
    _, new, rotation = await verified(world)
    rotation.switch()
    rotation.confirm_deleted()
    world.book.keys.delete(entry_name("team", "previous"))
    pings = world.pings()
    assert await rotation.verify_old() is True
    assert (rotation.step, world.key(), world.pings()) == (Step.DONE, new, pings)


async def test_a_key_shared_with_another_profile_is_named_until_the_old_key_is_deleted(world: World) -> None:
    old = world.key()
    world.book.add(Profile("ci", "sandbox", BASE_URL), old)
    _, _, rotation = await verified(world)
    warning = ("The old key is also the key of profile ci: deleting it in the dashboard stops it too. Give it the "
               "new key (Profiles & keys, e) before you delete the old one.")
    assert rotation.shared_warning == warning
    rotation.switch()
    assert rotation.shared_warning == warning
    rotation.confirm_deleted()
    assert rotation.shared_warning == ""


async def test_a_key_that_says_it_was_made_after_the_switch_counts_from_the_switch(world: World) -> None:
    from tests.test_profile_commands import jwt

    later = jwt({"sub": "team", "iat": int((FIXED_NOW + timedelta(hours=1)).timestamp())})
    world.sandbox.add_key(later, "a key whose iat is later than the switch")
    rotation = world.book.rotation(world.profile, world.connector.client_with, clock=lambda: FIXED_NOW)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(later))
    assert await rotation.verify_new() is True
    rotation.switch()
    assert world.book.key_since(world.profile) == FIXED_NOW  # not an hour in the future


async def test_progress_the_disk_refuses_is_said_and_the_rotation_goes_on(
    sandbox: Sandbox, small_disk: SmallDisk, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(small_disk.path / "config"))
    w = World(sandbox)
    w.book.add(w.profile, await w.dashboard.create_key("console key 2025"))
    rotation = w.rotation()
    rotation.start()
    assert rotation.not_saved is None
    small_disk.read_only()
    rotation.confirm_generated()
    assert rotation.step is Step.PASTE
    assert rotation.not_saved is not None and rotation.not_saved.startswith("Could not write ")
    assert rotation.not_saved.endswith(" Closed now, the wizard could not resume at this step.")
