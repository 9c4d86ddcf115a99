"""End to end: the installed console in a real terminal (tmux)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest

from tests.terminal import Terminal, console_command

pytestmark = pytest.mark.e2e


@pytest.fixture
def console(term_env: dict[str, str]) -> Iterator[Terminal]:
    term = Terminal([console_command()], term_env)
    try:
        yield term
    finally:
        term.close()


PAGE_ONE = re.compile(r"Page 1 of \d+, (\d+) total")
ROW_STATUS = re.compile(r"\b(issued|submitted|resolved|expired)\b")


def total(text: str) -> int:
    found = PAGE_ONE.search(text)
    assert found, text
    return int(found.group(1))


def test_console_opens_on_the_embedded_sandbox_inbox(console: Terminal) -> None:
    # The banner, the page line and the rows are painted in parts: wait for all of them on one screen.
    text = console.wait_for("SANDBOX", PAGE_ONE, ROW_STATUS)
    assert "SANDBOX" in text and PAGE_ONE.search(text), text
    # Inbox rows: relative creation times and statuses from the sandbox.
    assert ROW_STATUS.search(text), text
    console.wait_for("pong")
    console.send("C-c")
    console.wait_until_exited()


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
            where = served.base_url.removeprefix("http://")
            text = term.wait_for(where, PAGE_ONE, "pong")
            total_all = total(text)

            def issued_page_one(t: str) -> bool:
                """page 1 of the issued requests: fewer in total, and every row issued"""
                found = PAGE_ONE.search(t)
                rows = issued_rows(t)
                return (found is not None and int(found.group(1)) < total_all and bool(rows)
                        and all("submitted" not in r and "resolved" not in r for r in rows))

            term.send("s")  # status filter: any -> issued
            text = term.wait_for("status issued", issued_page_one)
            rows = issued_rows(text)
            assert rows and all("submitted" not in r and "resolved" not in r for r in rows)

            term.send("n")
            issued_ahead = re.compile(r"\bissued\b.*\bin \d+")
            text = term.wait_for("Page 2 of", lambda t: issued_ahead.search(t) or "overdue" in t or "expired" in t)
            assert issued_ahead.search(text) or "overdue" in text or "expired" in text

            term.send("Enter")
            detail = re.compile(r"\b(required|optional)\b")
            time_left = re.compile(r"Time left: (in \d+|expired)|no reply is due|Deadline")
            text = term.wait_for("Items (", "Request for information", "Deadline", detail, time_left)
            assert "Request for information" in text
            assert "Deadline" in text
            assert detail.search(text)
            assert time_left.search(text)
        finally:
            term.close()


def issued_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.search(r"\bissued\b", line) and "ago" in line]
