"""A canary key goes through switching and rotation, then must be found nowhere but the keyring.

Not in the config directory (profiles file, rotation progress), the logs, screenshots, snapshots or
crash output.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Rotation, Step
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.storage import locations
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW, no_canary_in, wait_for_workers


async def settle(pilot: Pilot[Any]) -> None:
    """`wait_for_workers` for a pilot of any app type."""
    await wait_for_workers(pilot)

ROOT = Path(__file__).resolve().parent.parent
TEAM = Profile("team", "sandbox", "https://api.sandbox.stablepay.test")


class Crash(RuntimeError):
    pass


def _crash(self: Rotation, key: ApiKey) -> None:
    raise Crash(f"a bug while pasting {key!r}")


def _text_files(folder: Path) -> list[tuple[Path, str]]:
    return [(p, p.read_text(encoding="utf-8", errors="replace")) for p in folder.rglob("*") if p.is_file()]


@pytest.fixture
def debug_log() -> object:
    """Everything at DEBUG (httpx and httpcore included) into the console's own log file."""
    handler = logging.FileHandler(locations.ensure(locations.log_file()), encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(old_level)
    handler.close()


async def test_canary_key_is_found_only_in_the_keyring(
    sandbox: Sandbox,
    memory_keyring,
    isolated_config: Path,
    debug_log: object,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    sandbox.add_key(CANARY_KEY, "canary")
    connector = Services(
        sandbox=sandbox, clock=lambda: FIXED_NOW, transport_for=lambda p: httpx.ASGITransport(app=sandbox.app)
    )
    connector.book.add(TEAM, ApiKey(SANDBOX_KEY))
    app = ConsoleApp(EMBEDDED_PROFILE, connector, clock=lambda: FIXED_NOW)
    screens: list[str] = []

    with pytest.raises(Crash):
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            # Switch to the team profile, start the rotation and paste the canary as the new key.
            await pilot.press("5")
            await settle(pilot)
            await pilot.press("f2")
            await pilot.pause()
            await pilot.press("down", "down", "enter")
            await settle(pilot)
            assert app.profile == TEAM
            screens.append(app.export_screenshot())
            app.screen.query_one(DataTable).move_cursor(row=2)
            await pilot.press("r")
            await settle(pilot)
            assert app.screen.rotation.profile == TEAM  # type: ignore[attr-defined]
            await pilot.click("#generated")
            await pilot.pause()
            app.screen.query_one("#new-key", Input).value = CANARY_KEY
            screens.append(app.export_screenshot())
            await pilot.press("enter")
            await settle(pilot)
            screens.append(app.export_screenshot())
            await pilot.click("#switch")
            await settle(pilot)
            assert "pong" in str(app.screen.query_one("EnvironmentBanner").render()), "the console uses the canary"
            screens.append(app.export_screenshot())
            sandbox.state.keys.pop(SANDBOX_KEY)  # the old key is deleted in the dashboard
            await pilot.click("#deleted")
            await settle(pilot)
            assert app.screen.rotation.step is Step.DONE  # type: ignore[attr-defined]
            screens.append(app.export_screenshot())
            # Away and back: the canary is now the profile's key everywhere the console shows it.
            await pilot.press("escape", "f2")
            await pilot.pause()
            screens.append(app.export_screenshot())
            await pilot.press("escape")
            await pilot.pause()
            # Then a bug crashes the console while the canary is being pasted into a second rotation.
            monkeypatch.setattr(Rotation, "paste", _crash)
            app.screen.query_one(DataTable).move_cursor(row=2)
            await pilot.press("r")
            await settle(pilot)
            await pilot.click("#generated")
            await pilot.pause()
            app.screen.query_one("#new-key", Input).value = CANARY_KEY
            await pilot.press("enter")
            await settle(pilot)

    assert memory_keyring.entries[("stablepay-console", "team")] == CANARY_KEY, "the keyring has it"

    crash_output = capsys.readouterr().err
    # Textual prints the crash (a traceback with locals) to stderr
    assert "a bug while pasting" in crash_output and "locals" in crash_output, "the crash output was produced"
    assert no_canary_in(crash_output)

    for shot in screens:
        assert no_canary_in(shot)
    assert any(ApiKey(CANARY_KEY).masked in shot for shot in screens), "the key was shown, masked"

    files = _text_files(isolated_config)
    names = {p.name for p, _ in files}
    assert {"profiles.toml", "console.log"} <= names
    for path, text in files:
        assert no_canary_in(text), f"the canary leaked into {path}"
    log_text = locations.log_file().read_text(encoding="utf-8")
    assert "/ping" in log_text, "requests were logged (without their key)"
    for record in caplog.records:
        assert no_canary_in(record.getMessage())


def test_no_snapshot_or_screenshot_holds_the_canary() -> None:
    folders = [ROOT / "tests" / "__snapshots__", ROOT / "screenshots"]
    checked = 0
    for folder in folders:
        if folder.is_dir():
            for path, text in _text_files(folder):
                checked += 1
                assert no_canary_in(text), f"the canary leaked into {path}"
    assert checked > 0
    ours = ROOT / "tests" / "__snapshots__" / "test_profiles_screen"
    assert any(ApiKey(CANARY_KEY).masked in text for _, text in _text_files(ours)), (
        "the wizard snapshots were taken with the canary pasted, and show it masked only"
    )
