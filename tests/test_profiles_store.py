"""The profiles file: TOML, atomic, private, and never a key in it."""

from __future__ import annotations

import stat
from datetime import timedelta
from pathlib import Path

import pytest

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.store import ProfileStore, ProfileStoreError, make_profile
from stablepay_console.storage import locations
from tests.conftest import CANARY_KEY, FIXED_NOW

PROD = Profile("prod", "production", "https://api.stablepay.example")
STAGING = Profile("staging", "sandbox", "https://sandbox.stablepay.example")


def test_profiles_round_trip_through_toml() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=FIXED_NOW)
    store.add(STAGING, key_since=None)
    again = ProfileStore().load()
    assert again.default is None, "a profile becomes the start profile only when asked, the first one too"
    assert again.entries["prod"].profile == PROD
    assert again.entries["prod"].key_since == FIXED_NOW
    assert again.entries["staging"].key_since is None
    text = locations.profiles_file().read_text(encoding="utf-8")
    assert '[profiles.prod]' in text and 'environment = "production"' in text


def test_file_is_private_and_written_atomically() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=None)
    path = locations.profiles_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["profiles.toml"], "no temporary file is left behind"


def test_default_and_removal() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=None)
    store.add(STAGING, key_since=None, make_default=True)
    assert store.default() == STAGING
    store.set_default("prod")
    assert store.default() == PROD
    store.remove("prod")
    assert store.default() is None, "removing the default goes back to the built-in sandbox, not to staging"
    store.set_default("embedded")  # a built-in profile may be the start profile
    assert ProfileStore().load().default == "embedded" and store.default() is None
    store.remove("staging")
    assert store.profiles() == []


def test_rotation_dates_are_kept() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=FIXED_NOW - timedelta(days=400))
    store.record_rotation("prod", FIXED_NOW - timedelta(days=10))
    store.record_rotation("prod", FIXED_NOW)
    entry = ProfileStore().get("prod")
    assert entry is not None
    assert entry.key_since == FIXED_NOW
    assert entry.rotations == (FIXED_NOW - timedelta(days=10), FIXED_NOW)


def test_edit_keeps_the_key_date_unless_the_key_changed() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=FIXED_NOW - timedelta(days=30))
    store.update(Profile("prod", "production", "https://eu.api.stablepay.example"))
    entry = store.get("prod")
    assert entry is not None and entry.profile.base_url == "https://eu.api.stablepay.example"
    assert entry.key_since == FIXED_NOW - timedelta(days=30)


@pytest.mark.parametrize(
    ("name", "environment", "base_url", "message"),
    [
        ("prod", "production", "http://api.stablepay.example", "https://"),
        ("prod", "live", "https://api.stablepay.example", "sandbox' or 'production"),
        ("has space", "sandbox", "https://api.stablepay.example", "letters, digits"),
        ("embedded", "sandbox", "https://api.stablepay.example", "built-in"),
        ("prod", "sandbox", "https://user:pw@api.stablepay.example", "credentials"),
    ],
)
def test_invalid_profiles_are_refused(name: str, environment: str, base_url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_profile(name, environment, base_url)


def test_a_bad_profile_name_is_refused_with_the_rule_in_words() -> None:
    for name in ("", "-team", "has space", "x" * 41, "team/../other"):
        with pytest.raises(ValueError) as refused:
            make_profile(name, "sandbox", "https://api.stablepay.example")
        assert str(refused.value) == (
            "A profile name is 1 to 40 letters, digits, '_', '.' or '-', starting with a letter or digit."
        ), name


def test_loopback_http_is_allowed_for_a_local_sandbox() -> None:
    assert make_profile("local", "sandbox", "http://127.0.0.1:8787/").base_url == "http://127.0.0.1:8787"


def test_duplicate_and_unknown_names_are_refused() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=None)
    with pytest.raises(ProfileStoreError, match="already exists"):
        store.add(PROD, key_since=None)
    with pytest.raises(ProfileStoreError, match="no profile named"):
        store.remove("nope")
    with pytest.raises(ProfileStoreError, match="no profile named"):
        store.set_default("nope")


def test_broken_file_is_reported_not_crashed_on() -> None:
    path = locations.ensure(locations.profiles_file())
    path.write_text("[profiles.prod\nenvironment = ", encoding="utf-8")
    with pytest.raises(ProfileStoreError, match="cannot be read"):
        ProfileStore().load()
    path.write_text('[profiles.prod]\nenvironment = "production"\nbase_url = "http://example.com"\n', encoding="utf-8")
    with pytest.raises(ProfileStoreError, match="not valid"):
        ProfileStore().load()


def test_the_key_goes_to_the_keyring_never_to_the_file(memory_keyring, isolated_config: Path) -> None:  # type: ignore[no-untyped-def]
    book = ProfileBook(clock=lambda: FIXED_NOW)
    book.add(PROD, ApiKey(CANARY_KEY))
    assert memory_keyring.entries == {("stablepay-console", "prod"): CANARY_KEY}
    for path in isolated_config.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert CANARY_KEY not in text and CANARY_KEY[-12:] not in text
    assert book.key_for(PROD) == ApiKey(CANARY_KEY)
    assert book.key_status(PROD).label == f"{ApiKey(CANARY_KEY).masked} (keyring)"


def test_removing_a_profile_forgets_its_keys(memory_keyring) -> None:  # type: ignore[no-untyped-def]
    book = ProfileBook()
    book.add(PROD, ApiKey(CANARY_KEY))
    memory_keyring.entries[("stablepay-console", "prod:pending")] = "sk_pending_0000000000000"
    book.remove(PROD)
    assert memory_keyring.entries == {}
    assert book.find("prod") is None


def test_start_profile_is_env_then_default_then_embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    book = ProfileBook()
    assert book.start_profile() == EMBEDDED_PROFILE
    book.add(PROD, None)
    book.add(STAGING, None)
    assert book.start_profile() == EMBEDDED_PROFILE, "adding profiles changes nothing until one is the default"
    book.set_default("prod")
    assert book.start_profile() == PROD
    monkeypatch.setenv("STABLEPAY_PROFILE", "staging")
    assert book.start_profile() == STAGING
    monkeypatch.setenv("STABLEPAY_PROFILE", "nowhere")
    with pytest.raises(ProfileStoreError, match="nowhere"):
        book.start_profile()
