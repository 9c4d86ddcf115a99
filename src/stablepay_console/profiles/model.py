"""What a profile is: a name, an environment and a base URL (never a key)."""

from __future__ import annotations

from dataclasses import dataclass

ENVIRONMENTS = ("sandbox", "production")

EMBEDDED_BASE_URL = "http://localhost"


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
        return "in-process sandbox (no network)" if self.embedded else self.base_url


EMBEDDED_PROFILE = Profile("embedded", "sandbox", EMBEDDED_BASE_URL, embedded=True)
