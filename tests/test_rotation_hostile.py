"""Issue 17, bug 1: a hostile 401 body at the wizard's "verify the new key" step reaches no terminal raw.

The server's text (ESC, OSC 52, OSC 8, C1 controls, bidi overrides, U+2028/2029, zero-width) is
cleaned before it reaches the wizard, its notifications and the rotation's progress file, and it
is cleaned again when a (hand-edited) progress file is read back on resume.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import httpx
import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Step, progress_path
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.hostile_payloads import HOSTILE

RAW = frozenset("\x9b\x9d\x9c\x85\u202e\u202c\u2066\u2069\u200f\u2028\u2029\u200b\u200c\u2060\ufeff\x00\x07\x08\x7f")
"""Characters of HOSTILE that must never come out raw (ESC is checked apart: the terminal's own styles use it)."""

OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\d+;\d+H")
"""What the console itself writes: colours and styles, and cursor moves to a row and column."""

OLD_KEY = "sk_sandbox_team_old_key_000000000000"
NEW_KEY = "sk_sandbox_team_new_key_111111111111"
TEAM = Profile("team", "sandbox", "https://api.sandbox.stablepay.test")


def hostile_server(request: httpx.Request) -> httpx.Response:
    """Pong for the old key; the new key gets a 401 whose text is every kind of escape sequence."""
    if request.headers.get("authorization") == f"Bearer {OLD_KEY}":
        return httpx.Response(200, json={"message": "pong"})
    return httpx.Response(401, json={"code": 401, "error": HOSTILE, "errorDetails": HOSTILE})


def raw_in(text: str) -> set[str]:
    """The dangerous characters `text` holds raw (after removing the console's own sequences)."""
    rest = OWN_SEQUENCES.sub("", text)
    return {ch for ch in rest if ch in RAW or ch == "\x1b"}


def terminal_output(app: ConsoleApp) -> str:
    """What the console writes to the terminal for the whole current screen (toasts included)."""
    width, height = app.size
    console = Console(
        width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor",
        legacy_windows=False, safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def notifications(app: ConsoleApp) -> str:
    return "\n".join(f"{n.title} {n.message}" for n in app.said)


def services() -> Services:
    return Services(clock=lambda: FIXED_NOW, transport_for=lambda p: httpx.MockTransport(hostile_server))


def build_app() -> ConsoleApp:
    return ConsoleApp(EMBEDDED_PROFILE, services(), clock=lambda: FIXED_NOW)


@pytest.fixture
def team() -> Profile:
    ProfileBook(clock=lambda: FIXED_NOW).add(TEAM, ApiKey(OLD_KEY))
    return TEAM


# --- headless ----------------------------------------------------------------------------------------------------


async def test_refusal_text_is_cleaned_in_the_error_and_the_progress_file(team: Profile) -> None:
    wiring = services()
    rotation = wiring.book.rotation(team, wiring.client_with)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(NEW_KEY))
    assert await rotation.verify_new() is False
    assert rotation.step is Step.PASTE
    assert "\\x1b]52;c;" in rotation.error, "the server's text is shown, escaped"
    assert raw_in(rotation.error) == set()
    saved = progress_path("team").read_text(encoding="utf-8")
    assert raw_in(saved) == set() and raw_in(json.loads(saved)["error"]) == set()

    resumed = wiring.book.rotation(team, wiring.client_with)
    assert resumed.start() is Step.PASTE
    assert resumed.error == rotation.error


async def test_a_hand_edited_progress_file_is_cleaned_when_read(team: Profile) -> None:
    path = progress_path("team")
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {"step": 5, "profile": HOSTILE, "old_key": HOSTILE, "new_key": HOSTILE, "error": HOSTILE * 50}
    path.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    wiring = services()
    rotation = wiring.book.rotation(team, wiring.client_with)
    for value in (rotation.state.profile, rotation.state.old_key, rotation.state.new_key, rotation.error):
        assert value and raw_in(value) == set()
    assert len(rotation.error) <= 600


async def test_a_refusal_that_runs_on_is_cut_to_a_few_sentences(team: Profile) -> None:
    """A 400 at the check, with ten field problems of the longest kind: what the wizard says, and shows on resume,
    is cut at 600 characters (the server's whole text would run to two thousand)."""

    def long_refusal(request: httpx.Request) -> httpx.Response:
        problems = [{"field": f"f{n}" * 30, "message": "m" * 200, "code": "x"} for n in range(10)]
        return httpx.Response(400, json={"type": "VALIDATION_ERROR", "message": "bad", "fields": problems})

    wiring = Services(clock=lambda: FIXED_NOW, transport_for=lambda p: httpx.MockTransport(long_refusal))
    rotation = wiring.book.rotation(team, wiring.client_with)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(NEW_KEY))
    assert await rotation.verify_new() is False
    assert rotation.step is Step.VERIFY_NEW
    assert rotation.error.startswith("The new key could not be checked (") and rotation.error.endswith("…")
    assert len(rotation.error) == 600


