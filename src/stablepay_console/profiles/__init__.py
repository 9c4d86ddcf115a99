"""Profiles (environment, base URL), where keys live, and key rotation."""

from stablepay_console.profiles.model import (
    EMBEDDED_PRODUCTION_PROFILE,
    EMBEDDED_PROFILE,
    EMBEDDED_PROFILES,
    ENVIRONMENTS,
    Profile,
)

__all__ = ["EMBEDDED_PRODUCTION_PROFILE", "EMBEDDED_PROFILE", "EMBEDDED_PROFILES", "ENVIRONMENTS", "Profile"]
