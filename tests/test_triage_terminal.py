"""End to end at 80x24 in tmux: a request claimed and made ready from the shell shows its step and its time
left in the installed console's inbox, and the Team screen (key 7) shows the report; banner, help and quit
stay on screen. Every wait polls the captured pane (never a fixed sleep)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from tests.terminal import Terminal, console_command, framed

pytestmark = pytest.mark.e2e


def shell(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_command(), *argv], env=env, capture_output=True, text=True, timeout=60,
                          check=False)


@pytest.fixture
def console(term_env: dict[str, str]) -> Iterator[Terminal]:
    assert shell(term_env, "record", "policy", "--claim-within", "4h").returncode == 0  # service levels apply
    listed = shell(term_env, "rfis", "list", "--status", "issued", "--limit", "1", "--json")
    rfi = json.loads(listed.stdout)["data"][0]["id"]
    assert shell(term_env, "rfis", "claim", rfi).returncode == 0
    made = shell(term_env, "rfis", "ready", rfi, "--note", "statement checked")
    assert made.returncode == 0, made.stderr
    term = Terminal([console_command()], term_env, width=80, height=24)
    try:
        yield term
    finally:
        term.close()



def my_row(text: str) -> str:
    return next((line for line in text.splitlines() if "◆" in line), "")


def test_step_and_time_left_in_the_inbox_and_the_team_screen_at_80x24(console: Terminal) -> None:
    # The claims and the steps are two reads of the record: the claim can be drawn a moment before the step
    # it reached, so the wait is for the step itself (it fails at the deadline if "ready" never comes).
    # The other rows say "unclaimed" under Step: waited for too, since the table can be drawn row by row.
    screen = console.wait_for("Step", "SLA", "Deadline", "unclaimed", framed,
                              lambda text: " ready " in f"{my_row(text)} ")
    header = next(line for line in screen.splitlines() if "Step" in line)
    assert header.index("Step") < header.index("SLA") < header.index("Deadline")
    assert " ready " in f"{my_row(screen)} ", "the step made ready from the shell"
    assert "unclaimed" in screen
    console.send("7")
    screen = console.wait_for("Requests per week", "issue → claim", "Analyst", "Last 30 days", framed)
    assert "7 Team" in screen.splitlines()[1]
    console.send("q")
    console.wait_until_exited()
