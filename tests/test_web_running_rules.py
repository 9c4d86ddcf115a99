"""The running consoles' rules (web/running.py), in the test process, on real `ConsoleProcess` objects that are
never started (no process runs: what is checked is what the server keeps of them).

- the caps: the total and the one per user, each refused at its figure and not one below, in the words a tab
  shows; other users' consoles do not count against one's own cap;
- a console a page started waits for its own sign-in only, is claimed once (with the event that ends it), is
  let go when it ends, and is taken back (unclaimed) only while no tab has it;
- the size a page's console first draws at: the sign-in's last tab's, else the last any tab had, else 80x24;
- idle consoles (and only they) are ended, by `watch_idle` too, with a line in the access log; `end_all` ends
  every one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time

import pytest

from stablepay_console.web.consoles import ConsoleProcess, console_command
from stablepay_console.web.running import DEFAULT_SIZE, Consoles
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import SignIn
from tests.conftest import settles

SETTINGS = WebSettings(max_sessions=5, max_sessions_per_user=2, idle_seconds=60.0)


def console(user: str | None = None, settings: WebSettings = SETTINGS) -> ConsoleProcess:
    """A console as the server makes it (never started); handed to `user` if one is named."""
    process = ConsoleProcess(console_command(), download_manager=None, settings=settings, team=False)
    if user is not None:
        process.signin = SignIn(f"id-of-{user}-{process.app_service_id}", user, "token")
    return process


def signin(user: str, name: str = "") -> SignIn:
    return SignIn(f"signin-{user}-{name}", user, "token")


# --- the caps --------------------------------------------------------------------------------------------------


async def test_the_per_user_cap_refuses_at_its_figure_and_counts_that_users_consoles_only() -> None:
    consoles = Consoles(SETTINGS)
    assert consoles.refusal("alice") is None
    consoles.add(console("alice"))
    assert consoles.refusal("alice") is None, "refused one below the per-user cap"
    consoles.add(console("bob"))
    assert consoles.refusal("alice") is None, "another user's console counted against alice's cap"
    consoles.add(console("alice"))
    assert consoles.refusal("alice") == "you have 2 consoles open, the limit per user; close a tab first"
    assert consoles.refusal("bob") is None


async def test_the_total_cap_refuses_everyone_at_its_figure_and_not_one_below() -> None:
    consoles = Consoles(dataclasses.replace(SETTINGS, max_sessions=3, max_sessions_per_user=10))
    for user in ("alice", "bob"):
        consoles.add(console(user))
    assert consoles.refusal("carol") is None, "refused one below the total cap"
    consoles.add(console("bob"))
    said = "the server runs its limit of 3 consoles; try again later"
    assert consoles.refusal("carol") == said and consoles.refusal("alice") == said


async def test_a_console_that_ends_no_longer_counts() -> None:
    consoles = Consoles(SETTINGS)
    first, second = console("alice"), console("alice")
    consoles.add(first)
    consoles.add(second)
    assert consoles.refusal("alice") is not None
    consoles.remove(first)
    assert consoles.refusal("alice") is None and list(consoles.running) == [second.app_service_id]
    consoles.remove(first)  # twice: nothing more happens
    assert list(consoles.running) == [second.app_service_id]


# --- the console a page started ----------------------------------------------------------------------------------


async def test_a_page_console_goes_to_its_own_sign_in_once_with_the_event_that_ends_it() -> None:
    consoles = Consoles(SETTINGS)
    alice, bob = signin("alice"), signin("bob")
    process = console("alice")
    ended = consoles.add(process)
    consoles.hold_for(alice, process)
    assert consoles.waits_for(alice) and not consoles.waits_for(bob)
    assert consoles.claim(bob) is None, "another sign-in's tab got alice's console"
    claimed = consoles.claim(alice)
    assert claimed is not None and claimed[0] is process and claimed[1] is ended
    assert not consoles.waits_for(alice) and consoles.claim(alice) is None, "claimed twice"
    assert consoles.unclaim(process) is False, "taken back from the tab that has it"
    assert process.app_service_id in consoles.running


async def test_a_page_console_that_ended_before_its_tab_came_is_not_given() -> None:
    consoles = Consoles(SETTINGS)
    alice = signin("alice")
    process = console("alice")
    consoles.add(process)
    consoles.hold_for(alice, process)
    consoles.running.clear()  # as if it ended without its waiting entry being taken back
    assert consoles.claim(alice) is None and not consoles.waits_for(alice)


async def test_a_page_console_that_ends_stops_waiting_and_only_it_is_taken_back() -> None:
    consoles = Consoles(SETTINGS)
    alice, bob = signin("alice"), signin("bob")
    hers, his = console("alice"), console("bob")
    consoles.add(hers)
    consoles.add(his)
    consoles.hold_for(alice, hers)
    consoles.hold_for(bob, his)
    assert consoles.unclaim(console("alice")) is False, "a console nobody held was taken back"
    assert consoles.waits_for(alice) and consoles.waits_for(bob)
    consoles.remove(hers)
    assert not consoles.waits_for(alice) and consoles.waits_for(bob)
    assert consoles.unclaim(his) is True and not consoles.waits_for(bob)
    assert consoles.unclaim(his) is False


async def test_the_size_a_page_console_first_draws_at() -> None:
    consoles = Consoles(SETTINGS)
    alice, bob = signin("alice"), signin("bob")
    assert consoles.size_guess(alice) == DEFAULT_SIZE == (80, 24)
    consoles.note_size(alice, (120, 40))
    assert alice.terminal_size == (120, 40)
    assert consoles.size_guess(alice) == (120, 40)
    assert consoles.size_guess(bob) == (120, 40), "not the last size any tab had"
    consoles.note_size(bob, (100, 30))
    assert consoles.size_guess(alice) == (120, 40), "not this sign-in's own last size"
    assert consoles.size_guess(signin("carol")) == (100, 30)


# --- ending ------------------------------------------------------------------------------------------------------


async def test_only_idle_consoles_are_idle_and_ending_one_ends_it_alone() -> None:
    consoles = Consoles(SETTINGS)
    busy, idle = console("alice"), console("bob")
    busy_ended, idle_ended = consoles.add(busy), consoles.add(idle)
    idle.last_active = time.monotonic() - 61.0
    busy.last_active = time.monotonic() - 30.0
    assert consoles.idle() == [idle]
    consoles.end(idle)
    assert idle_ended.is_set() and not busy_ended.is_set()
    consoles.end(console("carol"))  # not running: nothing happens
    assert not busy_ended.is_set()
    consoles.end_all()
    assert busy_ended.is_set()


async def test_watch_idle_ends_an_idle_console_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    consoles = Consoles(dataclasses.replace(SETTINGS, idle_seconds=0.2))
    idle, busy = console("alice"), console("bob")
    idle_ended, busy_ended = consoles.add(idle), consoles.add(busy)
    idle.last_active = time.monotonic() - 3600.0
    busy.last_active = time.monotonic() + 3600.0  # in use now, however late the watch gets to look

    watching = asyncio.create_task(consoles.watch_idle())
    try:
        with caplog.at_level(logging.INFO, logger="stablepay_console.web.access"):
            await settles(idle_ended.is_set, "watch_idle never ended the idle console")
        assert not busy_ended.is_set()
        assert f"session idle user=alice console={idle.app_service_id[:8]}" in caplog.messages
    finally:
        watching.cancel()
