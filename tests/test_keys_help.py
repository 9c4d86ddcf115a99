"""F1: the screen's own keys beside what each does, the keys of every screen, the screen's help; Esc or F1 closes."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from stablepay_console.tui.modals.keys_help import KeysHelp
from tests.conftest import wait_for_workers
from tests.test_layout_sizes import build_app, screen_lines


async def test_help_lists_only_the_screens_own_keys_and_closes_with_esc_f1_or_question_mark() -> None:
    app = build_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        for opener, closer in (("f1", "escape"), ("f1", "f1"), ("question_mark", "question_mark")):
            await pilot.press(opener)
            await pilot.pause()
            assert isinstance(app.screen, KeysHelp), opener
            text = "\n".join(screen_lines(app))
            assert "Keys: RFI inbox" in text and "Page Left" not in text and "Page Right" not in text
            await pilot.press(closer)
            await pilot.pause()
            assert not isinstance(app.screen, KeysHelp), closer


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_snapshot_help_of_the_inbox(snap_compare, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot: Pilot[Any]) -> None:
        await wait_for_workers(pilot)
        await pilot.press("f1")
        await wait_for_workers(pilot)

    assert snap_compare(build_app(), terminal_size=size, run_before=run_before)
