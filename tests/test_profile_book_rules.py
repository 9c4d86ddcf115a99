"""The profile book's rules, each proved in the test process: which profile starts, where a key and its date come
from, what a key's status says, and what a rotation may touch."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from keyring.backends import fail

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import KeyStatus, ProfileBook
from stablepay_console.profiles.keys import ENV_KEY, ENV_PROFILE, SERVICE, KeyStore, KeyStoreError, MemoryVault
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation_state import Step
from stablepay_console.profiles.store import ProfileStore, ProfileStoreError
from stablepay_console.storage import locations
from tests.conftest import FIXED_NOW, MemoryKeyring

PROD = Profile("prod", "production", "https://api.stablepay.example")
STAGING = Profile("staging", "sandbox", "https://sandbox.stablepay.example")
KEY = ApiKey("sk_live_first_0123456789abcdef")
OTHER_KEY = ApiKey("sk_live_second_0123456789abcdef")
EARLIER = FIXED_NOW - timedelta(days=300)


def jwt_key(issued: datetime) -> ApiKey:
    """An unsigned JWT whose payload says it was issued at `issued` (only the payload is ever read)."""
    payload = base64.urlsafe_b64encode(json.dumps({"iat": int(issued.timestamp())}).encode()).decode().rstrip("=")
    return ApiKey(f"eyJhbGciOiJIUzI1NiJ9.{payload}.c2lnbmF0dXJl")


def book(**kwargs: object) -> ProfileBook:
    return ProfileBook(clock=lambda: FIXED_NOW, **kwargs)  # type: ignore[arg-type]


def no_client(profile: Profile, key: ApiKey) -> object:
    raise AssertionError("no request is made while a rotation is only being set up")


# --- the start profile ---------------------------------------------------------------------------------------------


def test_a_start_profile_named_in_the_environment_that_does_not_exist_says_how_to_add_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_PROFILE, "nowhere")
    with pytest.raises(ProfileStoreError) as refused:
        book().start_profile()
    assert str(refused.value) == (
        f"{ENV_PROFILE} names 'nowhere', which is not a profile here. "
        "Add it with `stablepay-console profile add` (the file keeps no key)."
    )


def test_without_a_default_the_console_starts_on_the_first_built_in_profile() -> None:
    assert book(embedded=(EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE)).start_profile() == EMBEDDED_PRODUCTION_PROFILE


def test_with_no_built_in_profile_and_no_default_the_console_starts_on_the_built_in_sandbox() -> None:
    assert book(embedded=()).start_profile() == EMBEDDED_PROFILE


# --- adding and editing --------------------------------------------------------------------------------------------


def test_adding_a_profile_under_a_taken_name_is_refused_and_leaves_the_first_ones_key_alone() -> None:
    profiles = book()
    profiles.add(PROD, KEY)
    with pytest.raises(ProfileStoreError) as refused:
        profiles.add(PROD, OTHER_KEY)
    assert str(refused.value) == "A profile named 'prod' already exists."
    assert profiles.key_for(PROD) == KEY


def test_an_added_key_is_kept_and_dated_now_when_it_carries_no_date(memory_keyring: MemoryKeyring) -> None:
    profiles = book()
    profiles.add(PROD, KEY)
    assert profiles.key_for(PROD) == KEY
    assert profiles.key_since(PROD) == FIXED_NOW


def test_a_profile_added_without_a_key_has_no_key_date() -> None:
    profiles = book()
    profiles.add(PROD, None)
    assert profiles.key_since(PROD) is None
    assert profiles.key_status(PROD).source == "missing"


def test_a_profile_that_cannot_be_saved_leaves_no_key_in_the_keyring(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    unmounted = tmp_path / "profiles-folder"
    unmounted.symlink_to(tmp_path / "a-drive-not-mounted" / "profiles")
    profiles = book(store=ProfileStore(unmounted / "profiles.toml"))
    with pytest.raises(ProfileStoreError):
        profiles.add(PROD, KEY)
    assert memory_keyring.entries == {}, "the key went to the keyring first, and is taken back out"


def test_a_new_key_given_in_an_edit_is_dated_now_when_it_carries_no_date() -> None:
    profiles = book()
    profiles.add(PROD, KEY, key_since=EARLIER)
    profiles.edit(PROD, OTHER_KEY)
    assert profiles.key_for(PROD) == OTHER_KEY
    assert profiles.key_since(PROD) == FIXED_NOW


def test_a_new_jwt_key_given_in_an_edit_is_dated_by_its_own_issue_date() -> None:
    issued = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    profiles = book()
    profiles.add(PROD, KEY, key_since=EARLIER)
    profiles.edit(PROD, jwt_key(issued))
    assert profiles.key_since(PROD) == issued


def test_a_date_given_with_a_new_key_in_an_edit_is_the_keys_date() -> None:
    given = datetime(2026, 5, 1, tzinfo=timezone.utc)
    profiles = book()
    profiles.add(PROD, KEY, key_since=EARLIER)
    profiles.edit(PROD, jwt_key(datetime(2026, 3, 4, tzinfo=timezone.utc)), key_since=given)
    assert profiles.key_since(PROD) == given


# --- keys from the environment -------------------------------------------------------------------------------------


def test_the_environments_key_never_applies_to_a_built_in_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_PROFILE, EMBEDDED_PROFILE.name)
    monkeypatch.setenv(ENV_KEY, KEY.reveal())
    vault = MemoryVault()
    vault.set(EMBEDDED_PROFILE.name, OTHER_KEY)
    profiles = book(embedded_vault=vault)
    assert profiles.env_key(EMBEDDED_PROFILE) is None
    assert profiles.key_for(EMBEDDED_PROFILE) == OTHER_KEY
    assert profiles.key_status(EMBEDDED_PROFILE) == KeyStatus("built-in", OTHER_KEY.masked)


def test_the_environments_key_applies_to_the_default_profile_when_no_profile_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    profiles = book()
    profiles.add(PROD, None, make_default=True)
    monkeypatch.setenv(ENV_KEY, KEY.reveal())
    assert profiles.key_for(PROD) == KEY
    assert profiles.key_status(PROD) == KeyStatus("environment", KEY.masked, f"from {ENV_KEY}")


def test_a_jwt_key_from_the_environment_is_dated_by_its_issue_date_not_by_the_profiles_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    issued = datetime(2026, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    profiles = book()
    profiles.add(PROD, None, key_since=EARLIER)
    monkeypatch.setenv(ENV_PROFILE, PROD.name)
    monkeypatch.setenv(ENV_KEY, jwt_key(issued).reveal())
    assert profiles.key_since(PROD) == issued


def test_an_issue_date_later_than_the_books_clock_dates_no_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    then = datetime(2020, 1, 1, tzinfo=timezone.utc)
    profiles = ProfileBook(clock=lambda: then)
    profiles.add(PROD, None, key_since=EARLIER)
    monkeypatch.setenv(ENV_PROFILE, PROD.name)
    monkeypatch.setenv(ENV_KEY, jwt_key(datetime(2021, 1, 1, tzinfo=timezone.utc)).reveal())
    assert profiles.key_since(PROD) is None


def test_a_profile_not_in_the_file_has_no_key_date_and_no_rotations() -> None:
    profiles = book()
    assert profiles.key_since(PROD) is None
    assert profiles.rotations(PROD) == ()


def test_a_built_in_profiles_rotations_do_not_read_the_profiles_file() -> None:
    path = locations.profiles_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("this is not [ toml", encoding="utf-8")
    assert book().rotations(EMBEDDED_PROFILE) == ()


# --- what a key's status says --------------------------------------------------------------------------------------


def test_a_broken_key_in_the_environment_is_an_unavailable_key_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    profiles = book()
    profiles.add(PROD, None)
    monkeypatch.setenv(ENV_PROFILE, PROD.name)
    monkeypatch.setenv(ENV_KEY, "two words")
    with pytest.raises(KeyStoreError) as broken:
        profiles.env_key(PROD)
    status = profiles.key_status(PROD)
    assert status == KeyStatus("unavailable", note=str(broken.value))
    assert not status.usable and status.label == "keyring unavailable"


def test_a_profile_with_no_key_says_so() -> None:
    profiles = book()
    profiles.add(PROD, None)
    assert profiles.key_status(PROD) == KeyStatus("missing", note="No key is stored for this profile.")


def test_a_built_in_profiles_key_is_a_built_in_one() -> None:
    vault = MemoryVault()
    vault.set(EMBEDDED_PROFILE.name, KEY)
    assert book(embedded_vault=vault).key_status(EMBEDDED_PROFILE) == KeyStatus("built-in", KEY.masked)


# --- keys shared between profiles ----------------------------------------------------------------------------------


def test_every_other_configured_profile_with_the_same_key_is_named() -> None:
    profiles = book()
    for profile in (PROD, STAGING, Profile("eu", "production", "https://eu.stablepay.example")):
        profiles.add(profile, OTHER_KEY if profile.name == "eu" else KEY)
    assert profiles.shared_with(PROD) == ["staging"]


def test_a_profile_whose_stored_key_cannot_be_read_does_not_hide_the_profiles_after_it(
    memory_keyring: MemoryKeyring,
) -> None:
    profiles = book()
    profiles.add(PROD, KEY)
    profiles.add(Profile("broken", "production", "https://broken.stablepay.example"), None)
    memory_keyring.entries[(SERVICE, "broken")] = "not a key"  # spaces: no valid API key
    profiles.add(STAGING, KEY)
    assert profiles.shared_with(PROD) == ["staging"]


def test_a_built_in_profiles_key_is_never_shared_with_a_configured_one() -> None:
    vault = MemoryVault()
    vault.set(EMBEDDED_PROFILE.name, KEY)
    profiles = book(embedded_vault=vault)
    profiles.add(PROD, KEY)
    assert profiles.shared_with(PROD) == []
    assert profiles.shared_with(EMBEDDED_PROFILE) == []


# --- rotations -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("step", [Step.GENERATE, Step.DONE - 1])
def test_a_rotation_stopped_at_any_step_from_the_first_to_the_last_before_done_is_pending(step: int) -> None:
    vault = MemoryVault()
    vault.save_progress(EMBEDDED_PRODUCTION_PROFILE.name, {"step": int(step)})
    profiles = book(embedded=(EMBEDDED_PROFILE, EMBEDDED_PRODUCTION_PROFILE), embedded_vault=vault)
    assert profiles.rotation_step(EMBEDDED_PRODUCTION_PROFILE) == step
    assert profiles.rotation_step(EMBEDDED_PROFILE) is None
    assert profiles.pending_rotations() == [(EMBEDDED_PRODUCTION_PROFILE, Step(step))]


def test_a_finished_rotation_is_not_pending() -> None:
    vault = MemoryVault()
    vault.save_progress(EMBEDDED_PROFILE.name, {"step": int(Step.DONE)})
    assert book(embedded_vault=vault).pending_rotations() == []


@pytest.mark.parametrize("step", ["3", True, 3.0])
def test_a_saved_step_that_is_not_a_whole_number_is_no_step(step: object) -> None:
    vault = MemoryVault()
    vault.save_progress(EMBEDDED_PROFILE.name, {"step": step})
    profiles = book(embedded_vault=vault)
    assert profiles.rotation_step(EMBEDDED_PROFILE) is None
    assert profiles.pending_rotations() == []


def test_a_key_from_the_environment_is_rotated_where_it_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    profiles = book()
    profiles.add(PROD, None)
    monkeypatch.setenv(ENV_PROFILE, PROD.name)
    monkeypatch.setenv(ENV_KEY, KEY.reveal())
    with pytest.raises(KeyStoreError) as refused:
        profiles.rotation(PROD, no_client)  # type: ignore[arg-type]
    assert str(refused.value) == (
        f"Profile 'prod' uses the key in {ENV_KEY}: rotate it where that variable is set "
        "(your CI's secrets or secrets manager), then delete the old key in the dashboard."
    )


def test_a_rotation_without_a_secret_store_is_refused_with_the_stores_reason() -> None:
    keys = KeyStore(fail.Keyring())
    profiles = book(keys=keys)
    with pytest.raises(KeyStoreError) as refused:
        profiles.rotation(PROD, no_client)  # type: ignore[arg-type]
    assert keys.problem and str(refused.value) == keys.problem


def test_a_switched_key_is_dated_when_it_was_created_and_the_switch_when_it_happened() -> None:
    profiles = book()
    profiles.add(PROD, KEY, key_since=EARLIER)
    created = FIXED_NOW - timedelta(days=2)
    profiles.rotation(PROD, no_client).on_switched(FIXED_NOW, created)  # type: ignore[arg-type]
    assert profiles.key_since(PROD) == created
    assert profiles.rotations(PROD) == (FIXED_NOW,)


def test_a_built_in_profiles_switched_key_is_dated_in_its_vault() -> None:
    vault = MemoryVault()
    vault.set(EMBEDDED_PROFILE.name, KEY)
    profiles = book(embedded_vault=vault)
    created = FIXED_NOW - timedelta(days=2)
    profiles.rotation(EMBEDDED_PROFILE, no_client).on_switched(FIXED_NOW, created)  # type: ignore[arg-type]
    assert profiles.key_since(EMBEDDED_PROFILE) == created
    assert profiles.rotations(EMBEDDED_PROFILE) == ()
