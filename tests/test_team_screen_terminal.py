"""The Team screen's first paint in a real terminal (tmux, 80x24), over a record of many requests: the figures it
shows first are `rfis report --json`'s, whole (a table drawn before its columns were measured once showed
"breached: claim 1 / ready 1 / approv 2" for 140 / 114 / 28), and the analysts keep their Approved column.

Once on the local record, once on the team's real PostgreSQL (a watcher recorded every request; two analysts
claimed, made ready and approved; the lead looks). Every wait polls the captured pane, never a fixed sleep."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stablepay_console.services.triage.report import SPANS
from stablepay_console.tui.screens.team import SPAN_WORDS
from tests.plain_screen import PlainScreen
from tests.terminal import POLL_SECONDS, Terminal, console_command

pytestmark = pytest.mark.e2e

URL = "STABLEPAY_RECORD_URL"
COLUMNS = {"Claimed": "claimed", "Ready": "madeReady", "Approved": "approved", "Open": "openNow"}
"""The analysts table's headers, as the report's JSON names them."""


def shell(env: dict[str, str], *argv: str) -> str:
    done = subprocess.run([console_command(), *argv], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, f"{argv}: {done.stderr}"
    return done.stdout


def as_role(env: dict[str, str], url: str | None) -> dict[str, str]:
    return {**env, URL: url} if url else env


def expected(made: dict[str, Any], columns: list[str], shown_analysts: dict[str, Any]) -> dict[str, Any]:
    """What the screen should show of the report: its totals, step counts, breaches and the analysts' columns
    that are shown. Every analyst with work shows; one with none yet (zeros, the team's lead here) sits on the
    table's last row, where the console's notice of the radar's source may cover it: checked if it shows."""
    totals = made["totals"]
    analysts = {row["analyst"]: {c: row[COLUMNS[c]] for c in columns} for row in made["analysts"]}
    return {
        "totals": (totals["issued"], totals["approved"], totals["submittedInTime"], totals["expired"]),
        "steps": {name: made["durations"][name]["count"] for name in SPANS},
        "breaches": made["breaches"],
        "analysts": {who: row for who, row in analysts.items() if any(row.values()) or who in shown_analysts},
    }


def shown(screen: str) -> tuple[dict[str, Any], list[str]]:
    """The figures the Team screen shows, read off the captured pane; and the analysts table's columns."""
    lines = screen.splitlines()
    totals = re.search(r"Last 30 days · (\d+) issued, (\d+) approved, (\d+) in time, (\d+) expired", screen)
    assert totals, screen
    steps = {}
    for name in SPANS:
        found = re.search(rf"{re.escape(SPAN_WORDS[name])} +(\d+)", screen)
        assert found, f"no {SPAN_WORDS[name]} row:\n{screen}"
        steps[name] = int(found.group(1))
    header = next(i for i, line in enumerate(lines) if "Analyst" in line)
    at = lines[header].index("Analyst")
    columns = lines[header][at:].split()[1:]
    analysts = {}
    for line in lines[header + 1:]:
        cells = line[at:].split()
        if len(cells) == len(columns) + 1 and all(c.isdigit() for c in cells[1:]):
            analysts[cells[0]] = dict(zip(columns, (int(c) for c in cells[1:]), strict=True))
    figures = {
        "totals": tuple(int(n) for n in totals.groups()),
        "steps": steps,
        "breaches": {name: int(n) for name, n in re.findall(r"breached: (\S+) +(\d+)", screen)},
        "analysts": analysts,
    }
    return figures, columns


class PaneRecording:
    """Everything the console writes to its pane from now on (tmux `pipe-pane`), replayed on a screen of the
    pane's size: a test reads every state the pane went through, not only the one a capture happens to catch
    (a table drawn before its columns were measured is right again a moment later)."""

    def __init__(self, term: Terminal, path: Path, width: int, height: int) -> None:
        self.path = path
        path.touch()
        term.tmux("pipe-pane", "-o", "-t", term.name, f"cat >> {shlex.quote(str(path))}", check=True)
        self.screen = PlainScreen(width, height)
        self.read = 0

    def first(self, check: Callable[[str], bool], timeout: float) -> str:
        """The pane's text at the first moment `check` holds. It is looked at before each escape sequence, when
        the text written before it is whole (a read can end inside a number: "4" of "49")."""
        deadline = time.monotonic() + timeout
        pending = b""
        while True:
            data = self.path.read_bytes()[self.read:]
            self.read += len(data)
            *whole, pending = re.split(rb"(?=\x1b)", pending + data)
            for piece in whole:
                self.screen.feed(piece)
                text = self.screen.text
                if check(text):
                    return text
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {timeout:.0f} s; the pane shows:\n" + self.screen.text)
            time.sleep(POLL_SECONDS)


def report_painted(text: str) -> bool:
    """The report is on screen: the totals, the analysts' header and all three breach rows with their counts
    (the screen paints them in one frame, top to bottom: the last breach row's count comes last)."""
    return "Last 30 days ·" in text and " Analyst " in text and len(re.findall(r"breached: \S+ +\d+", text)) == 3


def some_work(env: dict[str, str], claim_as: str | None, approve_as: str | None) -> None:
    """Two issued requests claimed, one made ready; approved by another analyst on the team record."""
    listed = json.loads(shell(env, "rfis", "list", "--status", "issued", "--limit", "2", "--json"))
    first, second = (r["id"] for r in listed["data"])
    mine = as_role(env, claim_as)
    shell(mine, "rfis", "claim", first)
    shell(mine, "rfis", "claim", second)
    shell(mine, "rfis", "ready", first, "--note", "statement checked")
    if approve_as:
        shell(as_role(env, approve_as), "rfis", "approve", first)


@pytest.mark.parametrize("record", ["local", pytest.param("team", marks=pytest.mark.postgres)])
def test_the_team_screens_first_paint_shows_the_reports_figures_at_80x24(
    term_env: dict[str, str], record: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    env = dict(term_env)
    watcher = analyst = reviewer = lead = None
    if record == "team":
        db = request.getfixturevalue("team_db")
        watcher, analyst, reviewer, lead = (db.url(role) for role in ("walt", "alice", "bob", "carol"))
    shell(as_role(env, watcher), "rfis", "list", "--all", "--json")  # every request into the record
    if record == "local":  # the team record's levels are set by `record init`; the local one's by someone
        shell(env, "record", "policy", "--claim-within", "4h")
    some_work(env, analyst, reviewer)
    looker = as_role(env, lead)
    before = json.loads(shell(looker, "rfis", "report", "--json"))

    term = Terminal([console_command()], looker, width=80, height=24)
    try:
        term.wait_for("Page 1 of", "? Help", timeout=60)  # the inbox's own page: the console has its services
        recording = PaneRecording(term, tmp_path / "pane.out", 80, 24)
        term.send("7")
        first = recording.first(report_painted, timeout=60)
    finally:
        term.close()
    after = json.loads(shell(looker, "rfis", "report", "--json"))

    figures, columns = shown(first)
    assert "Approved" in columns, f"at 80 columns the analysts keep Approved: {columns}"
    assert figures["breaches"] and sum(figures["breaches"].values()) > 20, "a record of many requests"
    # The report read just before or just after (a level may fall due between the two reads).
    assert figures in (expected(before, columns, figures["analysts"]),
                       expected(after, columns, figures["analysts"])), (figures, first)
    assert figures["analysts"], "the analysts' table has its rows"
    assert "record policy" in first, "the screen says how the policy is changed"
