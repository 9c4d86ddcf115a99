"""One console process per browser tab: started before anyone asks for it, handed to one signed-in user,
capped per user and in total, ended when its tab closes, when it sits idle, or when the server stops.

textual-serve's AppService runs its command through a shell with the server's whole environment. The
command here is fixed (this Python, `-m stablepay_console`) and never holds a user's name; nor does the
environment: the process imports the console and waits, and the name comes on its standard input, in the
hand-over (`tui/runtime/hand_over.py`), when a page or a tab asks for a console. Until a tab's WebSocket
attaches, what the console draws is held here (bounded) and sent on attach. Each console gets a process group
of its own, so ending it leaves nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
import sys
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol

from textual_serve.app_service import AppService

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import variables
from stablepay_console.tui.runtime.hand_over import HandOver, encode
from stablepay_console.web.settings import STOP_SECONDS, WebSettings

if TYPE_CHECKING:
    from asyncio.subprocess import Process

    from stablepay_console.web.signin import SignIn

log = logging.getLogger("stablepay_console.web.access")

IDENTITY = (variables.WEB_USER, variables.RECORD_ROLE)
"""Who the console serves: never in its environment at start (the hand-over brings it), even if the server's has it."""
DROPPED = ("TEXTUAL", "TEXTUAL_LOG")
"""Devtools switches from the server's environment: a browser's console never connects to devtools."""
PRELUDE = b"__GANGLION__\n"
"""What a Textual app writes first under textual-serve's driver, before its packets."""
ERRORS_KEPT = 8192
"""The tail of a console's standard error kept to say why it ended."""
HELD_MAX = 8 << 20
"""What a console may draw before its tab attaches (its first screens are tens of kB): over it, it is ended."""
FIRST_SCREEN = 1024
"""A data packet this large is a screenful (the ones before it set the terminal's modes)."""


class Browser(Protocol):
    """Where a console's output goes once a tab attaches (its WebSocket)."""

    def send_bytes(self, data: bytes) -> Awaitable[Any]: ...

    def send_str(self, data: str) -> Awaitable[Any]: ...

    def close(self) -> Awaitable[Any]: ...


def console_command() -> str:
    """The shell command textual-serve runs: this interpreter and the console, and nothing from a request."""
    return f"exec {shlex.quote(sys.executable)} -m stablepay_console"


def link_allowed(url: object) -> bool:
    from stablepay_console.api.urls import safe_link

    if not isinstance(url, str):
        return False
    try:
        return safe_link(url) == url.strip()
    except ValueError:
        return False


