"""A console process `stablepay-console web` started ahead (a spare): import what the console will need, then wait
on standard input for the hand-over that says whom it serves (`tui/runtime/hand_over.py`), and take it.

Nothing imported here reads who the user is: every module reads the user (`STABLEPAY_WEB_USER`) and the team
record's role when it is called, after the hand-over put them in the environment.
"""

from __future__ import annotations

import importlib

PRELOADED = (
    "stablepay_console.cli.console", "stablepay_console.cli.logs", "stablepay_console.cli.session",
    "stablepay_console.cli.blocking_output",
    "stablepay_console.tui.runtime.exit_guard", "stablepay_console.tui.runtime.boot", "stablepay_console.tui.app",
    "stablepay_console.tui.keymap", "stablepay_console.services.first_frame",
    "stablepay_console.tui.widgets.inbox.table", "stablepay_console.tui.formatters.record_rows",
    "stablepay_console.tui.runtime.first_rows", "stablepay_console.tui.runtime.key_notices",
    "stablepay_console.tui.screens.inbox", "stablepay_console.tui.widgets.result_status",
    "stablepay_console.tui.formatters.record_problem", "stablepay_console.tui.runtime.deliveries",
    "stablepay_console.tui.triage.breach_count", "stablepay_console.tui.modals.quit_mid_rotation",
    "stablepay_console.wiring", "stablepay_console.services.switching", "stablepay_console.services.notes",
    "stablepay_console.services.audit", "stablepay_console.services.triage.service",
    "stablepay_console.services.export.requests", "stablepay_console.services.team.live",
    "stablepay_console.storage.prefs", "stablepay_console.storage.keymap_file",
    "stablepay_console.storage.postgres.listen",
    "textual.drivers.web_driver", "textual.pilot", "textual.scrollbar", "textual.layouts.factory",
    "concurrent.futures.thread", "rich._emoji_codes",
)
"""What every console imports on its way to the inbox's first rows (`python -X importtime`, and `sys.modules`
after a hand-over)."""
EMBEDDED = ("stablepay_console.sandbox.app", "stablepay_console.storage.sandbox_clock")
"""The embedded sandbox (and Starlette under it), when the console starts on it."""


def preload() -> None:
    """Import what the console will import anyway, while nobody waits for it."""
    for name in PRELOADED:
        importlib.import_module(name)
    from stablepay_console.tui.runtime.boot import built_in_start

    if built_in_start(None) is not None:  # the embedded sandbox: the console loads it as it starts
        for name in EMBEDDED:
            importlib.import_module(name)


def wait_for_hand_over() -> None:
    """Import, wait for the hand-over, and take it. A packet that is not a hand-over ends the process (exit 2, one
    line on standard error) before anything is shown; the server closing the pipe ends it quietly."""
    from stablepay_console.tui.runtime.hand_over import (
        CONSOLE_NAME,
        SPARE_NAME,
        HandOverError,
        name_process,
        read_hand_over,
        take_over,
    )
    from stablepay_console.tui.runtime.web_mode import end_with_parent

    name_process(SPARE_NAME)
    end_with_parent()  # a spare ends with its server, even one killed outright
    preload()
    try:
        hand_over = read_hand_over()
    except HandOverError as exc:
        from stablepay_console.cli.output import to_stderr

        to_stderr(f"stablepay-console: {exc}")
        raise SystemExit(2) from None
    take_over(hand_over)
    name_process(CONSOLE_NAME)
