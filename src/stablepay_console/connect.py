"""Wiring: which client a profile gets. The one place the embedded sandbox is plugged in."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from stablepay_console.api import ApiKey, StablePayClient
from stablepay_console.profiles.model import Profile


@dataclass
class Connector:
    """Builds a client for a profile.

    The embedded profile talks to one in-process sandbox (kept for the whole run, so its
    state survives profile switches); other profiles get their key from `key_for`.
    """

    sandbox_rfis: int = 240
    sandbox_seed: int = 7
    key_for: object = None
    _sandbox: object = field(default=None, repr=False)

    @property
    def sandbox(self):  # type: ignore[no-untyped-def]
        if self._sandbox is None:
            from stablepay_console.sandbox import Sandbox

            self._sandbox = Sandbox(seed=self.sandbox_seed, rfis=self.sandbox_rfis)
        return self._sandbox

    def __call__(self, profile: Profile) -> StablePayClient:
        if profile.embedded:
            from stablepay_console.sandbox import SANDBOX_KEY

            transport = httpx.ASGITransport(app=self.sandbox.app)  # type: ignore[attr-defined]
            return StablePayClient(profile.base_url, ApiKey(SANDBOX_KEY), transport=transport)
        if not callable(self.key_for):
            raise LookupError(f"No key is available for profile {profile.name!r}.")
        key: ApiKey = self.key_for(profile)
        return StablePayClient(profile.base_url, key)
