"""All profiles in one place: the built-in ones, the configured ones, their keys, ages and rotations."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from stablepay_console.api import ApiKey
from stablepay_console.profiles.age import KeyAge, key_age
from stablepay_console.profiles.key_date import jwt_issued_at, key_created
from stablepay_console.profiles.keys import (
    ENV_KEY,
    ENV_PROFILE,
    PENDING,
    PREVIOUS,
    KeyMissing,
    KeyStore,
    KeyStoreError,
    KeyVault,
    MemoryVault,
    entry_name,
    env_key,
)
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import ClientFor, FileProgress, MemoryProgress, Progress, Rotation, Step
from stablepay_console.profiles.store import ProfileStore, ProfileStoreError


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class KeyStatus:
    source: str
    """"keyring", "environment", "built-in", "missing" or "unavailable"."""
    masked: str = ""
    note: str = ""

    @property
    def usable(self) -> bool:
        return self.source in ("keyring", "environment", "built-in")

    @property
    def label(self) -> str:
        if self.source == "missing":
            return "no key"
        if self.source == "unavailable":
            return "keyring unavailable"
        return f"{self.masked} ({self.source})"


class ProfileBook:
    """Profiles and their keys. Built-in profiles keep keys in memory; the others in the OS keyring."""

    def __init__(
        self,
        *,
        store: ProfileStore | None = None,
        keys: KeyVault | None = None,
        embedded: Sequence[Profile] = (EMBEDDED_PROFILE,),
        embedded_vault: MemoryVault | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.store = store or ProfileStore()
        self.keys: KeyVault = keys or KeyStore()
        self.embedded = list(embedded)
        self.embedded_vault = embedded_vault or MemoryVault()
        self.clock = clock

    # --- profiles ------------------------------------------------------------------

    def profiles(self) -> list[Profile]:
        return [*self.embedded, *self.store.profiles()]

    def configured(self) -> list[Profile]:
        return self.store.profiles()

    def find(self, name: str) -> Profile | None:
        return next((p for p in self.profiles() if p.name == name), None)

    def default_name(self) -> str | None:
        return self.store.load().default

    def start_profile(self) -> Profile:
        """`STABLEPAY_PROFILE`, else the default profile, else the built-in sandbox."""
        wanted = os.environ.get(ENV_PROFILE)
        if wanted:
            found = self.find(wanted)
            if found is None:
                raise ProfileStoreError(
                    f"{ENV_PROFILE} names {wanted!r}, which is not a profile here. "
                    "Add it with `stablepay-console profile add` (the file keeps no key)."
                )
            return found
        default = self.default_name()
        found = self.find(default) if default else None
        return found or (self.embedded[0] if self.embedded else EMBEDDED_PROFILE)

    def add(
        self, profile: Profile, key: ApiKey | None, *, make_default: bool = False, key_since: datetime | None = None
    ) -> None:
        """Keep the profile and (when given) its key; the key goes to the keyring first, or nothing is kept.

        `key_since` is when the key was created; by default a JWT key's own `iat`, else now.
        """
        if self.store.get(profile.name) is not None:
            raise ProfileStoreError(f"A profile named {profile.name!r} already exists.")
        if key is not None:
            self.keys.set(entry_name(profile.name), key)
        since = key_created(key, key_since, self.clock())[0] if key is not None else key_since
        try:
            self.store.add(profile, key_since=since, make_default=make_default)
        except ProfileStoreError:
            if key is not None:
                self.keys.delete(entry_name(profile.name))
            raise

    def edit(self, profile: Profile, key: ApiKey | None, *, key_since: datetime | None = None) -> None:
        """Change environment or base URL; a new key (when given) replaces the stored one.

        `key_since` corrects the key's creation date (with or without a new key); a new key without
        one is dated by its own `iat`, else now.
        """
        if key is not None:
            self.keys.set(entry_name(profile.name), key)
            key_since = key_created(key, key_since, self.clock())[0]
        self.store.update(profile, key_since=key_since)

    def remove(self, profile: Profile) -> None:
        """Forget the profile, its keys and any rotation in progress (the keys stay valid in the dashboard)."""
        self.store.remove(profile.name)
        for role in ("", PENDING, PREVIOUS):
            try:
                self.keys.delete(entry_name(profile.name, role))
            except KeyStoreError:
                pass
        FileProgress(profile.name).clear()

    def set_default(self, name: str) -> None:
        self.store.set_default(name)

    # --- keys ----------------------------------------------------------------------

    def vault_for(self, profile: Profile) -> KeyVault:
        return self.embedded_vault if profile.embedded else self.keys

    def env_key(self, profile: Profile) -> ApiKey | None:
        return None if profile.embedded else env_key(profile.name, self.default_name())

    def key_for(self, profile: Profile) -> ApiKey:
        """The key to use: the environment's for its profile, else the key store's."""
        from_env = self.env_key(profile)
        if from_env is not None:
            return from_env
        key = self.vault_for(profile).get(entry_name(profile.name))
        if key is None:
            raise KeyMissing(
                f"Profile {profile.name!r} has no key. Add one in Profiles & keys, or set {ENV_PROFILE}={profile.name} "
                f"and {ENV_KEY}."
            )
        return key

    def key_status(self, profile: Profile) -> KeyStatus:
        try:
            from_env = self.env_key(profile)
            if from_env is not None:
                return KeyStatus("environment", from_env.masked, f"from {ENV_KEY}")
            vault = self.vault_for(profile)
            if vault.problem:
                return KeyStatus("unavailable", note=vault.problem)
            key = vault.get(entry_name(profile.name))
        except KeyStoreError as exc:
            return KeyStatus("unavailable", note=str(exc))
        if key is None:
            return KeyStatus("missing", note="No key is stored for this profile.")
        return KeyStatus("built-in" if profile.embedded else "keyring", key.masked)

    def key_since(self, profile: Profile) -> datetime | None:
        """When the profile's key was created (for a key from the environment: its JWT `iat`, if any)."""
        if profile.embedded:
            return self.embedded_vault.since.get(profile.name)
        try:
            from_env = self.env_key(profile)
        except KeyStoreError:
            return None
        if from_env is not None:
            return jwt_issued_at(from_env, self.clock())
        entry = self.store.get(profile.name)
        return entry.key_since if entry else None

    def shared_with(self, profile: Profile) -> list[str]:
        """The other profiles whose stored key is this profile's key (deleting it stops them too)."""
        try:
            key = self.vault_for(profile).get(entry_name(profile.name))
        except KeyStoreError:
            return []
        if key is None:
            return []
        names = []
        for other in self.profiles():
            # A built-in profile's key belongs to its in-process simulator: never the same key as a real one's.
            if other.name == profile.name or other.embedded != profile.embedded or self.vault_for(other).problem:
                continue
            try:
                if self.vault_for(other).get(entry_name(other.name)) == key:
                    names.append(other.name)
            except KeyStoreError:
                continue
        return names

    def rotations(self, profile: Profile) -> tuple[datetime, ...]:
        entry = None if profile.embedded else self.store.get(profile.name)
        return entry.rotations if entry else ()

    def age(self, profile: Profile, now: datetime | None = None) -> KeyAge:
        return key_age(self.key_since(profile), now or self.clock())

    # --- rotation ------------------------------------------------------------------

    def progress_for(self, profile: Profile) -> Progress:
        if profile.embedded:
            return MemoryProgress(self.embedded_vault, profile.name)
        return FileProgress(profile.name)

    def rotation_step(self, profile: Profile) -> int | None:
        """The step a saved rotation stopped at, or None."""
        saved = self.progress_for(profile).load()
        step = saved.get("step") if saved else None
        return step if isinstance(step, int) and not isinstance(step, bool) else None

    def pending_rotations(self) -> list[tuple[Profile, Step]]:
        """Every profile whose rotation stopped half-way, with the step it stopped at."""
        pending = []
        for profile in self.profiles():
            step = self.rotation_step(profile)
            if step is not None and Step.GENERATE <= step < Step.DONE:
                pending.append((profile, Step(step)))
        return pending

    def rotation(
        self, profile: Profile, client_for: ClientFor, clock: Callable[[], datetime] | None = None
    ) -> Rotation:
        """The rotation of `profile` (a saved one resumes). Refused when its key comes from the environment."""
        if self.env_key(profile) is not None:
            raise KeyStoreError(
                f"Profile {profile.name!r} uses the key in {ENV_KEY}: rotate it where that variable is set "
                "(your CI's secrets or secrets manager), then delete the old key in the dashboard."
            )
        vault = self.vault_for(profile)
        if vault.problem:
            raise KeyStoreError(vault.problem)

        def switched(when: datetime, created: datetime) -> None:
            if profile.embedded:
                self.embedded_vault.set_since(profile.name, created)
            else:
                self.store.record_rotation(profile.name, when, key_since=created)

        return Rotation(
            profile, vault, self.progress_for(profile), client_for, clock or self.clock, switched,
            shared_with=self.shared_with(profile),
        )
