"""Shared fixtures: a fixed clock, sandboxes, clients, an isolated config dir, a canary key."""

from __future__ import annotations

import functools
import gc
import os
import pickle
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import keyring
import pytest
from keyring.backend import KeyringBackend
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from stablepay_console.api import StablePayClient
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox import app as sandbox_app
from stablepay_console.sandbox.data import SandboxData
from tests.ci import in_ci

pytest_plugins = [
    "tests.leftovers",  # the run fails if it leaves a console process behind
    "tests.small_disk",  # the small_disk fixture: a real tmpfs for the full-disk tests
    "tests.postgres",  # pg_server, team_db: a real PostgreSQL for the team record's tests
]

FIXED_NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
"""The instant every test treats as now, so countdowns and snapshots are stable."""

CANARY_KEY = "sk_canary_7c1e9b0f4d2a4e8bb5f3c6d9a1e0f2b4"
"""A key whose every appearance in output, files or snapshots is a leak."""


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend, so no test touches the user's real keyring."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


@pytest.fixture(autouse=True)
def isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config/data/log directory, no key and no forward proxy in the environment."""
    path = tmp_path / "config"
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(path))
    monkeypatch.delenv("STABLEPAY_API_KEY", raising=False)
    monkeypatch.delenv("STABLEPAY_PROFILE", raising=False)
    monkeypatch.delenv("STABLEPAY_RECORD_URL", raising=False)  # the local record unless a test sets a team's
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):  # direct to loopback unless a test says
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return path


@pytest.fixture(autouse=True)
def no_log_file_left() -> Iterator[None]:
    """A command run in the test process logs to its test's folder; the next test does not inherit that handler
    (and its privacy filter, which rewrites each record before `caplog` reads it)."""
    yield
    from stablepay_console.cli.logs import stop_logging

    stop_logging()


@pytest.fixture
def term_env(isolated_config: Path) -> dict[str, str]:
    """The environment of a console started in tmux: its own config folder, a keyring that holds nothing."""
    return {
        "STABLEPAY_CONFIG_DIR": str(isolated_config),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """An in-memory keyring for every test (the secret_service tests swap in the real one)."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


# --- running the suite ------------------------------------------------------------------------------------------


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the default, see pyproject.toml): three workers per CPU, at most 16.

    Much of a Textual test is waiting (for the screen to go idle, for a subprocess, for a retry against a
    closed port), so one worker per CPU leaves CPUs idle. On 2 cores, back to back on the same code, four
    workers left the CPUs idle 58 to 78 s of a 235 to 241 s run, six 29 to 30 s of 218 to 223 s (eight: 15 s
    of 217 s). PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set (None: xdist reads it).
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(2, min(3 * cpus, 16))


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """As the workers start, what every test process would otherwise make for itself, made once:

    - Hypothesis's table of the characters `st.text()` draws from. In a fresh clone each worker would build
      it on its first text strategy (a loop over every code point, seconds of CPU), all four at once; once
      written under `.hypothesis/` every worker reads it instead.
    - The console's own bytecode (`_package_bytecode`).

    The controller makes them beside the workers' start (a few seconds of CPU, while they import and collect
    for longer than that), not before it; without workers, before the tests. After Hypothesis's own session start
    (`trylast`): before it, Hypothesis warns of storage read while plugins initialise."""
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller makes it
        return
    if getattr(config.option, "numprocesses", None):
        threading.Thread(target=_made_once, name="made-once", daemon=True).start()
    else:
        _made_once()


def _made_once() -> None:
    _package_bytecode()
    _hypothesis_tables()


def _package_bytecode() -> None:
    """The installed console's modules compiled to `__pycache__` once, for every process the tests start.

    The package is installed editable, so its bytecode is written only by an import that may write it; with
    PYTHONDONTWRITEBYTECODE set (as on the CI box) none may, and each of the hundreds of consoles the suite
    starts (the commands, tmux, the web mode's sessions) compiled the whole package again: about 0.1 s of
    CPU each. `compileall` writes the files whatever that setting says, each atomically, and skips those
    already current; a process that imports a module before its file is written compiles it as before. In a
    read-only checkout it writes nothing and says nothing (`quiet=2`), and every process compiles for itself."""
    import compileall

    import stablepay_console

    compileall.compile_dir(Path(stablepay_console.__file__).parent, quiet=2)


def _hypothesis_tables() -> None:
    try:
        from hypothesis.internal.charmap import charmap, intervals_from_codec

        charmap()
        intervals_from_codec("utf-8")
    except Exception:  # a Hypothesis without these internals builds its tables as it needs them
        pass


def _hypothesis_without_speed_checks() -> None:
    """No Hypothesis test fails for being slow: on a busy machine its health check ("input generation is slow")
    and its per-example deadline failed whole runs that passed alone, and neither is a rule of the console. Every
    `@settings` of a test inherits this profile for what it does not set itself."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("stablepay", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("stablepay")


_hypothesis_without_speed_checks()


GC_THRESHOLD = (10_000, 10, 10)
"""The cyclic garbage collector's thresholds in a test process (Python's default starts at 700 allocations).