# --- the console ---------------------------------------------------------------------------------------------------


async def open_wizard(pilot: Pilot[Any]) -> None:
    app = pilot.app
    await wait_for_workers(pilot)
    await pilot.press("5")
    await wait_for_workers(pilot)
    table = app.screen.query_one(DataTable)
    names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
    table.move_cursor(row=names.index("team"))
    await pilot.press("r")
    await wait_for_workers(pilot)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_wizard_draws_the_refusal_escaped_now_and_on_resume(team: Profile, size: tuple[int, int]) -> None:
    app = build_app()
    async with app.run_test(size=size) as pilot:
        await open_wizard(pilot)
        await pilot.click("#generated")
        await wait_for_workers(pilot)
        app.screen.query_one("#new-key", Input).value = NEW_KEY
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert app.screen.rotation.step is Step.PASTE  # type: ignore[attr-defined]
        error = str(app.screen.query_one("#rotation-error").render())
        assert "\\x1b]52;c;" in error and "refused" in error
        assert raw_in(terminal_output(app)) == set()
        assert raw_in(notifications(app)) == set()
        await pilot.press("escape")  # leave the key field
        await pilot.press("escape")  # close the wizard; its progress is kept
        await wait_for_workers(pilot)

    again = build_app()
    async with again.run_test(size=size) as pilot:
        await open_wizard(pilot)
        assert "resumed" in str(again.screen.query_one("#rotation-current").render())
        assert "\\x1b]52;c;" in str(again.screen.query_one("#rotation-error").render())
        output = terminal_output(again)
        assert raw_in(output) == set()
        assert raw_in(notifications(again)) == set()


# --- the saved progress, read and written without a console ------------------------------------------------------


def test_saved_progress_is_cleaned_and_cut_both_ways() -> None:
    from stablepay_console.profiles.rotation_state import RotationState

    read = RotationState.from_dict({
        "step": 99, "profile": "prod\x1b]52;c;cHduZWQ=\x07", "old_key": "sk_live_" + "x" * 500,
        "error": "\x1b[2J" + "e" * 2000, "new_key": 5, "unknown": "ignored",
    })
    assert read.step == Step.GENERATE  # an unknown step starts again at the first
    assert read.profile == "prod\\x1b]52;c;cHduZWQ=\\x07"
    assert len(read.old_key) == 120 and read.old_key.endswith("x…")
    assert len(read.error) == 600 and read.error.startswith("\\x1b[2J")
    assert read.new_key == ""  # not text: not taken
    assert [RotationState.from_dict({"step": s}).step for s in (4, "4", 0, 8, 2.0)] == [Step.SWITCH] + [
        Step.GENERATE] * 3 + [Step.GENERATE]
    read.error, read.base_url = "\x1b[31m" + "e" * 700, "https://" + "h" * 200  # as the wizard sets them
    saved = read.to_dict()
    assert saved["step"] == Step.GENERATE and saved["new_key"] == ""
    assert len(saved["error"]) == 600 and saved["error"].startswith("\\x1b[31m")
    assert len(saved["base_url"]) == 120 and saved["profile"] == "prod\\x1b]52;c;cHduZWQ=\\x07"


def test_progress_files_are_per_profile_and_refuse_what_is_not_progress(tmp_path: Any) -> None:
    from stablepay_console.profiles.rotation_state import FileProgress
    from stablepay_console.storage import locations
    from stablepay_console.storage.writing import NotWritten

    progress = FileProgress("Prod/../é x")
    assert progress.path == locations.data_dir() / "rotation-Prod_..___x.json"  # one plain name, never a path
    assert progress.path == progress_path("Prod/../é x")
    assert progress.load() is None
    progress.clear()  # nothing saved yet: nothing to do
    data = {"step": 4, "profile": "prod", "error": "refusé"}
    progress.save(data)
    assert progress.load() == data
    for text in ("[1, 2]", "{not json", ""):
        progress.path.write_text(text, encoding="utf-8")
        assert progress.load() is None, text
    progress.clear()
    assert not progress.path.exists()
    progress.clear()
    blocked = FileProgress("prod")
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    blocked.path = tmp_path / "a-file" / "rotation-prod.json"
    with pytest.raises(NotWritten, match=r"^Could not write the rotation's progress to .*a-file/rotation-prod\.json"):
        blocked.save(data)


def test_a_built_in_profiles_progress_stays_in_its_vault() -> None:
    from stablepay_console.profiles.keys import MemoryVault
    from stablepay_console.profiles.rotation_state import MemoryProgress

    vault = MemoryVault()
    embedded, other = MemoryProgress(vault, "embedded"), MemoryProgress(vault, "simulated")
    assert embedded.load() is None
    embedded.save({"step": 3})
    assert embedded.load() == {"step": 3} and other.load() is None
    loaded = embedded.load()
    assert loaded is not None
    loaded["step"] = 6  # a copy: changing it changes nothing saved
    assert vault.progress == {"embedded": {"step": 3}}
    embedded.clear()
    assert embedded.load() is None and vault.progress == {}
