"""The quick start: the console's frame is painted before the client stack loads; rows come from the server."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from textual.widgets import DataTable

from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.tui.runtime.boot import BootScreen, built_in_start
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, wait_for_workers


def test_the_first_frame_needs_no_httpx_pydantic_or_sandbox() -> None:
    code = (
        "import json, sys\n"
        "import stablepay_console.tui.app, stablepay_console.tui.runtime.boot, stablepay_console.tui.screens.base\n"
        "print(json.dumps(sorted(name for name, module in sys.modules.items() if module is not None)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = {m.split(".")[0] for m in json.loads(result.stdout)}
    assert "textual" in loaded
    assert not loaded & {"httpx", "pydantic", "starlette", "keyring"}, loaded & {"httpx", "pydantic", "starlette"}


async def test_the_frame_shows_while_services_load_then_the_inbox_fills(sandbox: Sandbox) -> None:
    release = threading.Event()

    def build() -> Services:
        assert release.wait(30), "the test never let the services load"
        return Services(sandbox=sandbox, clock=lambda: FIXED_NOW)

    app = ConsoleApp(EMBEDDED_PROFILE, build, clock=lambda: FIXED_NOW, ping_on_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, BootScreen)
        assert "SANDBOX" in str(app.screen.query_one("EnvironmentBanner").render())
        assert "Loading the inbox" in str(app.screen.query_one("#boot-status").render())
        await pilot.press("2")  # a screen that needs a client waits for it: nothing happens, nothing breaks
        assert isinstance(app.screen, BootScreen) and not app.ready
        release.set()
        for _ in range(200):
            await wait_for_workers(pilot, rounds=1)
            if app.ready and app.current_mode == "inbox" and app.screen.query(DataTable):
                table = app.screen.query_one(DataTable)
                if table.row_count:
                    break
        assert app.current_mode == "inbox" and app.screen.query_one(DataTable).row_count > 0


def test_only_a_built_in_profile_starts_before_its_services(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert built_in_start(None) == EMBEDDED_PROFILE
    assert built_in_start("embedded-production") is not None
    assert built_in_start("team") is None  # a configured profile: its key is checked before the UI
    monkeypatch.setenv("STABLEPAY_PROFILE", "team")
    assert built_in_start(None) is None


async def test_services_that_cannot_be_built_are_said_on_the_frame_and_q_quits() -> None:
    def build() -> Services:
        raise PermissionError("the data folder cannot be written")

    app = ConsoleApp(EMBEDDED_PROFILE, build, clock=lambda: FIXED_NOW, ping_on_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        said = ""
        for _ in range(100):
            await wait_for_workers(pilot, rounds=1)
            said = str(app.screen.query_one("#boot-status").render())
            if "could not start" in said:
                break
        assert "The console could not start. PermissionError: the data folder cannot be written" in said
        await pilot.press("q")
    assert app.return_code == 0


async def test_the_installed_console_collects_garbage_again_once_started(sandbox, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The CLI starts the console with the garbage collector off; once the installed console's inbox is shown it
    is on again, what exists then is frozen out of its passes (full passes over it paused paging) and full passes
    come rarer. Test consoles leave the collector alone: many run in one process and want theirs collected."""
    import gc

    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    thresholds = gc.get_threshold()
    try:
        for installed in (False, True):
            if installed:
                gc.disable()  # as `stablepay-console` does before it loads the UI (cli.console.run_console)
            app = ConsoleApp(
                EMBEDDED_PROFILE, Services(sandbox=sandbox, clock=lambda: FIXED_NOW), clock=lambda: FIXED_NOW,
                ping_on_start=False, freeze_after_start=installed,
            )
            async with app.run_test(size=(80, 24)) as pilot:
                await wait_for_workers(pilot)
                assert app.screen.query_one(DataTable).row_count > 0
                assert gc.isenabled()
            assert frozen == (["frozen"] if installed else [])
            assert gc.get_threshold()[2] == (100 if installed else thresholds[2])
    finally:
        gc.enable()
        gc.set_threshold(*thresholds)