class ConsoleProcess(AppService):
    """textual-serve's app service for one tab: started with nobody's name, handed over to one sign-in, its output
    held until the tab attaches, and a bounded stop."""

    def __init__(self, command: str, *, download_manager: Any, settings: WebSettings, team: bool) -> None:
        super().__init__(command, write_bytes=self._to_browser_bytes, write_str=self._to_browser_str,
                         close=self._close_browser, download_manager=download_manager)
        self.settings = settings
        self.team = team
        self.signin: SignIn | None = None
        """Whom it serves, from its hand-over on; never changes after."""
        self.size = (80, 24)
        self.last_active = time.monotonic()
        self.started = time.monotonic()
        self.starting: asyncio.Task[None] | None = None
        """Its start and hand-over (`give_to`); a tab that claims it awaits this first."""
        self.ready = False
        """The console got as far as drawing (textual-serve's prelude came)."""
        self.quit = False
        """It ended as asked: the user quit it, or the server stopped it."""
        self.errors = ""
        """Its standard error once it ended (the tail): read for why, never written out raw."""
        self.browser: Browser | None = None
        self.held: list[bytes | str] = []
        self.held_size = 0
        self.close_held = False
        self.attached = asyncio.Event()
        self.drawn = asyncio.Event()
        """It drew its first screenful (at the size it was handed over with)."""
        self.shown = asyncio.Event()
        """Its first screenful went to its tab."""
        self.drawn_size = self.size
        self.last_output = time.monotonic()
        """When it last drew anything."""
        self._resize: asyncio.Task[None] | None = None
        self.overflowed = asyncio.Event()
        """It drew more than HELD_MAX before a tab attached: it is ended."""

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        for name in (*DROPPED, *IDENTITY):
            environment.pop(name, None)
        environment.update(self.settings.extra_env)
        for name in IDENTITY:  # not even through extra_env
            environment.pop(name, None)
        if self.settings.profile:
            environment[variables.PROFILE] = self.settings.profile
        environment[variables.WEB_HAND_OVER] = "1"
        return environment

    async def spawn(self) -> None:
        """Start the process: it imports the console and waits for its hand-over."""
        if self._process is None:
            await self._open_app_process()

    def give_to(self, signin: SignIn, width: int, height: int) -> asyncio.Task[None]:
        """Hand the console to `signin` (once): its start, if it is not a spare already started, then the hand-over
        on its standard input, then textual-serve's loop over its output."""
        assert self.signin is None and self.starting is None, "a console is handed over once"
        self.signin, self.size = signin, (width, height)
        self.drawn_size = self.size
        self.starting = asyncio.create_task(self._hand_over())
        return self.starting

    async def _hand_over(self) -> None:
        assert self.signin is not None
        await self.spawn()
        user = self.signin.user
        packet = encode(HandOver(user, user if self.team else None, *self.size))
        with contextlib.suppress(ConnectionError, RuntimeError):  # it ended already: run() says why
            self.stdin.write(packet)
            await self.stdin.drain()
        self.started = self.last_active = time.monotonic()
        self._task = asyncio.create_task(self.run())

    # --- its output: held until a tab attaches ----------------------------------------------

    async def attach(self, browser: Browser) -> None:
        """The tab's WebSocket: what the console drew meanwhile goes first, in order, then everything as it comes."""
        while self.held:
            item = self.held.pop(0)
            await (browser.send_bytes(item) if isinstance(item, bytes) else browser.send_str(item))
            self._note_shown(item)
        self.held_size = 0
        self.browser = browser  # no await since the last look at `held`: nothing can slip in between
        self.attached.set()
        self.last_active = time.monotonic()
        if self.close_held:
            await browser.close()

    def _hold(self, item: bytes | str) -> None:
        if self.overflowed.is_set():
            return
        self.held.append(item)
        self.held_size += len(item)
        if self.held_size > HELD_MAX:
            self.held.clear()
            self.overflowed.set()

    def _note_shown(self, item: bytes | str) -> None:
        if isinstance(item, bytes) and len(item) > FIRST_SCREEN:
            self.shown.set()

    async def _to_browser_bytes(self, data: bytes) -> None:
        self.last_output = time.monotonic()
        if len(data) > FIRST_SCREEN:
            self.drawn.set()
        if self.browser is None:
            self._hold(data)
            return
        await self.browser.send_bytes(data)
        self._note_shown(data)

    async def _to_browser_str(self, data: str) -> None:
        if self.browser is None:
            self._hold(data)
            return
        await self.browser.send_str(data)

    async def set_terminal_size(self, width: int, height: int) -> None:
        """Resize the console, once it has drawn its first screen: a resize read before that races the driver's
        own first one (the size it was handed over with), and the older could win. The size it has already is not
        sent again (the page sends its size as its WebSocket opens, and a resize repaints the whole screen)."""
        if (width, height) == self.size:
            return
        self.size = (width, height)
        if self.drawn.is_set():
            await super().set_terminal_size(width, height)
        elif self._resize is None:
            self._resize = asyncio.create_task(self._resize_once_drawn())

    async def _resize_once_drawn(self) -> None:
        await self.drawn.wait()
        self._resize = None
        if self.size != self.drawn_size:
            await super().set_terminal_size(*self.size)

    async def _close_browser(self) -> None:
        if self.browser is None:
            self.close_held = True
            return
        await self.browser.close()

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        """textual-serve's start, with a process group of its own (its size comes in the hand-over)."""
        self._process = process = await asyncio.create_subprocess_shell(
            self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,  # its own process group: ending it ends everything it started
        )
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def on_meta(self, data: bytes) -> None:
        """textual-serve hands an `open_url` to the browser's window.open as it is: here only a link the console
        itself would open (https://, or http:// to loopback) gets through; anything else is dropped and logged."""
        try:
            meta = json.loads(data)
        except ValueError:
            return
        if isinstance(meta, dict) and meta.get("type") == "exit":
            self.quit = True
        if isinstance(meta, dict) and meta.get("type") == "open_url":
            if not link_allowed(meta.get("url")):
                log.warning("refused open_url user=%s console=%s", self.user, self.app_service_id[:8])
                return
            meta["new_tab"] = True  # never navigate the console's own tab away
            data = json.dumps(meta).encode()
        await super().on_meta(data)

    async def run(self) -> None:
        """textual-serve's loop over the console's packets, except that its standard error is kept here (textual-
        serve writes it raw on the server's standard output) so that `ended_why` can say why it ended."""
        process = self._process
        assert process is not None and process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout, process.stderr
        errors = bytearray()

        async def read_errors() -> None:
            while chunk := await stderr.read(4096):
                errors.extend(chunk)
                del errors[:-ERRORS_KEPT]

        error_task = asyncio.create_task(read_errors())
        try:
            for _ in range(10):  # textual-serve's own limit on lines before the prelude
                line = await stdout.readline()
                if not line or line == PRELUDE:
                    self.ready = line == PRELUDE
                    break
            while True:
                kind = await stdout.readexactly(1)
                payload = await stdout.readexactly(int.from_bytes(await stdout.readexactly(4), "big"))
                if kind == b"D":
                    await self.on_data(payload)
                elif kind == b"M":
                    await self.on_meta(payload)
                elif kind == b"P":
                    await self.on_packed(payload)
        except (asyncio.IncompleteReadError, ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(error_task, 2.0)  # the process has gone: its stderr ends with it
            error_task.cancel()
            self.errors = errors.decode("utf-8", "replace")

    def ended_why(self) -> str:
        """Why the console ended on its own, in words for the browser (what the console itself said last)."""
        said = [line for line in self.errors.splitlines() if line.startswith("stablepay-console:")]
        why = clean(said[-1].removeprefix("stablepay-console:").strip(), 400) if said else ""
        if not self.ready:
            return f"Your console could not start: {why or 'it ended before it could draw; the server log says more.'}"
        return f"Your console stopped: {why or 'it ended unexpectedly; the server log says more.'}"

    def last_error_line(self) -> str:
        """The console's last line of standard error, escaped, for the server's log."""
        lines = [line.strip() for line in self.errors.splitlines() if line.strip()]
        return clean(lines[-1], 300) if lines else "(nothing on standard error)"

    @property
    def user(self) -> str:
        return self.signin.user if self.signin is not None else "-"

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def send_bytes(self, data: bytes) -> bool:
        self.last_active = time.monotonic()
        return await super().send_bytes(data)

    async def stop(self) -> None:
        """Ask the console to quit as textual-serve does; if it has not left within STOP_SECONDS, terminate
        its process group, then kill it. Returns once the process is reaped."""
        self.quit = True
        if self._resize is not None:
            self._resize.cancel()
        task = self._task
        self._task = None
        if task is not None:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.send_meta({"type": "quit"}), 1.0)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), STOP_SECONDS)
        process = self._process
        if process is None:
            return
        for sig, wait in ((signal.SIGTERM, 1.5), (signal.SIGKILL, 5.0)):
            if process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), wait)
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
