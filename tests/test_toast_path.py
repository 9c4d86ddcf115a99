"""Paths in notifications are shown whole where they fit a few lines, and never broken in the middle of a word."""

from __future__ import annotations

import os
import time

from stablepay_console.tui.formatters.text import TOAST_LINES, TOAST_PATH, toast_path


def test_a_short_path_is_kept_whole_with_home_as_tilde() -> None:
    assert toast_path(os.path.expanduser("~") + "/audit.csv") == "~/audit.csv"
    assert toast_path("/tmp/out.csv") == "/tmp/out.csv"


def test_a_long_path_is_shown_whole_on_lines_broken_after_a_separator() -> None:
    path = "/home-of/alice/stablepay-exports/2026/metric-revenue-2026-11-23T0930Z.csv"
    shown = toast_path(path)
    assert shown.replace("\n", "") == path
    lines = shown.split("\n")
    assert lines == ["/home-of/alice/stablepay-exports/", "2026/metric-revenue-2026-11-", "23T0930Z.csv"]
    assert all(len(line) <= TOAST_PATH for line in lines)


def test_a_file_name_wider_than_a_line_breaks_after_its_hyphens() -> None:
    path = "/tmp/exports/metric-daily-gross-volume-20261123-233612.csv"  # the metric export's own naming
    lines = toast_path(path).split("\n")
    assert "".join(lines) == path and len(lines) == 2
    assert all(len(line) <= TOAST_PATH for line in lines) and lines[0].endswith("-")


async def test_every_line_of_a_path_fits_a_notification_at_80_columns() -> None:
    from textual.app import App
    from textual.widgets._toast import Toast

    app: App[None] = App()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.notify("Saved to\n" + toast_path("/tmp/exports/metric-daily-gross-volume-20261123-233612.csv"))
        deadline = time.monotonic() + 10
        while not (shown := app.screen.query(Toast)) or not shown.first().content_region.width:
            # Mounted is not laid out: under load a frame can show the toast with no size yet.
            assert time.monotonic() < deadline, "no notification was laid out within 10 s"
            await pilot.pause(0.02)
        assert app.screen.query_one(Toast).content_region.width >= TOAST_PATH


def test_a_path_too_long_for_the_lines_keeps_the_file_name_and_the_nearest_folders() -> None:
    shown = toast_path("/" + "/".join(f"folder{i:02d}" for i in range(30)) + "/audit-2026.csv")
    assert shown == "…/folder28/folder29/audit-2026.csv" and len(shown) <= TOAST_PATH
    assert len(shown.split("\n")) == 1 and TOAST_LINES == 4


def test_a_very_long_name_is_cut_in_its_middle_and_keeps_its_extension() -> None:
    shown = toast_path("/x/" + "n" * 80 + ".csv")
    assert len(shown) <= TOAST_PATH and shown.endswith(".csv") and shown.startswith("…/n") and "…" in shown[2:]


def test_escapes_in_a_path_are_shown_not_run() -> None:
    assert "\x1b" not in toast_path("/tmp/\x1b[2Jx.csv")
