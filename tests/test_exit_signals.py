"""An exit signal that comes while keys are still queued: the console leaves without building the screens those
keys asked for (on a busy machine, five queued screen switches kept the event loop from the signal's request to
leave past the guard's 1.2 s, and the guard had to end the process: tests/test_terminal_close.py, while switching
screens)."""

from __future__ import annotations

import signal
import threading

from stablepay_console.tui.runtime.exit_guard import ExitGuard
from tests.conftest import until, wait_for_workers


async def test_keys_typed_before_a_signal_switch_no_screen_once_it_came(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(ping_on_start=False)
    app.exit_guard = ExitGuard()  # not installed: the test stands in for its handler below
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("2")
        await until(pilot, lambda: app.current_mode == "batch", "a digit switches screens before any signal")
        app.exit_guard.signal = signal.SIGHUP  # what the handler sets first, before it asks the loop to leave
        assert app.leaving
        await pilot.press("3", "1")
        await pilot.pause()
        assert app.current_mode == "batch", "a screen was built after the signal came"
        assert "quote" not in app._screen_stacks or not app._screen_stacks["quote"], "the quote screen was built"


async def test_without_a_signal_the_console_is_not_leaving(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(ping_on_start=False)
    app.exit_guard = ExitGuard()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        assert not app.leaving
        await pilot.press("3")
        await until(pilot, lambda: app.current_mode == "quote", "a digit switches screens")


# --- the guard's deadline --------------------------------------------------------------------------------------------


class Guarded:
    """An ExitGuard whose watch runs (its thread started, no handler installed) and whose end is recorded."""

    def __init__(self, grace: float, leaving: float) -> None:
        self.ended = threading.Event()
        self.codes: list[int] = []
        self.guard = ExitGuard(lambda seconds: 0, grace=grace, leaving=leaving, end=self._end)
        self.guard._thread.start()

    def _end(self, code: int) -> None:
        self.codes.append(code)
        self.ended.set()

    def signal(self) -> None:
        self.guard._handle(signal.SIGHUP, None)  # as the kernel's SIGHUP would call it


def test_a_console_that_never_begins_to_leave_is_ended_after_the_grace() -> None:
    run = Guarded(grace=0.2, leaving=30.0)
    run.signal()
    assert run.ended.wait(10), "the guard never ended a console that did not leave"
    assert run.codes == [128 + signal.SIGHUP]


def test_a_console_that_has_begun_to_leave_gets_longer_and_is_not_ended_once_it_left() -> None:
    run = Guarded(grace=0.2, leaving=30.0)
    run.signal()
    run.guard.leaving()  # its event loop took the request to leave
    assert not run.ended.wait(1.0), "ended at the first grace although the console was leaving"
    run.guard.finish()  # it left by itself
    run.guard._thread.join(10)
    assert not run.guard._thread.is_alive() and not run.ended.is_set()


def test_a_console_stuck_while_leaving_is_still_ended() -> None:
    run = Guarded(grace=0.1, leaving=0.3)
    run.signal()
    run.guard.leaving()
    assert run.ended.wait(10), "a console that began to leave and never finished was left running"
    assert run.codes == [128 + signal.SIGHUP]
