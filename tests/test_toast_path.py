"""Paths in notifications are short enough never to be broken in the middle of a word."""

from __future__ import annotations

import os

from stablepay_console.tui.formatters.text import TOAST_PATH, toast_path


def test_a_short_path_is_kept_whole_with_home_as_tilde() -> None:
    assert toast_path(os.path.expanduser("~") + "/audit.csv") == "~/audit.csv"
    assert toast_path("/tmp/out.csv") == "/tmp/out.csv"


def test_a_long_path_keeps_the_file_name_and_the_nearest_folders() -> None:
    shown = toast_path("/very/long/folder/structure/that/goes/on/audit-2026.csv")
    assert shown == "…/structure/that/goes/on/audit-2026.csv" and len(shown) <= TOAST_PATH


def test_a_very_long_name_is_cut_in_its_middle_and_keeps_its_extension() -> None:
    shown = toast_path("/x/" + "n" * 80 + ".csv")
    assert len(shown) <= TOAST_PATH and shown.endswith(".csv") and shown.startswith("…/n") and "…" in shown[2:]


def test_escapes_in_a_path_are_shown_not_run() -> None:
    assert "\x1b" not in toast_path("/tmp/\x1b[2Jx.csv")
