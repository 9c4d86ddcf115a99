"""Profiles (environment, base URL), where keys live, and key rotation."""

from stablepay_console.profiles.model import EMBEDDED_PROFILE, ENVIRONMENTS, Profile

__all__ = ["EMBEDDED_PROFILE", "ENVIRONMENTS", "Profile"]
