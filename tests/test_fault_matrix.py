"""The fault matrix: every screen that calls the API, against the faults.

Where the rule lives, every fault against every request a screen makes, in the test process without a console:
the client raises the fault as an error whose words the screens show, a GET is retried within the client's
bound (without the waits) and the POST quote refresh is sent exactly once, the screens' one result state keeps
the last good result as stale under those words, and the rotation wizard keeps or drops the pasted key.

On the screens, a console each: every fault on the inbox, and one or two faults on each other screen (a
retried and a refused GET, the POST in flight, a refused key on each /ping). For each (screen, fault):
something good is on screen and the user has typed something; the fault is switched on and the screen's request
is made; the screen names what failed, keeps what it showed and what was typed, answers a key press, and the
same request succeeds once the fault is gone.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static
from textual.worker import WorkerState

from stablepay_console.api import ApiKey, StablePayClient, default_retry
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.model import EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Step
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import (
    BATCH_50_ID,
    BATCH_SMALL_ID,
    METRIC_DAILY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_OPEN_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
)
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW, wait_for_workers
from tests.held_latency import hold_latency

SIZE = (120, 40)
TEAM_URL = "https://api.sandbox.stablepay.test"
NEW_KEY = "sk_sandbox_fault_matrix_new_key_00000000ab"
LATENCY = 25.0
"""Surely still in flight while a key is handled on a busy machine (the test ends it right after), under the
client's 30 s deadline."""

FAST_RETRY = default_retry().copy_with(backoff_factor=0.0, max_backoff_wait=0.001)
"""The console's own retry bound (attempts, methods, statuses), without the waits between attempts."""
RETRY_BOUND = 1 + FAST_RETRY.total
"""Attempts a retryable GET makes before the screen hears of the failure."""


async def settle(pilot: Pilot[Any]) -> None:
    """Every worker done and the screen repainted."""
    await wait_for_workers(pilot, rounds=1)


