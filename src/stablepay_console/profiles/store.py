"""The profiles file: names, environments, base URLs, the default and key dates. Never a key.

The default (the profile the console starts on) is only ever what was asked for (`--default`, `profile use`):
adding a profile never makes it the default, removing the default leaves none (the built-in sandbox), and a
built-in profile's name (`embedded`) may be the default too.

Written as TOML with tomli_w, atomically (temporary file, fsync, rename), readable by the user only.
Only the fields below are ever written, so nothing else (least of all a key) can end up in the file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import tomli_w

from stablepay_console.api.urls import base_url_text
from stablepay_console.profiles.model import EMBEDDED_NAMES, Profile, check_environment, check_name
from stablepay_console.storage import locations
from stablepay_console.storage.writing import NotWritten, write_atomically


class ProfileStoreError(Exception):
    """The profiles file cannot be read or written, or a change is not allowed."""


class ProfilesNotSaved(ProfileStoreError):
    """The profiles file could not be written (a full or read-only disk): nothing was changed on disk."""


@dataclass(frozen=True)
class StoredProfile:
    profile: Profile
    key_since: datetime | None = None
    """When the current key was created (as given, its JWT `iat`, or when it was added); drives the reminders."""
    rotations: tuple[datetime, ...] = ()
    """When each completed rotation switched to a new key, oldest first."""


@dataclass
class ProfilesFile:
    default: str | None = None
    entries: dict[str, StoredProfile] = field(default_factory=dict)


def make_profile(name: str, environment: str, base_url: str) -> Profile:
    """A checked profile: a valid name, a known environment, an HTTPS (or loopback) base URL."""
    return Profile(check_name(name), check_environment(environment), base_url_text(base_url))


def _utc(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    return None


class ProfileStore:
    """Read-modify-write access to the profiles file (each change re-reads the file first)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or locations.profiles_file()

    # --- reading ---------------------------------------------------------------

    def load(self) -> ProfilesFile:
        try:
            raw = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return ProfilesFile()
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ProfileStoreError(f"The profiles file {self.path} cannot be read: {exc}") from None
        result = ProfilesFile()
        tables = raw.get("profiles", {})
        if not isinstance(tables, dict):
            raise ProfileStoreError(f"The profiles file {self.path} has no [profiles.NAME] tables.")
        for name, table in tables.items():
            if not isinstance(table, dict):
                continue
            try:
                profile = make_profile(name, str(table.get("environment", "")), str(table.get("base_url", "")))
            except ValueError as exc:
                raise ProfileStoreError(f"Profile {name!r} in {self.path} is not valid: {exc}") from None
            rotations = tuple(d for d in (_utc(v) for v in table.get("rotations", [])) if d is not None)
            result.entries[name] = StoredProfile(profile, _utc(table.get("key_since")), rotations)
        default = raw.get("default")
        known = isinstance(default, str) and (default in result.entries or default in EMBEDDED_NAMES)
        result.default = default if known else None
        return result

    def profiles(self) -> list[Profile]:
        return [entry.profile for entry in self.load().entries.values()]

    def get(self, name: str) -> StoredProfile | None:
        return self.load().entries.get(name)

    def default(self) -> Profile | None:
        """The configured default profile; None when there is none or it is a built-in one (see `load().default`)."""
        data = self.load()
        entry = data.entries.get(data.default) if data.default else None
        return entry.profile if entry is not None else None

    # --- changing --------------------------------------------------------------

    def add(self, profile: Profile, *, key_since: datetime | None, make_default: bool = False) -> None:
        data = self.load()
        if profile.name in data.entries:
            raise ProfileStoreError(f"A profile named {profile.name!r} already exists.")
        data.entries[profile.name] = StoredProfile(profile, key_since)
        if make_default:  # only when asked: a new profile without a key must not become the one the console starts on
            data.default = profile.name
        self.save(data)

    def update(self, profile: Profile, *, key_since: datetime | None = None) -> None:
        """Change a profile's environment or base URL (and the key date when a key was replaced)."""
        data = self.load()
        entry = self._entry(data, profile.name)
        data.entries[profile.name] = replace(entry, profile=profile, key_since=key_since or entry.key_since)
        self.save(data)

    def remove(self, name: str) -> None:
        data = self.load()
        self._entry(data, name)
        del data.entries[name]
        if data.default == name:
            data.default = None  # back to the built-in sandbox, never another profile nobody chose
        self.save(data)

    def set_default(self, name: str) -> None:
        """A configured profile or a built-in one (`embedded`) becomes the one the console starts on."""
        data = self.load()
        if name not in EMBEDDED_NAMES:
            self._entry(data, name)
        data.default = name
        self.save(data)

    def record_rotation(self, name: str, when: datetime, key_since: datetime | None = None) -> None:
        """The profile switched to a new key at `when` (created at `key_since`, default `when`)."""
        data = self.load()
        entry = self._entry(data, name)
        data.entries[name] = replace(entry, key_since=key_since or when, rotations=(*entry.rotations, when))
        self.save(data)

    def _entry(self, data: ProfilesFile, name: str) -> StoredProfile:
        entry = data.entries.get(name)
        if entry is None:
            raise ProfileStoreError(f"There is no profile named {name!r}.")
        return entry

    # --- writing ---------------------------------------------------------------

    def save(self, data: ProfilesFile) -> None:
        doc: dict[str, Any] = {}
        if data.default:
            doc["default"] = data.default
        tables: dict[str, Any] = {}
        for name, entry in data.entries.items():
            table: dict[str, Any] = {"environment": entry.profile.environment, "base_url": entry.profile.base_url}
            if entry.key_since is not None:
                table["key_since"] = entry.key_since.astimezone(timezone.utc).replace(microsecond=0)
            if entry.rotations:
                table["rotations"] = [d.astimezone(timezone.utc).replace(microsecond=0) for d in entry.rotations]
            tables[name] = table
        doc["profiles"] = tables
        self._write_atomically(tomli_w.dumps(doc))

    def _write_atomically(self, text: str) -> None:
        try:
            write_atomically(self.path, text, "the profiles file")
        except NotWritten as exc:
            raise ProfilesNotSaved(str(exc)) from None
