"""Regenerate screenshots/: one SVG per screen and state, from the seeded sandbox at a fixed instant.

    .venv/bin/python scripts/screenshots.py

Every shot runs the real app headless with `run_test(size=...)` and `save_screenshot`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

from textual.pilot import Pilot
from textual.widgets import Input

from stablepay_console.connect import Connector
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.app import ConsoleApp

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
SIZE = (120, 40)
OUT = Path(__file__).resolve().parent.parent / "screenshots"

Steps = Callable[[Pilot[None]], Awaitable[None]]


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


async def keys(pilot: Pilot[None], *pressed: str) -> None:
    for key in pressed:
        await pilot.press(key)
        await settle(pilot)


def shots() -> dict[str, Steps]:
    async def inbox(pilot: Pilot[None]) -> None:
        await settle(pilot)

    return {"inbox": inbox}


async def take(name: str, steps: Steps) -> None:
    app = ConsoleApp(EMBEDDED_PROFILE, Connector(sandbox=Sandbox(now=NOW)), clock=lambda: NOW)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await steps(pilot)
        await settle(pilot)
        app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
    print(f"screenshots/{name}.svg")


async def main(only: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    for name, steps in shots().items():
        if not only or name in only:
            await take(name, steps)


if __name__ == "__main__":
    with TemporaryDirectory() as tmp:
        # No user profile, prefs or keyring entry leaks into the pictures.
        os.environ["STABLEPAY_CONFIG_DIR"] = tmp
        os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
        asyncio.run(main(sys.argv[1:]))
