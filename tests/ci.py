"""Whether this run is CI's, and what a test does when a real part it needs is missing."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    """Whether this is a CI run: CI set to anything but empty, "0" or "false" (in any case)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def missing(why: str, how: str = "") -> NoReturn:
    """A real part the test needs (a tmpfs, a Secret Service, PostgreSQL) is not there: under CI the test
    fails, since CI installs them all; elsewhere it is skipped with the reason shown."""
    if in_ci():
        pytest.fail(f"{why}; CI must provide it{f' ({how})' if how else ''}")
    pytest.skip(f"{why}{f'; {how}' if how else ''}")
