"""Daily use at 80x24 in tmux, read off the installed console's screen as a new user would (issue 41).

Every wait polls the captured pane (never a fixed sleep).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.terminal import Terminal, console_command, framed

pytestmark = pytest.mark.e2e


def shell(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([console_command(), *argv], env=env, capture_output=True, text=True, timeout=60,
                          check=False)


@pytest.fixture
def small_console(term_env: dict[str, str]) -> Iterator[Terminal]:
    term = Terminal([console_command()], term_env, width=80, height=24)
    try:
        yield term
    finally:
        term.close()



def typed(value: str) -> re.Pattern[str]:
    """the ID field holding `value`"""
    return re.compile(rf"▊\s+{value}\s+▎")


def table_header(text: str) -> str:
    return next((line for line in text.splitlines() if "Created" in line and "Status" in line), "")


# --- item 5: no deadline, and a claim mark that leaves the Kind column in place --------------------------------------


def test_no_deadline_is_said_and_a_claim_keeps_the_kind_column(term_env: dict[str, str]) -> None:
    listed = json.loads(shell(term_env, "rfis", "list", "--limit", "15", "--json").stdout)["data"]
    issued = [(i, r) for i, r in enumerate(listed) if r["status"] == "issued"]
    undated = next(i for i, r in issued if not (r["round"] or {}).get("expiresAt"))
    claimed = next(r for _, r in issued if (r["round"] or {}).get("expiresAt"))
    assert shell(term_env, "rfis", "claim", claimed["id"]).returncode == 0
    term = Terminal([console_command()], term_env, width=80, height=24)
    try:
        text = term.wait_for(framed, "Kind", "◆", "no deadline")
        header = table_header(text)
        assert "Kind" in header and "Deadline" in header, text
        claimed_line = next(line for line in text.splitlines() if "◆" in line)
        assert re.search(r"\b(onboarding|transaction)\b", claimed_line), claimed_line
        assert "claimed" in claimed_line, "the Step column says claimed"
        term.send(*["Down"] * undated, "Enter")
        text = term.wait_for("Time left:", framed)
        assert re.search(r"Time left: no deadline", text), text
    finally:
        term.close()


# --- item 3: the banner keeps the due and overdue counts longest ---------------------------------------------------


def test_the_banner_keeps_due_and_overdue_at_80_columns(small_console: Terminal) -> None:
    counts = re.compile(r"ping ✓ · \d+ overdue · \d+ due\b")
    text = small_console.wait_for(framed, lambda t: counts.search(t.splitlines()[0]) is not None)
    top = text.splitlines()[0]
    assert "SANDBOX" in top and "embedded" in top, "the environment and the profile stay too"


# --- item 1: the digits switch screens; / or Enter starts typing an ID ---------------------------------------------


def test_digits_switch_screens_and_slash_or_enter_starts_typing(small_console: Terminal) -> None:
    term = small_console
    term.wait_for(framed, "Page 1 of")
    term.send("2")
    term.wait_for("type a transfer ID", framed)
    term.send("3")
    term.wait_for("type an onramp ID", framed)
    term.send("4")
    text = term.wait_for("type a metric ID", framed)
    assert "34" not in text and "Metric ID (UUID), then Enter" in text, "nothing was typed into an ID field"
    term.send("2")
    term.wait_for("type a transfer ID")
    term.send("Enter")  # start typing: now a digit is part of the ID
    term.wait_for("f1 Help")  # the field has the keys (there ? would be typed)
    term.type("12")
    text = term.wait_for(typed("12"), "type a transfer ID")
    term.send("Escape")  # Esc gives the keys back (the footer says ? and q again): 3 goes to the quote screen
    term.wait_for(framed, typed("12"))
    term.send("3")
    term.wait_for("type an onramp ID", framed)
    term.send("2")
    text = term.wait_for("type a transfer ID", typed("12"), framed)
    term.send("/")
    term.wait_for("f1 Help")
    term.type("3")
    term.wait_for(typed("3"))  # `/` selects what the field holds: typing replaces it, as in an address bar
    term.send("Escape")
    term.wait_for(framed, "? Help")
    term.send("1")
    term.wait_for("Page 1 of", framed)


# --- item 2: a request opens at its top and scrolls with the keyboard ----------------------------------------------


def top_shown(text: str) -> bool:
    """the request's title, its time left and the round's items on screen"""
    shown = text.splitlines()
    return (len(shown) > 2 and "Request for information" in shown[2]
            and "Time left:" in text and "Items (" in text)


def scrolled(text: str) -> bool:
    """the title scrolled away"""
    return "Request for information" not in text


def test_a_request_opens_at_its_top_and_the_keys_bring_the_top_back(small_console: Terminal) -> None:
    term = small_console
    term.wait_for(framed, "Page 1 of")
    term.send("Enter")
    term.wait_for(framed, top_shown, "Time left:", "esc Back")
    for away, back in (("PageDown", "Home"), ("PageDown", "PageUp"), ("Down", "Up")):
        term.send(*[away] * 6)
        term.wait_for(framed, scrolled)
        term.send(*[back] * 6)
        term.wait_for(framed, top_shown)
    term.send("Tab")  # the items, on the first screen: nothing scrolls
    term.wait_for(framed, top_shown)
    term.send("Tab")  # the note field, below the request: the body scrolls to it (the footer offers f1 there)
    term.wait_for(scrolled, "Add a note", "f1 Help")
    term.send("Tab", "Tab")  # the request's top again, then the items
    term.wait_for(framed, top_shown, "? Help")


# --- item 4: F1 lists this screen's own keys, readably, over the whole screen; Esc or F1 closes it -----------------


def help_open(title: str) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return f"Keys: {title}" in text
    check.__doc__ = f"the help of {title}"
    return check


def test_f1_lists_the_screens_own_keys_and_esc_or_f1_closes_it(small_console: Terminal) -> None:
    term = small_console
    term.wait_for(framed, "Page 1 of")
    term.send("F1")
    text = term.wait_for(help_open("RFI inbox"), re.compile(r"\bn {2,}Next page"))
    assert "Page Left" not in text and "^pgup" not in text, "no table's own cursor keys"
    box = next(line for line in text.splitlines() if "Keys: RFI inbox" in line)
    assert len(box.rstrip()) >= 76, f"the help is not squeezed into a side panel: {box!r}"
    term.send("Escape")
    term.wait_for(framed, "Page 1 of", lambda t: "Keys:" not in t)
    term.send("2")
    term.wait_for("type a transfer ID")
    term.send("F1")
    text = term.wait_for(help_open("Batch lookup"), re.compile(r"/, ⏎ {2,}Type a transfer ID"))
    assert re.search(r"\br {2,}Fetch the shown transfer again", text), text
    term.send("F1")
    term.wait_for(framed, "type a transfer ID", lambda t: "Keys:" not in t)


# --- item 6: the Team chart's plain axis title and bars; the audit table's headings whole --------------------------


def test_the_audit_table_and_the_team_chart_read_whole_at_80_columns(term_env: dict[str, str]) -> None:
    listed = json.loads(shell(term_env, "rfis", "list", "--status", "issued", "--limit", "1", "--json").stdout)
    rfi = listed["data"][0]["id"]
    assert shell(term_env, "rfis", "claim", rfi).returncode == 0
    assert shell(term_env, "rfis", "ready", rfi, "--note", "statement checked").returncode == 0
    term = Terminal([console_command()], term_env, width=80, height=24)
    try:
        term.wait_for(framed, "Page 1 of")
        term.send("6")
        text = term.wait_for(framed, "of the latest", "made an answer ready")
        header = next(line for line in text.splitlines() if "Time (UTC)" in line)
        assert re.search(r"\bOutcome\s*$", header), f"the Outcome heading is whole: {header!r}"
        outcomes = [line.split()[-1] for line in text.splitlines() if "claimed a request" in line]
        assert outcomes == ["claimed"], text
        term.send("7")
        text = term.wait_for(framed, "Requests per week", "issued (")
        assert "periodStart" not in text and re.search(r"^\s+Week\s*$", text, re.M), text
        assert "█" in text and not re.search(r"[⠁-⣿]", text), "weekly counts are bars, not a curve"
    finally:
        term.close()


# --- item 10: keys of your own ---------------------------------------------------------------------------------------


def test_the_users_keymap_shows_in_the_footer_and_works(term_env: dict[str, str], isolated_config: Path) -> None:
    isolated_config.mkdir(parents=True, exist_ok=True)
    (isolated_config / "keymap.toml").write_text('"inbox.refresh" = "f5"\n"inbox.next" = "j"\n', encoding="utf-8")
    term = Terminal([console_command()], term_env, width=80, height=24)
    try:
        text = term.wait_for(framed, "Page 1 of", "f5 Refresh")
        assert "j Next" in text.splitlines()[-1], text.splitlines()[-1]
        term.send("j")
        term.wait_for(framed, "Page 2 of")
    finally:
        term.close()
