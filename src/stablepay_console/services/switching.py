"""A profile switch as one call: resolve the key, build the client, ping. The app applies the outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from stablepay_console.api import APIError, StablePayClient
from stablepay_console.api.error_text import error_text
from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import KeyStoreError
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.store import ProfileStoreError


@dataclass(frozen=True)
class SwitchOutcome:
    """What a switch to `profile` came to, and when. `client` is set only when the switch can be applied."""

    profile: Profile
    at: datetime
    client: StablePayClient | None = None
    problem: str = ""
    """Why the switch cannot be applied (no usable key, a bad base URL); empty when it can."""
    ping: str = ""
    """`✓ pong`, or `✗ <kind>: <server's message>` (the switch still applies: the banner says the key failed)."""

    @property
    def ok(self) -> bool:
        return self.client is not None


async def switch_profile(
    profile: Profile,
    book: ProfileBook,
    client_for: Callable[[Profile], StablePayClient],
    clock: Callable[[], datetime],
) -> SwitchOutcome:
    try:
        status = book.key_status(profile)
        if not status.usable:
            problem = f"Profile {clean(profile.name)} has no usable key: {status.note}"
            return SwitchOutcome(profile, clock(), problem=problem)
        client = client_for(profile)
    except (KeyStoreError, ProfileStoreError, LookupError, ValueError) as exc:
        return SwitchOutcome(profile, clock(), problem=clean(str(exc)))
    try:
        pong = await client.ping()
    except APIError as exc:
        ping = f"✗ {error_text(exc, 80)}"
    else:
        ping = f"✓ {clean(pong.message, 20)}"
    return SwitchOutcome(profile, clock(), client=client, ping=ping)
