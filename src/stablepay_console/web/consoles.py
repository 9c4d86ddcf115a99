"""One console process per browser tab: started with the signed-in name in its environment, capped per
user and in total, ended when its tab closes, when it sits idle, or when the server stops.

textual-serve's AppService runs its command through a shell with the server's whole environment. The
command here is fixed (this Python, `-m stablepay_console`) and never holds a user's name: the name
goes in the environment. Each console gets a process group of its own, so ending it leaves nothing.
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
from typing import TYPE_CHECKING

from textual_serve.app_service import AppService

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import variables
from stablepay_console.web.settings import STOP_SECONDS, WebSettings

if TYPE_CHECKING:
    from asyncio.subprocess import Process

    from stablepay_console.web.signin import SignIn

log = logging.getLogger("stablepay_console.web.access")

WEB_USER_VARIABLE = variables.WEB_USER
"""Set for every console the web server starts: who signed in (the banner shows it; web mode on)."""
RECORD_ROLE_VARIABLE = variables.RECORD_ROLE
"""Set with a team record: the role the console's connections `SET ROLE` to."""
DROPPED = ("TEXTUAL", "TEXTUAL_LOG")
"""Devtools switches from the server's environment: a browser's console never connects to devtools."""
PRELUDE = b"__GANGLION__\n"
"""What a Textual app writes first under textual-serve's driver, before its packets."""
ERRORS_KEPT = 8192
"""The tail of a console's standard error kept to say why it ended."""


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
    """textual-serve's app service for one tab, with the user in the environment and a bounded stop."""

    def __init__(self, *args: object, signin: SignIn, settings: WebSettings, team: bool, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.signin = signin
        self.settings = settings
        self.team = team
        self.last_active = time.monotonic()
        self.started = time.monotonic()
        self.ready = False
        """The console got as far as drawing (textual-serve's prelude came)."""
        self.quit = False
        """It ended as asked: the user quit it, or the server stopped it."""
        self.errors = ""
        """Its standard error once it ended (the tail): read for why, never written out raw."""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        for name in DROPPED:
            environment.pop(name, None)
        environment.update(self.settings.extra_env)
        environment[WEB_USER_VARIABLE] = self.signin.user
        if self.settings.profile:
            environment[variables.PROFILE] = self.settings.profile
        if self.team:
            environment[RECORD_ROLE_VARIABLE] = self.signin.user
        else:
            environment.pop(RECORD_ROLE_VARIABLE, None)
        return environment

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
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
                log.warning("refused open_url user=%s console=%s", self.signin.user, self.app_service_id[:8])
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


class Consoles:
    """The running consoles: the caps, the idle limit, and ending them all."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.running: dict[str, tuple[ConsoleProcess, asyncio.Event]] = {}

    def refusal(self, user: str) -> str | None:
        """Why another console may not start for `user` now, or None."""
        if len(self.running) >= self.settings.max_sessions:
            return f"the server runs its limit of {self.settings.max_sessions} consoles; try again later"
        mine = sum(1 for process, _ in self.running.values() if process.signin.user == user)
        if mine >= self.settings.max_sessions_per_user:
            return (f"you have {mine} consoles open, the limit per user; close a tab first")
        return None

    def add(self, process: ConsoleProcess) -> asyncio.Event:
        """Register a started console; the event is set when it must end (idle, or the server stopping)."""
        ended = asyncio.Event()
        self.running[process.app_service_id] = (process, ended)
        return ended

    def remove(self, process: ConsoleProcess) -> None:
        self.running.pop(process.app_service_id, None)

    def idle(self) -> list[ConsoleProcess]:
        now = time.monotonic()
        return [p for p, _ in self.running.values() if now - p.last_active > self.settings.idle_seconds]

    def end(self, process: ConsoleProcess) -> None:
        found = self.running.get(process.app_service_id)
        if found is not None:
            found[1].set()

    def end_all(self) -> None:
        for _, ended in self.running.values():
            ended.set()

    async def watch_idle(self) -> None:
        """End idle consoles, checking a few times per idle period (at most every 30 s)."""
        every = max(0.2, min(30.0, self.settings.idle_seconds / 4))
        while True:
            await asyncio.sleep(every)
            for process in self.idle():
                log.info("session idle user=%s console=%s", process.signin.user, process.app_service_id[:8])
                self.end(process)