A Textual test allocates widgets, styles and strips by the hundred thousand. With the default thresholds a
test process spent about a fifth of its CPU in the collector, mostly in full collections that walked
every object of the process (the imported modules, the collected tests) again and again: measured on
tests/test_bad_input.py, 17 of 78 s of CPU. Garbage is still collected, only in fewer, larger passes."""

gc.set_threshold(*GC_THRESHOLD)


LONG_POLES = (
    "tests/test_benchmarks_smoke.py::test_quick_run_prints_every_figure",
    "tests/test_layout_sizes.py::test_every_screen_keeps_banner_help_quit_and_its_widgets_on_screen",
    "tests/test_benchmarks_smoke.py",
    "tests/test_web_triage.py",
    "tests/test_hostile_screens.py::test_every_screen_modal_and_notification_draws_hostile_text_escaped",
    "tests/test_sandbox_invariants.py::test_fifty_thousand_rfis_obey_the_specs_rules",
    "tests/test_fuzz.py::test_render_fuzz",
    "tests/test_team_screen_terminal.py",
    "tests/test_triage_two_consoles.py",
    "tests/test_web_",
    "tests/test_sanitize.py::test_across_the_whole_unicode_range",
    "tests/test_ping_paths.py",
    "tests/test_fuzz.py",
    "tests/test_webhook_e2e.py",
)
"""Tests that each take from 15 s to over 2 minutes of a loaded 2-core run, longest first (prefixes of test
ids). They run before the rest: the tests are handed to the workers one at a time in this order
(`--dist load --maxschedchunk 1` in pyproject.toml), so the long ones start at once on every worker and the
short ones fill the gaps, instead of one long test starting last and running alone at the end."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    def pole(item: pytest.Item) -> int:
        return next((rank for rank, prefix in enumerate(LONG_POLES) if item.nodeid.startswith(prefix)),
                    len(LONG_POLES))

    items.sort(key=pole)  # stable: within a rank, and for every other test, the order collected


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, what exists now (modules, test items, parameters) lives to the end:
    frozen, the collector stops walking it on every full collection."""
    gc.collect()
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A whole-suite or CI run that collected nothing is a failure, not exit 5 ("no tests ran")."""
    if exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED:
        return
    whole_suite = session.config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if whole_suite or in_ci():
        session.config.get_terminal_writer().line(
            "stablepay-console: the run collected no tests; the whole suite (or CI) must run some.", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# --- sandboxes ---------------------------------------------------------------------------------------------------


@functools.cache
def _pickled_world(seed: int, rfi_count: int, now: datetime, frozen: bool) -> bytes:
    return pickle.dumps(SandboxData(seed=seed, rfi_count=rfi_count, now=now, frozen=frozen))


def _world_copy(*, seed: int = 7, rfi_count: int = 240, now: datetime | None = None, frozen: bool = False) -> Any:
    """A fresh copy of the world the sandbox would generate: generated once per process, copied per test."""
    if now is None:  # the wall clock's world differs each time: nothing to share
        return SandboxData(seed=seed, rfi_count=rfi_count, frozen=frozen)
    return pickle.loads(_pickled_world(seed, rfi_count, now, frozen))


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The default sandbox world at the fixed instant: each test its own, free to change it.

    Generating the world costs tens of milliseconds in every test that uses it; a copy of the world
    generated once costs one. The copy is the same data, and only this test's sandbox holds it.
    """
    with monkeypatch.context() as patch:
        patch.setattr(sandbox_app, "SandboxData", _world_copy)
        return Sandbox(now=FIXED_NOW)


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[StablePayClient]:
    """A client talking to the sandbox in-process."""
    async with StablePayClient(
        "http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app)
    ) as c:
        yield c


async def wait_for_workers(pilot: Pilot[object], rounds: int = 3) -> None:
    """Let every worker finish and the screen repaint."""
    app: App[object] = pilot.app
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Pilot[Any], done: Callable[[], bool], what: str = "the console never got there",
                rounds: int = 500) -> None:
    """Poll the running console until `done()` holds; fail, saying `what`, after `rounds` pauses."""
    for _ in range(rounds):
        if done():
            return
        await pilot.pause()
    raise AssertionError(what)


async def settles(done: Callable[[], bool], what: str, rounds: int = 500) -> None:
    """Without a console: let the event loop run (10 ms a round) until `done()` holds; fail, saying `what`, after
    `rounds` rounds."""
    import asyncio

    for _ in range(rounds):
        if done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


async def open_mode(pilot: Pilot[Any], mode: str) -> Screen[Any]:
    """Switch to a top-level screen, let it load, and stop its text cursors blinking (stable snapshots)."""
    await wait_for_workers(pilot)
    await pilot.app.switch_mode(mode)
    await wait_for_workers(pilot)
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    return pilot.app.screen


async def submit_id(pilot: Pilot[Any], value: str) -> Screen[Any]:
    """Type `value` into the screen's ID entry and press Enter, as a person would."""
    screen = pilot.app.screen
    entry = screen.entry  # type: ignore[attr-defined]
    entry.input.focus()
    await pilot.pause()  # focused first (what the field held is selected then), as `/` or Enter does, then typed
    entry.input.value = value
    await pilot.press("enter")
    await wait_for_workers(pilot)
    return screen


def no_canary_in(text: str) -> bool:
    return CANARY_KEY not in text and CANARY_KEY[-12:] not in text


os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def make_app(sandbox: Sandbox):  # type: ignore[no-untyped-def]
    """Build a ConsoleApp on the embedded profile, backed by the test's sandbox, at FIXED_NOW.

    `opens_on="batch"` (any top-level screen): the console starts there instead of on the inbox
    (tests/opened_on.py), for a test about that screen."""
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.wiring import Services
    from tests.opened_on import OpenedOn

    def build(opens_on: str | None = None, **kwargs: object) -> ConsoleApp:
        kwargs.setdefault("clock", lambda: FIXED_NOW)
        kwargs.setdefault("inbox_page_size", 20)  # tests count rows: a fixed page, not the table's height
        services = Services(sandbox=sandbox)
        if opens_on is not None:
            return OpenedOn(opens_on, EMBEDDED_PROFILE, services, **kwargs)  # type: ignore[arg-type]
        return ConsoleApp(EMBEDDED_PROFILE, services, **kwargs)  # type: ignore[arg-type]

    return build