class Outage(httpx.AsyncBaseTransport):
    """Passes requests to the in-process sandbox; while `failure` is set, raises it instead (no response)."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.inner = httpx.ASGITransport(app=sandbox.app)
        self.failure: type[httpx.TransportError] | None = None
        self.sent: list[tuple[str, str]] = []
        """(method, path) of every attempt, answered or not."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path))
        if self.failure is not None:
            raise self.failure("simulated network failure", request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Shared by every client of the run: closing one client must not close it."""


class FaultConnector(Services):
    """Every profile's client goes through the outage transport, with the fast retry policy."""

    def __init__(self, sandbox: Sandbox, outage: Outage, book: ProfileBook) -> None:
        super().__init__(sandbox=sandbox, book=book)
        self.outage = outage

    def client_with(self, profile: Profile, key: ApiKey, on_rfis: Any = None) -> StablePayClient:
        return StablePayClient(profile.base_url, key, transport=self.outage, retry=FAST_RETRY, on_rfis=on_rfis)


@dataclass
class Wire:
    """The sandbox and the transport between it and the console's clients."""

    sandbox: Sandbox
    outage: Outage


@dataclass
class World(Wire):
    app: MatrixApp


# --- the faults --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fault:
    name: str
    says: tuple[str, ...]
    """What the message must contain (the kind of failure and the server's or the client's words)."""
    retried: bool
    """Whether a GET is retried on it (up to the bound)."""
    key: str = SANDBOX_KEY

    def start(self, world: World | Wire, key: str) -> None:
        faults = world.sandbox.faults
        if self.name == "latency":
            faults.latency = LATENCY
        elif self.name == "connect_refused":
            world.outage.failure = httpx.ConnectError
        elif self.name == "read_timeout":
            world.outage.failure = httpx.ReadTimeout
        elif self.name == "key_deleted":
            world.sandbox.state.keys.pop(key)
        else:
            faults.force = self.name
            # A 429 says when to try again: now. The retries are counted, not waited for (the wait itself is
            # `test_client_http.py`'s `test_rate_limit_over_http_honours_retry_after`).
            faults.retry_after = 0

    def stop(self, world: World | Wire, key: str) -> None:
        world.sandbox.faults.clear()
        world.outage.failure = None
        if self.name == "key_deleted":
            world.sandbox.add_key(key, "restored")

    @property
    def is_failure(self) -> bool:
        return self.name != "latency"


FAULTS = [
    Fault("latency", (), retried=False),
    Fault("500", ("Server error", "Simulated internal failure"), retried=False),
    Fault("429", ("Too many requests", "Rate limit reached"), retried=True),
    Fault("502_html", ("Unreadable response", "HTTP 502", "not valid JSON (text/html)"), retried=True),
    Fault("invalid_json", ("Unreadable response", "not valid JSON"), retried=False),
    Fault("truncated", ("Unreadable response", "not valid JSON"), retried=False),
    Fault("connect_refused", ("Network error", "could not connect"), retried=True),
    Fault("read_timeout", ("Network error", "did not answer in time"), retried=True),
    Fault("key_deleted", ("Not authorized",), retried=False),
]


# --- the screens ---------------------------------------------------------------------------------------------------


def static_text(app: App[Any], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def input_value(app: App[Any], selector: str) -> str:
    return app.screen.query_one(selector, Input).value


def table_rows(app: App[Any], selector: str) -> list[list[str]]:
    table: DataTable[Any] = app.screen.query_one(selector, DataTable)
    return [[str(c).strip() for c in table.get_row_at(n)] for n in range(table.row_count)]


def row_keys(app: App[Any], selector: str) -> list[str]:
    table: DataTable[Any] = app.screen.query_one(selector, DataTable)
    return [str(row.key.value) for row in table.ordered_rows]


def columns(app: App[Any], selector: str) -> list[str]:
    table: DataTable[Any] = app.screen.query_one(selector, DataTable)
    return [str(column.label) for column in table.columns.values()]


def fields(app: App[Any], selector: str) -> dict[str, str]:
    return {row[0]: row[1] for row in table_rows(app, selector)}


def banner(app: App[Any]) -> str:
    return str(app.screen.query_one("EnvironmentBanner").render())


async def enter_in(pilot: Pilot[Any], selector: str, value: str | None = None) -> None:
    field = pilot.app.screen.query_one(selector, Input)
    field.cursor_blink = False
    field.focus()
    if value is not None:
        field.value = value
    await pilot.press("enter")


async def probe_input(pilot: Pilot[Any], selector: str) -> None:
    """Home moves the cursor of the ID field: its keys are handled."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    await pilot.press("home")
    assert field.cursor_position == 0, "Home was not handled"


FAILURE_WORDS = ("error", "Not authorized", "Unreadable", "Too many requests", "Still showing", "could not", "refused",
                 "✗")
"""What a screen's message says while its request has failed (the matrix checks each failure says one)."""


class Surface:
    """One screen's part in the matrix. Subclasses drive it; `method` and `path` name its request."""

    name = ""
    mode = "inbox"
    """The screen the console opens on."""
    method = "GET"
    path = ""
    key = SANDBOX_KEY
    """The key whose deletion the "key deleted" fault simulates."""
    rfis = 60
    """The sandbox's requests."""
    prefetched = 0
    """Requests to the same path the screen makes on its own once the asked one has loaded."""

    async def prepare(self, pilot: Pilot[Any]) -> None:
        """Show something good, then type something not yet sent."""

    async def trigger(self, pilot: Pilot[Any]) -> None:
        """Make the screen's request (without waiting for it)."""

    async def retry(self, pilot: Pilot[Any]) -> None:
        """The user's next try."""
        await self.trigger(pilot)

    def message(self, app: ConsoleApp) -> str:
        return ""

    async def probe(self, pilot: Pilot[Any]) -> None:
        """Press a key whose effect is visible at once (and harmless to the next try)."""
        before = pilot.app.focused
        await pilot.press("tab")
        assert pilot.app.focused is not before, "Tab was not handled"

    def kept(self, app: ConsoleApp) -> None:
        """What was shown and what was typed are still there."""

    def recovered(self, app: ConsoleApp) -> None:
        """The request succeeded and its result is shown."""

    def no_error(self, app: ConsoleApp) -> None:
        """Once the request succeeded, nothing on the screen still speaks of a failure."""
        message = self.message(app)
        said = [word for word in FAILURE_WORDS if word.casefold() in message.casefold()]
        assert not said, f"{said} still shown after the request succeeded: {message!r}"


class InboxSurface(Surface):
    name = "inbox"
    path = "/v2/rfis"
    rfis = 100
    """Five pages of 20: the last is not among the two pages prefetched after the first."""
    prefetched = 1
    """Once the last page has loaded, the page before it is prefetched."""

    async def prepare(self, pilot: Pilot[Any]) -> None:
        app = pilot.app
        self.page_one = row_keys(app, "#inbox-table")
        assert len(self.page_one) == 20
        app.screen.query_one("#filter-user", Input).value = "6f1c2a10-5b7e"  # half-typed, not applied
        app.screen.query_one("#inbox-table").focus()

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await pilot.press("G")  # the last page: not among the pages prefetched after page 1

    def message(self, app: ConsoleApp) -> str:
        return static_text(app, "#inbox-error") if app.screen.query_one("#inbox-error").display else ""

    async def probe(self, pilot: Pilot[Any]) -> None:
        table: DataTable[Any] = pilot.app.screen.query_one("#inbox-table", DataTable)
        await pilot.press("down")
        assert table.cursor_row == 1, "Down was not handled"

    def kept(self, app: ConsoleApp) -> None:
        assert row_keys(app, "#inbox-table") == self.page_one
        assert "Page 1 of" in static_text(app, "#inbox-status")
        assert input_value(app, "#filter-user") == "6f1c2a10-5b7e"
        assert "Still showing" in self.message(app)

    def recovered(self, app: ConsoleApp) -> None:
        assert "Page 5 of" in static_text(app, "#inbox-status")
        assert row_keys(app, "#inbox-table") != self.page_one
        assert input_value(app, "#filter-user") == "6f1c2a10-5b7e"
        assert not app.screen.query_one("#inbox-error").display


class BatchSurface(Surface):
    name = "batch"
    mode = "batch"
    path = f"/v2/wallets/transfers/batches/{BATCH_50_ID}"

    async def prepare(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#id-input", BATCH_SMALL_ID)
        await settle(pilot)
        assert fields(pilot.app, "#batch-fields")["Transfer ID"] == BATCH_SMALL_ID
        pilot.app.screen.query_one("#id-input", Input).value = BATCH_50_ID

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#id-input")

    def message(self, app: ConsoleApp) -> str:
        return static_text(app, "#batch-status")

    async def probe(self, pilot: Pilot[Any]) -> None:
        await probe_input(pilot, "#id-input")

    def kept(self, app: ConsoleApp) -> None:
        assert fields(app, "#batch-fields")["Transfer ID"] == BATCH_SMALL_ID
        assert len(table_rows(app, "#batch-recipients")) == 3
        assert input_value(app, "#id-input") == BATCH_50_ID
        assert f"Still showing transfer {BATCH_SMALL_ID}" in self.message(app)

    def recovered(self, app: ConsoleApp) -> None:
        assert fields(app, "#batch-fields")["Transfer ID"] == BATCH_50_ID
        assert len(table_rows(app, "#batch-recipients")) == 50
        assert self.message(app).startswith(f"From transfer {BATCH_50_ID} · profile embedded (sandbox)")


class QuoteSurface(Surface):
    name = "quote"
    mode = "quote"
    method = "POST"
    path = f"/v2/onramps/{ONRAMP_OPEN_NO_EXPIRY_ID}/quote/refresh"

    async def prepare(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#id-input", ONRAMP_OPEN_ID)
        await settle(pilot)
        assert ONRAMP_OPEN_ID in static_text(pilot.app, "#quote-heading")
        self.quote = table_rows(pilot.app, "#quote-table")
        pilot.app.screen.query_one("#id-input", Input).value = ONRAMP_OPEN_NO_EXPIRY_ID

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#id-input")

    def message(self, app: ConsoleApp) -> str:
        return static_text(app, "#quote-message")

    async def probe(self, pilot: Pilot[Any]) -> None:
        await probe_input(pilot, "#id-input")

    def kept(self, app: ConsoleApp) -> None:
        assert ONRAMP_OPEN_ID in static_text(app, "#quote-heading")
        assert table_rows(app, "#quote-table") == self.quote
        assert input_value(app, "#id-input") == ONRAMP_OPEN_NO_EXPIRY_ID
        assert f"Still showing onramp {ONRAMP_OPEN_ID}" in self.message(app)
        # Only a refusal of the onramp's state explains itself with the OPEN_QUOTE rule.
        assert "Only an onramp in status" not in self.message(app)

    def recovered(self, app: ConsoleApp) -> None:
        assert ONRAMP_OPEN_NO_EXPIRY_ID in static_text(app, "#quote-heading")
        assert "No expiry" in static_text(app, "#quote-expiry")
        assert self.message(app).startswith("From onramp ") and "Quote refreshed once" in self.message(app)


class MetricsSurface(Surface):
    name = "metrics"
    mode = "metrics"
    path = f"/v2/reporting/metrics/{METRIC_TX_COUNT_ID}/results"

    async def prepare(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#metric-id", METRIC_DAILY_VOLUME_ID)
        await settle(pilot)
        self.columns = columns(pilot.app, "#metric-table")
        assert "grossVolume" in self.columns
        self.rows = len(table_rows(pilot.app, "#metric-table"))
        pilot.app.screen.query_one("#metric-id", Input).value = METRIC_TX_COUNT_ID

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#metric-id")

    def message(self, app: ConsoleApp) -> str:
        return static_text(app, "#metric-status")

    async def probe(self, pilot: Pilot[Any]) -> None:
        await probe_input(pilot, "#metric-id")

    def kept(self, app: ConsoleApp) -> None:
        assert columns(app, "#metric-table") == self.columns
        assert len(table_rows(app, "#metric-table")) == self.rows
        assert app.screen.query_one("#metric-chart").display
        assert input_value(app, "#metric-id") == METRIC_TX_COUNT_ID
        assert f"Still showing metric {METRIC_DAILY_VOLUME_ID}" in self.message(app)

    def recovered(self, app: ConsoleApp) -> None:
        assert "transactionType" in columns(app, "#metric-table")
        assert "Daily transaction count (TRANSACTION_COUNT)" in self.message(app)


class ProfilesSurface(Surface):
    """Switching profile checks the new key with /ping; the banner says how that went."""

    name = "profiles"
    mode = "profiles"
    path = "/ping"

    async def prepare(self, pilot: Pilot[Any]) -> None:
        table: DataTable[Any] = pilot.app.screen.query_one("#profiles-table", DataTable)
        names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
        table.move_cursor(row=names.index("team"))
        table.focus()
        self.listed = table_rows(pilot.app, "#profiles-table")

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await pilot.press("enter")

    def message(self, app: ConsoleApp) -> str:
        return app.ping_state

    async def probe(self, pilot: Pilot[Any]) -> None:
        table: DataTable[Any] = pilot.app.screen.query_one("#profiles-table", DataTable)
        row = table.cursor_row
        await pilot.press("up")
        assert table.cursor_row == row - 1, "Up was not handled"
        await pilot.press("down")
        assert table.cursor_row == row

    def kept(self, app: ConsoleApp) -> None:
        assert [row[1:] for row in table_rows(app, "#profiles-table")] == [row[1:] for row in self.listed]
        assert self.message(app).startswith("✗")
        assert self.message(app)[:40] in banner(app)

    def recovered(self, app: ConsoleApp) -> None:
        assert app.profile is not None and app.profile.name == "team"
        assert self.message(app) == "✓ pong" and "✓ pong" in banner(app)


class RotationSurface(Surface):
    """The wizard checks a pasted key with /ping before anything changes."""

    name = "rotation"
    mode = "profiles"
    path = "/ping"
    key = NEW_KEY

    async def prepare(self, pilot: Pilot[Any]) -> None:
        await ProfilesSurface().prepare(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.click("#generated")
        await settle(pilot)

    async def trigger(self, pilot: Pilot[Any]) -> None:
        await enter_in(pilot, "#new-key", NEW_KEY)

    async def retry(self, pilot: Pilot[Any]) -> None:
        if self.step(pilot.app) is Step.PASTE:  # the refused key was dropped: the user pastes it again
            await self.trigger(pilot)
        else:
            await pilot.click("#verify-new")

    def step(self, app: App[Any]) -> Step:
        return app.screen.rotation.step  # type: ignore[attr-defined,no-any-return]

    def message(self, app: ConsoleApp) -> str:
        return static_text(app, "#rotation-error")

    def kept(self, app: ConsoleApp) -> None:
        if "refused" in self.message(app):
            # A 401 means the pasted key is not valid: the wizard drops it and asks for it again.
            assert self.step(app) is Step.PASTE and "Paste it again" in self.message(app)
        else:
            # Any other failure keeps the pasted key and offers to check again.
            assert self.step(app) is Step.VERIFY_NEW and "could not be checked" in self.message(app)
            assert app.screen.query_one("#verify-new")
        assert app.profile is not None and app.profile.name == EMBEDDED_PROFILE.name, "nothing was switched"

    def recovered(self, app: ConsoleApp) -> None:
        assert self.step(app) is Step.SWITCH
        assert self.message(app) == ""


SURFACES: list[Callable[[], Surface]] = [
    InboxSurface,
    BatchSurface,
    QuoteSurface,
    MetricsSurface,
    ProfilesSurface,
    RotationSurface,
]


# --- the matrix ----------------------------------------------------------------------------------------------------


class MatrixApp(ConsoleApp):
    """The console opened straight on one screen: the matrix skips loading the inbox it does not test."""

    CSS_PATH = str(Path(inspect.getfile(ConsoleApp)).parent / str(ConsoleApp.CSS_PATH))

    def __init__(self, mode: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_mode = mode

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]
        event.prevent_default()
        self.switch_mode(self.start_mode)


def build(sandbox: Sandbox, mode: str) -> World:
    book = ProfileBook(clock=lambda: FIXED_NOW)
    book.add(Profile("team", "sandbox", TEAM_URL), ApiKey(SANDBOX_KEY))
    sandbox.add_key(NEW_KEY, "the key being rotated in")
    outage = Outage(sandbox)
    connector = FaultConnector(sandbox, outage, book)
    app = MatrixApp(mode, EMBEDDED_PROFILE, connector, clock=lambda: FIXED_NOW, ping_on_start=False, inbox_page_size=20)
    return World(sandbox, outage, app)


def attempts(world: World, surface: Surface, since: int) -> int:
    return sum(1 for call in world.outage.sent[since:] if call == (surface.method, surface.path))


def running(app: ConsoleApp) -> bool:
    return any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)


async def answers_f1(pilot: Pilot[Any], check: Callable[[], Awaitable[None]]) -> None:
    """F1 opens the help and F1 closes it again, whatever the screen is waiting for."""
    from stablepay_console.tui.modals.keys_help import KeysHelp

    await pilot.press("f1")
    assert isinstance(pilot.app.screen, KeysHelp), "F1 was not handled"
    await check()
    await pilot.press("f1")
    assert not isinstance(pilot.app.screen, KeysHelp)


FAULT = {fault.name: fault for fault in FAULTS}
ON_SCREEN: list[tuple[Callable[[], Surface], Fault]] = [
    *((InboxSurface, fault) for fault in FAULTS),  # every fault on one screen
    (BatchSurface, FAULT["502_html"]), (BatchSurface, FAULT["key_deleted"]),  # retried, then refused
    (QuoteSurface, FAULT["connect_refused"]), (QuoteSurface, FAULT["latency"]),  # the POST: sent once
    (MetricsSurface, FAULT["500"]), (MetricsSurface, FAULT["read_timeout"]),
    (ProfilesSurface, FAULT["key_deleted"]), (ProfilesSurface, FAULT["429"]),
    (RotationSurface, FAULT["key_deleted"]), (RotationSurface, FAULT["invalid_json"]),  # dropped, then kept
]
"""(screen, fault) pairs run in a console. Every other pair's rule is proved below the screens (the service
tests at the end of this file); `test_every_screen_meets_a_fault_on_screen` keeps each screen in the matrix."""


def test_every_screen_meets_a_fault_on_screen() -> None:
    assert {make().name for make, _ in ON_SCREEN} == {make().name for make in SURFACES}
    assert {fault.name for make, fault in ON_SCREEN if make is InboxSurface} == set(FAULT)


@pytest.mark.parametrize(("make_surface", "fault"), ON_SCREEN,
                         ids=[f"{make.name}-{fault.name}" for make, fault in ON_SCREEN])  # type: ignore[attr-defined]
async def test_fault(make_surface: Callable[[], Surface], fault: Fault, monkeypatch: pytest.MonkeyPatch) -> None:
    surface = make_surface()
    latency = hold_latency(monkeypatch)
    world = build(Sandbox(now=FIXED_NOW, rfis=surface.rfis), surface.mode)
    app = world.app
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await surface.prepare(pilot)

        fault.start(world, surface.key)
        before = len(world.outage.sent)
        await surface.trigger(pilot)
        if not fault.is_failure:
            # The request is still in flight (the sandbox is sleeping on it) while a key is handled.
            for _ in range(500):
                if attempts(world, surface, before):
                    break
                await pilot.pause(0.01)
            assert attempts(world, surface, before) == 1, "the request never left"

            async def still_loading() -> None:
                assert running(app), "the load finished before the key was handled"

            await answers_f1(pilot, still_loading)
            latency.end()
            await settle(pilot)
            fault.stop(world, surface.key)
            surface.recovered(app)
            surface.no_error(app)
            assert attempts(world, surface, before) == 1 + surface.prefetched  # sent once, never retried
            return

        await settle(pilot)
        message = surface.message(app)
        for words in fault.says:
            assert words in message, f"{words!r} not in {message!r}"
        assert any(word.casefold() in message.casefold() for word in FAILURE_WORDS), message
        surface.kept(app)
        sent = attempts(world, surface, before)
        if surface.method == "POST" or not fault.retried:
            assert sent == 1, f"{surface.method} was sent {sent} times"
        else:
            assert sent == RETRY_BOUND, f"a retryable GET was tried {sent} times"
        await surface.probe(pilot)
        surface.kept(app)

        fault.stop(world, surface.key)
        await surface.retry(pilot)
        await settle(pilot)
        surface.recovered(app)
        surface.no_error(app)


# --- below the screens: every fault, every request -------------------------------------------------------------------


FAILURES = [fault for fault in FAULTS if fault.is_failure]
REQUESTS: list[tuple[str, str, str, Callable[[StablePayClient], Awaitable[object]]]] = [
    ("inbox", "GET", "/v2/rfis", lambda c: c.list_rfis()),
    ("batch", "GET", f"/v2/wallets/transfers/batches/{BATCH_50_ID}", lambda c: c.get_batch_transfer(BATCH_50_ID)),
    ("quote", "POST", QuoteSurface.path, lambda c: c.refresh_onramp_quote(ONRAMP_OPEN_NO_EXPIRY_ID)),
    ("metrics", "GET", MetricsSurface.path, lambda c: c.run_metric(METRIC_TX_COUNT_ID)),
    ("profiles", "GET", "/ping", lambda c: c.ping()),
]
"""The request each screen makes, as the console's client makes it."""


TEAM = Profile("team", "sandbox", TEAM_URL)


def wire(rfis: int = 60) -> tuple[Wire, FaultConnector, ProfileBook]:
    sandbox = Sandbox(now=FIXED_NOW, rfis=rfis)
    book = ProfileBook(clock=lambda: FIXED_NOW)
    book.add(TEAM, ApiKey(SANDBOX_KEY))
    sandbox.add_key(NEW_KEY, "the key being rotated in")
    outage = Outage(sandbox)
    return Wire(sandbox, outage), FaultConnector(sandbox, outage, book), book


@pytest.mark.parametrize("fault", FAILURES, ids=[f.name for f in FAILURES])
async def test_every_request_names_the_fault_is_tried_within_the_bound_and_keeps_the_last_result_stale(
        fault: Fault) -> None:
    from stablepay_console.api import APIError
    from stablepay_console.api.error_text import error_text
    from stablepay_console.services.provenance import Attempt, Loaded, Provenance, ResultState

    world, connector, _ = wire()
    client = connector.client_with(EMBEDDED_PROFILE, ApiKey(SANDBOX_KEY))
    shown = Provenance("embedded", "sandbox", "the last good result", FIXED_NOW)
    for name, method, path, request in REQUESTS:
        fault.start(world, SANDBOX_KEY)
        before = len(world.outage.sent)
        with pytest.raises(APIError) as caught:
            await request(client)
        sent = sum(1 for call in world.outage.sent[before:] if call == (method, path))
        if method == "POST" or not fault.retried:
            assert sent == 1, f"{name}: {method} was sent {sent} times"
        else:
            assert sent == RETRY_BOUND, f"{name}: a retryable GET was tried {sent} times"
        # What the screens show: the lookups' status line (the inbox's error says the same), the banner's ping.
        state: ResultState[str] = ResultState()
        state.succeed(Loaded("shown", shown, target="shown-id"))
        state.fail(error_text(caught.value, 300, status=True), Attempt("asked-id", "what was asked"))
        kind, line = state.status_line()
        ping = f"✗ {error_text(caught.value, 80)}"  # the banner's ping state, on /ping
        for words in fault.says:
            assert words in line, f"{name}: {words!r} not in {line!r}"
            assert path != "/ping" or words in ping, f"{words!r} not in the ping's {ping!r}"
        assert kind == "stale" and "Still showing the last good result" in line, line
        assert any(word.casefold() in line.casefold() for word in FAILURE_WORDS), line
        assert state.retry_target == "asked-id", "r tries again what failed, not what is shown"
        fault.stop(world, SANDBOX_KEY)
        await request(client)  # the same request succeeds once the fault is gone
        state.succeed(Loaded("new", shown, target="asked-id"))
        assert state.status_line()[0] == "result"
    await client.aclose()


@pytest.mark.parametrize("fault", FAILURES, ids=[f.name for f in FAILURES])
async def test_a_fault_while_the_new_key_is_checked_switches_nothing(fault: Fault) -> None:
    from stablepay_console.profiles.keys import entry_name

    world, connector, book = wire()
    rotation = book.rotation(TEAM, connector.client_with)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(NEW_KEY))
    fault.start(world, NEW_KEY)
    before = len(world.outage.sent)
    assert await rotation.verify_new() is False
    pings = world.outage.sent[before:].count(("GET", "/ping"))
    assert pings == (RETRY_BOUND if fault.retried else 1), pings
    for words in fault.says:
        assert words in rotation.error, f"{words!r} not in {rotation.error!r}"
    if fault.name == "key_deleted":  # a 401: the pasted key is not valid, and it is asked for again
        assert rotation.step is Step.PASTE and "Paste it again" in rotation.error
    else:  # any other failure keeps the pasted key and offers to check again
        assert rotation.step is Step.VERIFY_NEW and "could not be checked" in rotation.error
    assert book.keys.get(entry_name(TEAM.name)) == ApiKey(SANDBOX_KEY), "nothing was switched"
    fault.stop(world, NEW_KEY)
    if rotation.step is Step.PASTE:
        rotation.paste(ApiKey(NEW_KEY))
    assert await rotation.verify_new() is True
    assert rotation.step is Step.SWITCH and rotation.error == ""
