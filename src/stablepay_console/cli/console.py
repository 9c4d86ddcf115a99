"""Starting the console: the profile to start on, the signal guard, and how it ends."""

from __future__ import annotations

import argparse
import gc
from typing import TYPE_CHECKING, NoReturn

from stablepay_console.cli.arguments import say

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.tui.runtime.exit_guard import ExitGuard
    from stablepay_console.wiring import Services


def start_profile(args: argparse.Namespace) -> tuple[Profile, Services] | None:
    """The profile to start on (`--profile`, STABLEPAY_PROFILE, the default one, or the built-in sandbox) and
    its wiring.

    None, after a plain message on stderr, when that profile has no usable key.
    """
    from stablepay_console.cli.session import pick_profile, services_for
    from stablepay_console.profiles.keys import KeyStoreError
    from stablepay_console.profiles.store import ProfileStoreError

    services = services_for(args)
    book = services.book
    try:
        profile = pick_profile(services, getattr(args, "profile", None))
        status = book.key_status(profile)
        if not status.usable:  # never a dead end: the built-in sandbox always starts
            raise KeyStoreError(f"Profile {profile.name!r} has no usable key. {status.note} To start on the built-in "
                                "sandbox instead: `stablepay-console profile use embedded`.")
    except (ProfileStoreError, KeyStoreError) as exc:
        from stablepay_console.cli.output import to_stderr

        to_stderr(f"stablepay-console: {say(str(exc))}")
        return None
    return profile, services


def run_console(args: argparse.Namespace) -> int:
    from stablepay_console.tui.runtime.exit_guard import ExitGuard

    guard = ExitGuard()  # from here on SIGHUP and SIGTERM end the process within 2 s, whatever it is doing
    guard.install()
    from stablepay_console.tui.runtime.web_mode import end_with_the_server

    end_with_the_server()
    # The collector stays off until the inbox shows (`tui.app.started_memory` turns it on): its passes over what the
    # imports and the first page make cost the start its first rows' time (benchmarks/README.md, "The start-time
    # tricks").
    gc.disable()
    from stablepay_console.cli.logs import setup_logging
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.tui.runtime.boot import built_in_start

    setup_logging()
    built_in = built_in_start(getattr(args, "profile", None))
    if built_in is not None:
        # A built-in profile always has its key: paint the first frame now, build the services behind it.
        from stablepay_console.cli.session import services_for

        app = ConsoleApp(built_in, lambda: services_for(args), radar=True, freeze_after_start=True)
    else:
        started = start_profile(args)  # a configured profile's key is checked before the UI
        if started is None:
            return 2
        app = ConsoleApp(*started, radar=True, freeze_after_start=True)
    app.exit_guard = guard
    app.run()
    if guard.signal is not None:
        left_on_signal(guard)
    guard.finish()
    return app.return_code or 0


def left_on_signal(guard: ExitGuard) -> NoReturn:
    """After SIGHUP or SIGTERM: flush the record (bounded), say what was not saved, and end now.

    Ending here rather than returning skips the interpreter's wait for worker threads (one may be
    in a network call with 30 s left) and for the record's atexit drain, already done by finish()."""
    import logging
    import os

    guard.tell(guard.finish())
    logging.shutdown()
    os._exit(guard.code)
