"""What a profile is: a name, an environment and a base URL (never a key)."""

from __future__ import annotations

import re
from dataclasses import dataclass

ENVIRONMENTS = ("sandbox", "production")

EMBEDDED_BASE_URL = "http://localhost"

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True)
class Profile:
    name: str
    environment: str
    base_url: str
    embedded: bool = False
    """True for the in-process sandbox that needs no configuration."""

    @property
    def is_production(self) -> bool:
        return self.environment == "production"

    @property
    def where(self) -> str:
        """The base URL as a person should read it."""
        if not self.embedded:
            return self.base_url
        if self.is_production:
            return "in-process simulated production (no network, no real money)"
        return "in-process sandbox (no network)"


def check_name(name: str) -> str:
    """A profile name: letters, digits, `_`, `.` and `-`, at most 40 characters."""
    name = name.strip()
    if not NAME_PATTERN.match(name):
        raise ValueError(
            "A profile name is 1 to 40 letters, digits, '_', '.' or '-', starting with a letter or digit."
        )
    if name in EMBEDDED_NAMES:
        raise ValueError(f"{name!r} is the name of a built-in profile; choose another.")
    return name


def check_environment(environment: str) -> str:
    if environment not in ENVIRONMENTS:
        raise ValueError(f"The environment is 'sandbox' or 'production', not {environment!r}.")
    return environment


EMBEDDED_PROFILE = Profile("embedded", "sandbox", EMBEDDED_BASE_URL, embedded=True)
EMBEDDED_PRODUCTION_PROFILE = Profile("embedded-production", "production", EMBEDDED_BASE_URL, embedded=True)
"""A simulated production environment, so the production banner and the rotation wizard can be tried safely."""
EMBEDDED_PROFILES = (EMBEDDED_PROFILE, EMBEDDED_PRODUCTION_PROFILE)
EMBEDDED_NAMES = frozenset(p.name for p in EMBEDDED_PROFILES)
