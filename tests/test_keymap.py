"""Keys of your own: keymap.toml in the config folder, binding id -> keys, read at start (issue 41, item 10)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from stablepay_console.sandbox import data
from stablepay_console.storage import locations
from stablepay_console.tui.modals.keys_help import KeysHelp
from tests.conftest import open_mode, submit_id, wait_for_workers
from tests.terminal import console_command
from tests.test_layout_sizes import build_app, footer_keys, screen_lines

SMALL = (80, 24)


def keymap(text: str) -> Path:
    path = locations.keymap_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_a_key_remapped_on_two_screens_shows_in_the_footer_and_f1_and_works() -> None:
    keymap('"batch.reload" = "f5"\n"quote.refresh" = ["f5"]\n')
    app = build_app()
    async with app.run_test(size=SMALL) as pilot:
        await open_mode(pilot, "batch")
        screen = await submit_id(pilot, data.BATCH_SMALL_ID)
        await pilot.press("escape")
        await wait_for_workers(pilot)
        assert footer_keys(app)["reload"].key_display == "f5"
        assert "f5 Reload" in screen_lines(app)[-1]
        sandbox = app.services.sandbox
        asked = len(sandbox.api_calls())
        await pilot.press("r")  # no longer the reload key
        await wait_for_workers(pilot)
        assert len(sandbox.api_calls()) == asked
        await pilot.press("f5")
        await wait_for_workers(pilot)
        assert len(sandbox.api_calls()) == asked + 1, "f5 looked the transfer up again"
        assert screen.shown is not None
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, KeysHelp)
        shown = "\n".join(screen_lines(app))
        assert re.search(r"█\s+f5\s{2,}Fetch the shown transfer again", shown), shown
        await pilot.press("escape")
        await open_mode(pilot, "quote")
        assert footer_keys(app)["refresh_quote"].key_display == "f5"
        await pilot.press("f1")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert re.search(r"█\s+f5\s{2,}Ask for a new quote \(POST\)", shown), shown


async def test_a_key_claimed_twice_on_one_screen_is_refused_naming_both_ids() -> None:
    keymap('"batch.reload" = "c"\n')
    app = build_app()
    async with app.run_test(size=SMALL) as pilot:
        await open_mode(pilot, "batch")
        said = " ".join(n.message for n in app.said)
        assert "batch.reload" in said and "batch.copy" in said and "'c'" in said, said
        assert "default keys are in use" in said
        assert footer_keys(app)["reload"].key_display == "r", "the file is not used: the default keys stay"


async def test_an_unknown_id_is_named() -> None:
    keymap('"batch.relaod" = "f5"\n')
    app = build_app()
    async with app.run_test(size=SMALL) as pilot:
        await wait_for_workers(pilot)
        said = " ".join(n.message for n in app.said)
        assert "'batch.relaod'" in said, said


def test_the_keys_command_lists_every_id_its_screen_default_and_current_keys(term_env: dict[str, str]) -> None:
    keymap('"batch.reload" = "f5"\n')
    listed = subprocess.run([console_command(), "keys", "--json"], env=term_env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert listed.returncode == 0, listed.stderr
    rows = {(row["id"], row["screen"]): row for row in json.loads(listed.stdout)}
    assert rows[("batch.reload", "batch")]["default"] == ["r"]
    assert rows[("batch.reload", "batch")]["current"] == ["f5"]
    assert rows[("screen.inbox", "everywhere")]["current"] == ["1"]
    assert ("rfi.back", "request detail") in rows
    keymap('"batch.reload" = "c"\n')
    refused = subprocess.run([console_command(), "keys"], env=term_env, capture_output=True, text=True,
                             timeout=60, check=False)
    assert refused.returncode == 1 and "batch.reload" in refused.stderr and "batch.copy" in refused.stderr
    assert "batch.reload" in refused.stdout, "the defaults are listed all the same"
