"""Where keys live: the OS keyring (one entry per profile), or `STABLEPAY_API_KEY` for CI and containers.

Nothing else in the console reads the key environment variables or touches `keyring`. A key is never
written anywhere else: where no real secret store exists, storing fails with a plain explanation.
Errors raised here never carry a key, and are raised outside `except` blocks so that no traceback
(Textual shows the locals of every frame) reaches into a keyring backend holding the plain value.
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from stablepay_console.api.secret import ApiKey
from stablepay_console.storage import variables

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

# `keyring` is imported where it is used: loading it (and its entry-point scan) costs start-up
# time that a console started on the built-in sandbox, which keeps no key in it, need not pay.

SERVICE = "stablepay-console"
ENV_KEY = variables.API_KEY
ENV_PROFILE = variables.PROFILE

ENV_ROUTE = (
    f"Use the environment instead: set {ENV_PROFILE} to the profile's name and {ENV_KEY} to its key "
    "(from your CI's secrets or a secrets manager), then start the console. "
    "The console does not write the key to a file."
)

PENDING = "pending"
PREVIOUS = "previous"


class KeyStoreError(Exception):
    """A key cannot be read, stored or deleted. The message never contains a key."""


class KeyStoreUnavailable(KeyStoreError):
    """There is no usable secret store on this machine."""


class KeyMissing(KeyStoreError):
    """The profile has no key in the store and none in the environment."""


def entry_name(profile: str, role: str = "") -> str:
    """The keyring user name of a profile's key (`role` "pending" or "previous" for a rotation's keys)."""
    return f"{profile}:{role}" if role else profile


def backend_name(backend: KeyringBackend) -> str:
    return f"{type(backend).__module__}.{type(backend).__name__}"


def insecure_reason(backend: KeyringBackend) -> str | None:
    """Why `backend` is no secret store, or None when it is one."""
    from keyring.backends import chainer, fail, null

    if isinstance(backend, chainer.ChainerBackend):
        chained = list(backend.backends)
        if not chained:
            return "No system keyring was found: this machine has no Secret Service, Keychain or Credential Locker."
        return insecure_reason(chained[0])
    if isinstance(backend, fail.Keyring):
        return (
            "No system keyring was found (keyring's 'fail' backend): this machine has no Secret Service, "
            "Keychain or Credential Locker the console can keep keys in."
        )
    if isinstance(backend, null.Keyring):
        return "The keyring is switched off (keyring's 'null' backend): it keeps nothing."
    name = backend_name(backend)
    lowered = name.lower()
    if "plaintext" in lowered or "insecure" in lowered or type(backend).__module__.startswith("keyrings.alt"):
        return f"The keyring backend {name} keeps secrets in an ordinary file; it is not a secret store."
    return None


class KeyVault(Protocol):
    """Somewhere keys can be kept under entry names."""

    @property
    def problem(self) -> str | None: ...

    def get(self, entry: str) -> ApiKey | None: ...

    def set(self, entry: str, key: ApiKey) -> None: ...

    def delete(self, entry: str) -> bool: ...


class MemoryVault:
    """Keys kept for this run only: the built-in demo profiles (their sandboxes live only this long too)."""

    problem: str | None = None

    def __init__(self) -> None:
        self._keys: dict[str, ApiKey] = {}
        self.since: dict[str, datetime] = {}
        """When each profile's current key was created, for the rotation reminders."""
        self.progress: dict[str, dict[str, Any]] = {}
        """Rotation progress of each profile (the built-in profiles keep it here)."""

    def get(self, entry: str) -> ApiKey | None:
        return self._keys.get(entry)

    def set(self, entry: str, key: ApiKey) -> None:
        self._keys[entry] = key
        self.changed()

    def delete(self, entry: str) -> bool:
        found = self._keys.pop(entry, None) is not None
        self.changed()
        return found

    def set_since(self, profile: str, when: datetime) -> None:
        self.since[profile] = when
        self.changed()

    def save_progress(self, profile: str, data: dict[str, Any] | None) -> None:
        if data is None:
            self.progress.pop(profile, None)
        else:
            self.progress[profile] = dict(data)
        self.changed()

    def changed(self) -> None:
        """Called after every change: a vault that keeps its state somewhere writes it here."""


class KeyStore:
    """The OS keyring, refusing backends that are not secret stores."""

    def __init__(self, backend: KeyringBackend | None = None, service: str = SERVICE) -> None:
        self._backend = backend
        self.service = service

    @property
    def backend(self) -> KeyringBackend:
        if self._backend is not None:
            return self._backend
        import keyring

        return keyring.get_keyring()

    @property
    def problem(self) -> str | None:
        """Why keys cannot be kept here (with the environment-variable route), or None."""
        reason = insecure_reason(self.backend)
        return f"{reason} {ENV_ROUTE}" if reason else None

    def _usable(self) -> KeyringBackend:
        problem = self.problem
        if problem:
            raise KeyStoreUnavailable(problem)
        return self.backend

    def get(self, entry: str) -> ApiKey | None:
        backend = self._usable()
        failure = None
        found: ApiKey | object | None = None
        try:
            found = _wrap(backend.get_password(self.service, entry))
        except Exception as exc:  # every backend failure becomes one plain error
            failure = f"The keyring ({backend_name(backend)}) could not read the key of {entry!r}: {_kind(exc)}."
        if failure:
            raise KeyStoreError(failure)
        if found is _INVALID:
            raise KeyStoreError(f"The key stored for {entry!r} is not a valid API key (empty, or with spaces).")
        return found if isinstance(found, ApiKey) else None

    def set(self, entry: str, key: ApiKey) -> None:
        backend = self._usable()
        failure = None
        try:
            backend.set_password(self.service, entry, key.reveal())
        except Exception as exc:
            failure = f"The keyring ({backend_name(backend)}) could not store the key of {entry!r}: {_kind(exc)}."
        if failure:
            raise KeyStoreError(failure)

    def delete(self, entry: str) -> bool:
        backend = self._usable()
        from keyring.errors import PasswordDeleteError

        failure = None
        try:
            backend.delete_password(self.service, entry)
        except PasswordDeleteError:
            return False
        except Exception as exc:
            failure = f"The keyring ({backend_name(backend)}) could not delete the key of {entry!r}: {_kind(exc)}."
        if failure:
            raise KeyStoreError(failure)
        return True


_INVALID = object()


def _kind(exc: BaseException) -> str:
    """The failure's type only: a backend's message could quote what it was given."""
    return type(exc).__name__


def _wrap(value: str | None) -> ApiKey | object | None:
    """The stored value as an ApiKey; `_INVALID` (raised on by the caller, whose frame holds no plain value)."""
    if value is None:
        return None
    try:
        return ApiKey(value)
    except ValueError:
        return _INVALID


def env_key(profile: str, default: str | None) -> ApiKey | None:
    """`STABLEPAY_API_KEY`, for the profile named by `STABLEPAY_PROFILE` (or the default one when that is unset).

    It never applies to another profile, so switching cannot send it to another environment's base URL.
    """
    if not os.environ.get(ENV_KEY):
        return None
    if (os.environ.get(ENV_PROFILE) or default) != profile:
        return None
    try:
        return ApiKey(os.environ[ENV_KEY])
    except ValueError:
        pass
    raise KeyStoreError(f"{ENV_KEY} is not a valid API key (empty, or with spaces or control characters).")
