"""A local simulator of the StablePay API (embedded in-process, or served on loopback).

The names below are loaded on first use: a command against a real server needs only the sandbox's
key (`sandbox.ids`), not Starlette and the seeded world.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stablepay_console.sandbox.app import Sandbox, SandboxState, build_app
    from stablepay_console.sandbox.data import SandboxData
    from stablepay_console.sandbox.faults import Faults
    from stablepay_console.sandbox.ids import SANDBOX_KEY

__all__ = ["SANDBOX_KEY", "Faults", "Sandbox", "SandboxData", "SandboxState", "build_app"]

_HOME = {
    "SANDBOX_KEY": "ids",
    "Faults": "faults",
    "Sandbox": "app",
    "SandboxData": "data",
    "SandboxState": "app",
    "build_app": "app",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
