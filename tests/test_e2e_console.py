"""End to end: the installed console in a real terminal (tmux)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.terminal import Terminal, console_command

pytestmark = pytest.mark.e2e


@pytest.fixture
def term_env(isolated_config: Path) -> dict[str, str]:
    return {
        "STABLEPAY_CONFIG_DIR": str(isolated_config),
        "TERM": "xterm-256color",
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


@pytest.fixture
def console(term_env: dict[str, str]) -> Iterator[Terminal]:
    term = Terminal([console_command()], term_env)
    try:
        yield term
    finally:
        term.close()


def test_console_opens_on_the_embedded_sandbox_inbox(console: Terminal) -> None:
    text = console.wait_for("total")
    assert "SANDBOX" in text
    assert re.search(r"Page 1 of \d+, \d+ total", text), text
    # Inbox rows: relative creation times and statuses from the sandbox.
    assert re.search(r"\b(issued|submitted|resolved|expired)\b", text)
    console.wait_for("pong")
    console.send("C-c")
    console.wait_for(lambda _: not console.alive(), timeout=10)


def test_triage_against_the_served_sandbox(term_env: dict[str, str]) -> None:
    """Walkthrough: filter to issued, page forward, open one, read its items and deadline."""
    import subprocess

    from tests.test_client_http import serve

    with serve("--seed", "7", "--rfis", "240") as served:
        added = subprocess.run(
            [console_command(), "profile", "add", "local", "--environment", "sandbox",
             "--base-url", served.base_url, "--no-key", "--default"],
            env={**os.environ, **term_env}, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
        )
        assert added.returncode == 0, added.stderr
        # The served sandbox's own demo key, given the way CI gives a key: in the environment.
        env = {**term_env, "STABLEPAY_PROFILE": "local", "STABLEPAY_API_KEY": served.key}
        term = Terminal([console_command()], env)
        try:
            text = term.wait_for("total")
            assert served.base_url.removeprefix("http://") in text
            term.wait_for("pong")
            total_all = int(re.search(r"(\d+) total", text).group(1))  # type: ignore[union-attr]

            term.send("s")  # status filter: any -> issued
            text = term.wait_for("status issued")
            text = term.wait_for(lambda t: re.search(r"Page 1 of \d+, (\d+) total", t) is not None
                                 and int(re.search(r"(\d+) total", t).group(1)) < total_all)  # type: ignore[union-attr]
            rows = [line for line in text.splitlines() if re.search(r"\bissued\b", line) and "ago" in line]
            assert rows and all("submitted" not in r and "resolved" not in r for r in rows)

            term.send("n")
            text = term.wait_for("Page 2 of")
            assert re.search(r"\bissued\b.*\bin \d+", text) or "expired" in text

            term.send("Enter")
            text = term.wait_for("Items (")
            assert "Request for information" in text
            assert "Deadline" in text
            assert re.search(r"\b(required|optional)\b", text)
            assert re.search(r"Time left: (in \d+|expired)|no reply is due|Deadline", text)
        finally:
            term.close()
