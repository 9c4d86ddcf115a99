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
