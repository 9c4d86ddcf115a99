"""The rules of the profiles file as read and written: what is trusted of a file edited by hand, what is written."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.store import ProfilesNotSaved, ProfileStore, ProfileStoreError
from stablepay_console.storage import locations
from tests.conftest import FIXED_NOW
from tests.small_disk import SmallDisk

PROD = Profile("prod", "production", "https://api.stablepay.example")
TABLE = '[profiles.prod]\nenvironment = "production"\nbase_url = "https://api.stablepay.example"\n'


def written(text: str) -> ProfileStore:
    locations.ensure(locations.profiles_file()).write_text(text, encoding="utf-8")
    return ProfileStore()


def test_a_profile_that_is_not_a_table_is_passed_over_and_profiles_that_are_no_tables_refused() -> None:
    assert list(written('[profiles]\nstray = "x"\n' + TABLE).load().entries) == ["prod"]
    with pytest.raises(ProfileStoreError, match=r"has no \[profiles.NAME\] tables"):
        written('profiles = "prod"\n').load()


def test_a_file_that_is_not_text_is_reported_not_crashed_on() -> None:
    locations.ensure(locations.profiles_file()).write_bytes(b"\xff\xfe[profiles]")
    with pytest.raises(ProfileStoreError, match="cannot be read"):
        ProfileStore().load()


def test_dates_without_a_zone_are_read_as_utc_and_what_is_no_date_is_left_out() -> None:
    store = written(TABLE + 'key_since = 2026-11-20T09:30:00\n'
                    'rotations = [2026-11-19T09:30:00, "soon", 2026-11-20T10:30:00+01:00, 3]\n')
    entry = store.get("prod")
    assert entry is not None
    assert entry.key_since == FIXED_NOW and entry.key_since.tzinfo is not None
    assert entry.rotations == (FIXED_NOW - timedelta(days=1), FIXED_NOW)
    assert written(TABLE + 'key_since = "yesterday"\n').get("prod").key_since is None  # type: ignore[union-attr]


def test_the_default_is_kept_only_when_it_names_a_profile_or_a_built_in_one() -> None:
    assert written('default = "prod"\n' + TABLE).load().default == "prod"
    assert written('default = "embedded"\n' + TABLE).load().default == "embedded"
    assert written('default = "gone"\n' + TABLE).load().default is None
    assert written('default = 3\n' + TABLE).load().default is None
    assert written('default = "prod"\n' + TABLE).default() == PROD
    assert written('default = "embedded"\n' + TABLE).default() is None


def test_dates_are_written_in_utc_to_the_second() -> None:
    store = ProfileStore()
    zone = timezone(timedelta(hours=1))
    store.add(PROD, key_since=datetime(2026, 11, 20, 10, 30, 0, 123456, tzinfo=zone))
    assert "key_since = 2026-11-20 09:30:00+00:00\n" in locations.profiles_file().read_text(encoding="utf-8")
    store.record_rotation("prod", datetime(2026, 11, 21, 10, 30, 5, 999999, tzinfo=zone))
    text = locations.profiles_file().read_text(encoding="utf-8")
    assert "key_since = 2026-11-21 09:30:05+00:00\nrotations = [\n    2026-11-21 09:30:05+00:00,\n]" in text
    assert text.count("default") == 0, "no default was asked for"


def test_a_rotation_takes_the_new_keys_own_date_when_given() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=FIXED_NOW - timedelta(days=90))
    store.record_rotation("prod", FIXED_NOW, key_since=FIXED_NOW - timedelta(hours=2))
    entry = store.get("prod")
    assert entry is not None and entry.key_since == FIXED_NOW - timedelta(hours=2)
    assert entry.rotations == (FIXED_NOW,)


def test_an_edit_with_a_new_key_takes_its_date() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=FIXED_NOW - timedelta(days=90))
    moved = Profile("prod", "production", "https://eu.api.stablepay.example")
    store.update(moved, key_since=FIXED_NOW)
    entry = store.get("prod")
    assert entry is not None and (entry.profile, entry.key_since) == (moved, FIXED_NOW)


def test_a_change_refused_says_which_profile_in_words() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=None)
    with pytest.raises(ProfileStoreError) as twice:
        store.add(PROD, key_since=None)
    assert str(twice.value) == "A profile named 'prod' already exists."
    for change in (lambda: store.remove("nope"), lambda: store.update(Profile("nope", "sandbox", PROD.base_url)),
                   lambda: store.record_rotation("nope", FIXED_NOW)):
        with pytest.raises(ProfileStoreError) as missing:
            change()
        assert str(missing.value) == "There is no profile named 'nope'."
    path = locations.profiles_file()
    with pytest.raises(ProfileStoreError) as broken:
        written('[profiles.prod]\nenvironment = "live"\nbase_url = "https://api.stablepay.example"\n').load()
    assert str(broken.value).startswith(f"Profile 'prod' in {path} is not valid: ")


def test_removing_a_profile_that_is_not_the_default_keeps_the_default() -> None:
    store = ProfileStore()
    store.add(PROD, key_since=None, make_default=True)
    store.add(Profile("staging", "sandbox", "https://sandbox.stablepay.example"), key_since=None)
    store.remove("staging")
    assert store.load().default == "prod"


def test_a_profiles_file_that_cannot_be_written_is_said_in_one_sentence(small_disk: SmallDisk) -> None:
    path = small_disk.path / "config" / "profiles.toml"
    path.parent.mkdir()
    small_disk.read_only()
    with pytest.raises(ProfilesNotSaved) as refused:
        ProfileStore(path).add(PROD, key_since=None)
    assert str(refused.value) == f"Could not write the profiles file to {path}: the file system is read-only."


def test_a_file_with_no_profiles_yet_holds_none_and_a_profile_missing_a_field_says_which() -> None:
    empty = written('default = "embedded"\n').load()
    assert (empty.entries, empty.default) == ({}, "embedded")
    with pytest.raises(ProfileStoreError) as no_environment:
        written('[profiles.prod]\nbase_url = "https://api.stablepay.example"\n').load()
    assert str(no_environment.value).endswith("The environment is 'sandbox' or 'production', not ''.")
    with pytest.raises(ProfileStoreError) as no_url:
        written('[profiles.prod]\nenvironment = "production"\n').load()
    assert str(no_url.value).endswith("Base URL '' must start with https:// and name a host.")
