"""End to end: the walkthroughs (walkthroughs.md in the shared notes), driven in the installed console
in a real terminal (tmux): every walkthrough at 80x24, where room is least, and the analyst's (the longest, and the
one whose items once fell below the fold) at 120x40 and 200x50 too. Every screen's layout at every size is
tests/test_layout_sizes.py's, in the test process.

Each step waits for exactly what it then asserts (never a fixed sleep), and every screen read checks
the banner on the first line and help and quit on the last. Only the steps the console supports are
driven: the inbox (issued, needs action, open, copy the link, page the submitted ones and read why a
link is gone), batch lookup (a typo, then a sample ID), quote refresh twice, metrics (the bookmark,
the chart, bars, the table) and the switch to the built-in production profile with its red banner.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from decimal import Decimal
from itertools import pairwise

import pytest

from stablepay_console.sandbox import data
from tests.terminal import Terminal, console_command

pytestmark = pytest.mark.e2e

SIZES = [(80, 24), (120, 40), (200, 50)]
SIZE_IDS = [f"{w}x{h}" for w, h in SIZES]
AT_80X24 = pytest.mark.parametrize("console", [SIZES[0]], ids=[SIZE_IDS[0]], indirect=True)
"""A walkthrough driven at 80x24 only."""
AT_EVERY_SIZE = pytest.mark.parametrize("console", SIZES, ids=SIZE_IDS, indirect=True)
PAGE = re.compile(r"Page (\d+) of (\d+), (\d+) total")
COUNTDOWN = re.compile(r"\bin ((\d+)d (\d+)h|(\d+)h (\d+)m|(\d+)m (\d+)s)\s*$")


@pytest.fixture
def console(request: pytest.FixtureRequest, term_env: dict[str, str]) -> Iterator[Terminal]:
    width, height = request.param
    term = Terminal([console_command()], term_env, width=width, height=height)
    try:
        yield term
    finally:
        term.close()


# --- what every screen shows -----------------------------------------------------------------------------------------


def lines(text: str) -> list[str]:
    """The captured pane's lines (tmux drops trailing blank lines; the footer is the last one kept)."""
    return text.rstrip("\n").split("\n")


def framed(environment: str = "SANDBOX: simulated, no real money") -> Callable[[str], bool]:
    def check(text: str) -> bool:
        shown = lines(text)
        last = shown[-1]
        return (
            environment in shown[0]
            and ("? Help" in last or "f1 Help" in last)
            and ("q Quit" in last or "^c Quit" in last)
        )

    check.__doc__ = f"the banner ({environment}) on the first line, help and quit on the last"
    return check


def seconds(found: re.Match[str]) -> int:
    days, hours, hours2, minutes, minutes2, secs = (int(g) if g else 0 for g in found.groups()[1:])
    return days * 86400 + (hours + hours2) * 3600 + (minutes + minutes2) * 60 + secs


def deadlines(text: str) -> list[int]:
    """Seconds left on each row that shows a countdown (the Deadline column is the last one shown)."""
    return [seconds(m) for line in lines(text) if (m := COUNTDOWN.search(line))]


FIRST_RATE = re.compile(r"│ Rate +(\d[\d,]*\.\d+) +│")
"""The quote's Rate row after one refresh: the rate alone."""
SECOND_RATE = re.compile(r"│ Rate +(\d[\d,]*\.\d+) +(\d[\d,]*\.\d+) +(= unchanged|([▲▼]) ([-+]\d[\d,]*\.\d+))")
"""After a second refresh: the rate, the previous rate and the change."""
AXIS_LABEL = re.compile(r"\b\d\d (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b")
FIRST_TABLE_DAY = re.compile(r"(\d{4}-\d\d-\d\d)\s+[\d,]+\.\d\d\s+\d")
SPAN = re.compile(r"· \d+ rows · (\d\d \w{3}) → (\d\d \w{3}) ·")


