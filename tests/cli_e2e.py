"""Drive the installed `stablepay-console` against `stablepay-console sandbox serve` over loopback.

The server is started as a user would start it (its base URL and key read from its banner); each
command runs as its own process, with a profile pointing at the server and the key in
STABLEPAY_PROFILE/STABLEPAY_API_KEY, exactly as CI or cron would run it.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from stablepay_console.profiles.store import ProfileStore, make_profile

STARTUP_SECONDS = 30.0


def console() -> list[str]:
    script = Path(sys.executable).parent / "stablepay-console"
    return [str(script)] if script.exists() else [sys.executable, "-m", "stablepay_console"]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Server:
    base_url: str
    key: str


@contextmanager
def serve(*args: str) -> Iterator[Server]:
    """`sandbox serve` on a free port; yields once its banner names the URL and the key."""
    port = free_port()
    process = subprocess.Popen(
        [*console(), "sandbox", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        raw = b""
        deadline = time.monotonic() + STARTUP_SECONDS
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout.fileno(), selectors.EVENT_READ)
            while b"Press Ctrl+C" not in raw and time.monotonic() < deadline and process.poll() is None:
                if selector.select(timeout=0.5):
                    raw += os.read(process.stdout.fileno(), 4096)
        lines = raw.decode().splitlines()
        assert any(line.startswith("Press Ctrl+C") for line in lines), f"the sandbox did not start: {lines!r}"
        base_url = lines[0].removeprefix("Sandbox serving at ")
        key = lines[1].removeprefix("Sandbox key: ")
        yield Server(base_url, key)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def add_profile(name: str, environment: str, base_url: str, key_since: datetime | None = None) -> None:
    """A configured profile in this test's config folder (no key kept: it comes from the environment)."""
    store = ProfileStore()
    if store.get(name) is None:
        store.add(make_profile(name, environment, base_url), key_since=key_since)


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


def command_env(profile: str | None = None, key: str | None = None,
                env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of one command: this test's, no keyring, `profile` and `key` in STABLEPAY_PROFILE and
    STABLEPAY_API_KEY."""
    environment = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    environment.pop("NO_COLOR", None)
    environment.update(env or {})
    if profile is not None:
        environment["STABLEPAY_PROFILE"] = profile
    if key is not None:
        environment["STABLEPAY_API_KEY"] = key
    return environment


def here(*args: str, profile: str | None = None, key: str | None = None, stdin: str = "",
         env: dict[str, str] | None = None) -> Result:
    """The same command in this process (`cli.main.main`, as the entry runs it), its output captured: what it
    prints and its exit code are the command's own, without a process's start. What needs a process (a closed
    pipe, a terminal, signals, the installed script) is `run`'s."""
    import contextlib
    import io

    from stablepay_console.cli.main import main
    from stablepay_console.storage.writing import NOT_WRITTEN

    out, err = io.StringIO(), io.StringIO()
    changes = {"STABLEPAY_PROFILE": profile, "STABLEPAY_API_KEY": key, "NO_COLOR": None, **(env or {})}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in changes.items():
            if value is None:
                patch.delenv(name, raising=False)
            else:
                patch.setenv(name, value)
        patch.setattr("sys.stdin", io.StringIO(stdin))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 2
            finally:
                NOT_WRITTEN.reset()  # the board is the process's: the next command starts with none
    return Result(code, out.getvalue(), err.getvalue())


def run(*args: str, profile: str | None = None, key: str | None = None, stdin: str = "",
        env: dict[str, str] | None = None) -> Result:
    """One command as its own process; `profile` and `key` go in STABLEPAY_PROFILE and STABLEPAY_API_KEY."""
    done = subprocess.run([*console(), *args], input=stdin, capture_output=True, text=True, timeout=120,
                          env=command_env(profile, key, env))
    return Result(done.returncode, done.stdout, done.stderr)
