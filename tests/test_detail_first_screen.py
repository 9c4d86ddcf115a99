"""The installed console in tmux, at 80x24 and 200x50: a request opens on what the analyst came for (issue 49,
item 9). Its first screen, unscrolled, shows the time left and the round's first required item; the request's
details come below them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.terminal import Terminal, console_command, framed

pytestmark = pytest.mark.e2e

SIZES = [(80, 24), (200, 50)]
REQUIRED_ITEM = re.compile(r"^ *1 +(document|question|\S+) +required +\S", re.MULTILINE)
"""The items table's first row, a required item, with its type or label after the mark."""


@pytest.fixture(params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def console(request: pytest.FixtureRequest, term_env: dict[str, str]) -> Iterator[Terminal]:
    width, height = request.param
    term = Terminal([console_command()], term_env, width=width, height=height)
    try:
        yield term
    finally:
        term.close()



def needs_action_loaded(text: str) -> bool:
    """the needs-action view with its first rows"""
    return "View: needs action" in text and re.search(r"\bissued\b", text) is not None


def test_the_detail_opens_on_the_time_left_and_the_first_required_item(console: Terminal) -> None:
    console.wait_for(framed, "Page 1 of")
    console.send("a")  # needs action: the nearest deadline first, an issued request with a round open
    console.wait_for(framed, needs_action_loaded)
    console.send("Enter")
    screen = console.wait_for(framed, "Request for information", "Time left: in ", REQUIRED_ITEM)
    lines = screen.rstrip("\n").split("\n")
    assert "Request for information" in lines[2], "the detail is at its top, not scrolled"
    link = next(line for line in lines if "ink: " in line)
    assert "/rfi/respond/" in link or "/…/" in link, link
    link_id = re.search(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", link)
    assert link_id is not None, f"the link's ID is not whole on its line: {link!r}"
