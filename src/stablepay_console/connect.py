"""Wiring: which client a profile gets. The one place the embedded sandbox is plugged in."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import httpx

from stablepay_console.api import ApiKey, StablePayClient
from stablepay_console.profiles.model import Profile

if TYPE_CHECKING:
    from stablepay_console.sandbox import Sandbox


class Connector:
    """Builds a client for a profile.

    The embedded profile talks to one in-process sandbox, kept for the whole run so its
    state survives profile switches; other profiles get their key from `key_for`.
    """

    def __init__(
        self,
        *,
        sandbox: Sandbox | None = None,
        sandbox_rfis: int = 240,
        sandbox_seed: int = 7,
        key_for: Callable[[Profile], ApiKey] | None = None,
    ) -> None:
        self._sandbox = sandbox
        self.sandbox_rfis = sandbox_rfis
        self.sandbox_seed = sandbox_seed
        self.key_for = key_for

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            from stablepay_console.sandbox import Sandbox

            self._sandbox = Sandbox(seed=self.sandbox_seed, rfis=self.sandbox_rfis)
        return self._sandbox

    def __call__(self, profile: Profile) -> StablePayClient:
        if profile.embedded:
            from stablepay_console.sandbox import SANDBOX_KEY

            transport = httpx.ASGITransport(app=self.sandbox.app)
            return StablePayClient(profile.base_url, ApiKey(SANDBOX_KEY), transport=transport)
        if self.key_for is None:
            raise LookupError(f"No key is available for profile {profile.name!r}.")
        return StablePayClient(profile.base_url, self.key_for(profile))