def number(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def axis_labels(text: str) -> list[list[str]]:
    """The date labels under each chart's x axis (the line below a plot's bottom border), left to right."""
    shown = lines(text)
    found = []
    for above, below in pairwise(shown):
        if "└" in above and "┬" in above:
            found.append(AXIS_LABEL.findall(below[max(0, above.index("└") - 3) :]))
    return found


def day_of(label: str, earliest: date) -> date:
    """The first day on or after `earliest` that an axis labels `label` (`27 Oct`)."""
    for n in range(366):
        day = earliest + timedelta(days=n)
        if day.strftime("%d %b") == label:
            return day
    raise AssertionError(f"{label!r} names no day in the year after {earliest}")


def table_rows(text: str) -> list[str]:
    """The inbox's rows: the lines between its header (the line naming the Deadline column) and the footer."""
    shown = lines(text)
    header = next(i for i, line in enumerate(shown) if "Created" in line and "Deadline" in line)
    return shown[header + 1 : -1]


def total(text: str) -> int:
    found = PAGE.search(text)
    return int(found.group(3)) if found else -1


def every_row(status: str) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        try:
            rows = [row for row in table_rows(text) if row.strip()]
        except StopIteration:
            return False
        return bool(rows) and all(f" {status} " in row for row in rows) and "Loading" not in text

    check.__doc__ = f"the inbox loaded, every row {status}"
    return check


def keys_back(text: str) -> bool:
    """no text field has the keys: the footer offers ? and q"""
    return "? Help" in lines(text)[-1]


# --- compliance analyst, Monday morning ------------------------------------------------------------------------------


def audited(term_env: dict[str, str], action: str) -> list[dict[str, object]]:
    """The audit log's entries of `action`, as `audit log --json` prints them, once one is written (the console
    appends on its record's thread)."""
    deadline = time.monotonic() + 30
    while True:
        done = subprocess.run([console_command(), "audit", "log", "--json"], env={**os.environ, **term_env},
                              capture_output=True, text=True, timeout=60, check=True)
        found = [e for e in json.loads(done.stdout) if e["action"] == action]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


@AT_EVERY_SIZE
def test_compliance_analyst_triages_the_inbox(console: Terminal, term_env: dict[str, str]) -> None:
    screen = console.wait_for(framed(), PAGE, "Deadline", re.compile(r"\bissued\b"), re.compile(r"1 (RFI i|I)nbox"))
    everything = total(screen)

    # Only the issued requests.
    console.send("s")
    console.wait_for(framed(), "status issued", lambda t: 0 < total(t) < everything, every_row("issued"))

    # Needs action: the nearest deadline first.
    console.send("a")
    screen = console.wait_for(framed(), "View: needs action", lambda t: len(deadlines(t)) >= 3)
    left = deadlines(screen)
    assert left[0] == min(left), f"the nearest deadline is not first: {left}\n{screen}"

    # Open it: its items, required ones marked, the time left, the link.
    console.send("Enter")
    console.wait_for(framed(), "Request for information", "Time left: in ", re.compile(r"(Hosted l|L)ink: "),
                     "Items (", "required")  # the items on the first screen, at every size

    # Copy the hosted link to answer it.
    console.send("l")
    console.wait_for(framed(), "Copied the hosted link")
    # A real terminal took the OSC 52 (whether it keeps it is the terminal's): the log says where it went.
    assert [e["outcome"] for e in audited(term_env, "link.copy")] == ["sent to the terminal by OSC 52"]

    # Back in the inbox: the submitted ones, page two, one whose link is gone and why.
    console.send("Escape")
    console.wait_for(framed(), "View: needs action", "Page 1 of")
    console.send("a")
    console.wait_for(framed(), "View: all requests", "status issued")
    console.send("s")
    console.wait_for(framed(), "status submitted", re.compile(r"Page 1 of \d+"), every_row("submitted"))
    console.send("n")
    console.wait_for(framed(), re.compile(r"Page 2 of \d+"), every_row("submitted"))
    console.send("Enter")
    console.wait_for(framed(), "Request for information", "No hosted link.", "Answered and under review")


# --- support, a customer asks about a payout -------------------------------------------------------------------------


@AT_80X24
def test_support_looks_up_a_batch_and_refreshes_a_quote(console: Terminal) -> None:
    console.wait_for(framed(), PAGE)
    console.send("2")
    console.wait_for(framed(), "Transfer ID (UUID), then Enter", "? Help")  # the screen has the keys
    console.send("/")
    console.wait_for(framed(), "f1 Help")  # now the ID field has them

    # A typo: said before anything is sent.
    typo = data.BATCH_50_ID[:-1] + "g"
    console.type(typo)
    console.wait_for(typo)
    console.send("Enter")
    console.wait_for(framed(), "which is not a hexadecimal digit")

    # The sample ID: the count, the total with its currency, the first recipients.
    console.send("C-u")
    console.wait_for("Transfer ID (UUID), then Enter")  # the field is empty again
    console.type(data.BATCH_50_ID)
    console.wait_for(data.BATCH_50_ID)
    console.send("Enter")
    console.wait_for(
        framed(), "50 recipients, total ", " USDC", re.compile(r"^\s*│\s+1\s", re.M), "Status", "COMPLETED",
        keys_back,  # the first recipient has the focus
    )

    # Copy the transaction hash.
    console.send("t")
    console.wait_for(framed(), "Copied transaction hash")

    # Quote refresh for the customer's onramp, twice: how the rate moved.
    console.send("3")
    console.wait_for(framed(), "Onramp ID (UUID), then Enter", "? Help")
    console.send("Enter")  # Enter starts typing too
    console.wait_for(framed(), "f1 Help")
    console.type(data.ONRAMP_OPEN_ID)
    console.wait_for(data.ONRAMP_OPEN_ID)
    console.send("Enter")
    screen = console.wait_for(framed(), "Quote refreshed once", FIRST_RATE)
    first = FIRST_RATE.search(screen)
    assert first is not None
    console.send("r")
    screen = console.wait_for(framed(), "Quote refreshed 2 times", SECOND_RATE)
    second = SECOND_RATE.search(screen)
    assert second is not None
    rate, previous, change, arrow, delta = second.groups()
    assert previous == first.group(1), "the previous rate is the one the first refresh showed"
    if change == "= unchanged":
        assert number(rate) == number(previous), screen
    else:
        assert number(rate) - number(previous) == number(delta), screen
        assert arrow == ("▲" if number(delta) > 0 else "▼"), screen


# --- finance, weekly numbers -----------------------------------------------------------------------------------------


@AT_80X24
def test_finance_charts_the_bookmarked_metric(console: Terminal) -> None:
    console.wait_for(framed(), PAGE)
    console.send("4")
    screen = console.wait_for(framed(), "Bookmarks")
    if not keys_back(screen):
        console.send("Escape")  # leave the ID field: m goes to the bookmarks
        console.wait_for(framed(), keys_back)
    console.send("m")
    console.wait_for(framed(), "Daily gross volume", "n Rename")  # the bookmark list has the keys
    console.send("Enter")
    chart = console.wait_for(framed(), "Daily gross volume (GROSS_VOLUME)", re.compile(r"· line\b"), "grossVolume",
                             SPAN, lambda t: any(axis_labels(t)))
    console.send("l")
    console.wait_for(framed(), re.compile(r"· (stacked )?bar\b"))
    console.send("t")
    table = console.wait_for(framed(), "· table", "periodStart", FIRST_TABLE_DAY)

    # The x axis is dated from the data's first period (the table's first row), left to right, up to its last.
    found = FIRST_TABLE_DAY.search(table)
    span = SPAN.search(chart)
    assert found is not None and span is not None
    start = date.fromisoformat(found.group(1))
    assert span.group(1) == start.strftime("%d %b"), chart
    end = day_of(span.group(2), start)
    for labels in axis_labels(chart):
        assert len(labels) >= 2, chart
        assert labels[0] == start.strftime("%d %b"), chart
        days = [start]
        for label in labels[1:]:
            days.append(day_of(label, days[-1] + timedelta(days=1)))
        assert days[-1] <= end, f"{labels} run past the last period {span.group(2)}\n{chart}"


# --- developer, the production profile -------------------------------------------------------------------------------


@AT_80X24
def test_developer_switches_to_production_and_the_banner_turns_red(console: Terminal) -> None:
    console.wait_for(framed(), PAGE, "ping ✓")  # at 80 columns the ✓ stays, its words give way
    console.send("F2")
    console.wait_for(framed(), "Switch profile", "embedded-production")
    console.send("Down")
    console.send("Enter")
    screen = console.wait_for(framed("PRODUCTION: real money"), "embedded-production", "ping ✓")
    assert "SANDBOX" not in lines(screen)[0]
    console.send("q")
    console.wait_until_exited()
