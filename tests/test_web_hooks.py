"""The web mode leans on textual-serve's internals through one thin subclass each (`ConsoleServer`, `ConsoleProcess`)
and one module setting. Each hook it overrides or sets is checked here against the installed textual-serve: a
release that renames one, changes its arguments, or stops calling it fails this file, not a user's browser."""

from __future__ import annotations

import inspect

import pytest
from textual_serve import app_service, download_manager, server

from stablepay_console.web.consoles import ConsoleProcess
from stablepay_console.web.server import ConsoleServer

OVERRIDDEN = [
    (server.Server, ConsoleServer, "_make_app"),
    (server.Server, ConsoleServer, "handle_index"),
    (server.Server, ConsoleServer, "handle_websocket"),
    (server.Server, ConsoleServer, "_process_messages"),
    (server.Server, ConsoleServer, "handle_download"),
    (server.Server, ConsoleServer, "initialize_logging"),
    (server.Server, ConsoleServer, "on_startup"),
    (server.Server, ConsoleServer, "on_shutdown"),
    (server.Server, ConsoleServer, "serve"),
    (app_service.AppService, ConsoleProcess, "_build_environment"),
    (app_service.AppService, ConsoleProcess, "_open_app_process"),
    (app_service.AppService, ConsoleProcess, "on_meta"),
    (app_service.AppService, ConsoleProcess, "run"),
    (app_service.AppService, ConsoleProcess, "send_bytes"),
    (app_service.AppService, ConsoleProcess, "set_terminal_size"),
    (app_service.AppService, ConsoleProcess, "stop"),
]


@pytest.mark.parametrize(("base", "ours", "name"), OVERRIDDEN, ids=[f"{b.__name__}.{n}" for b, _, n in OVERRIDDEN])
def test_each_overridden_hook_is_still_textual_serves_with_the_same_arguments(
    base: type, ours: type, name: str
) -> None:
    theirs, mine = getattr(base, name, None), getattr(ours, name)
    assert theirs is not None, f"textual-serve no longer has {base.__name__}.{name}: our override is never called"
    assert inspect.iscoroutinefunction(theirs) == inspect.iscoroutinefunction(mine), name
    assert list(inspect.signature(theirs).parameters) == list(inspect.signature(mine).parameters), name


def test_the_hooks_our_process_replaces_are_the_ones_textual_serve_calls() -> None:
    """`_open_app_process` is where the console starts, `_build_environment` what it gets; textual-serve's own
    `run` and `start` must still call them, and its writes must still go through `_stdin` (which ours sets)."""
    calls = inspect.getsource(app_service.AppService)
    assert "self._open_app_process(" in calls and "self._build_environment(" in calls
    assert "self._stdin" in calls and "self._process" in calls


def test_the_download_timeout_we_set_is_the_one_the_download_manager_reads() -> None:
    assert "DOWNLOAD_TIMEOUT" in inspect.getsource(download_manager).split("DOWNLOAD_TIMEOUT =", 1)[1]
    assert download_manager.DOWNLOAD_TIMEOUT == 30, "web/server.py sets it when imported"
