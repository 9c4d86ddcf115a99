"""What a running (headless) console would write to the terminal, and checks on it.

`terminal_text(app)` renders the screen stack (background screens, the active screen or modal,
its notifications) the way Textual's driver does, to a string of terminal output. Textual's own
output holds only SGR colour sequences and cursor moves; `raw_controls` strips exactly those
and reports every other control, escape, bidi or separator character left: anything server
text smuggled through unescaped.
"""

from __future__ import annotations

import io
import re
import unicodedata
from typing import Any

from rich.console import Console

from tests.hostile_payloads import RAW_CHARS

OWN_SEQUENCES = re.compile(r"\x1b\[[0-9;:]*m|\x1b\[\d+;\d+H")
"""What Textual writes for a full screen update: colours and attributes (SGR), cursor positions."""

ESCAPED_MARKERS = ("\\x1b", "\\u202e", "\\x9b")
"""How the sanitiser shows hostile characters: proof the hostile text was drawn (escaped)."""


def terminal_text(app: Any) -> str:
    """The bytes (as text) a full repaint of what is on screen now sends to the terminal."""
    width, height = app.size
    written = io.StringIO()
    console = Console(
        width=width,
        height=height,
        file=written,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return written.getvalue()


def unsafe(ch: str) -> bool:
    return ch in RAW_CHARS or (ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"))


def raw_controls(output: str) -> list[str]:
    """Every unsafe character left once Textual's own sequences are removed (should be none)."""
    return sorted({repr(ch) for ch in OWN_SEQUENCES.sub("", output) if unsafe(ch)})


def visible_text(output: str) -> str:
    """The output without Textual's own sequences: roughly what a person reads."""
    return OWN_SEQUENCES.sub("", output)


def assert_nothing_raw(app: Any, where: str) -> str:
    """Fail, naming the step, if the terminal output holds a raw control; return the visible text."""
    output = terminal_text(app)
    left = raw_controls(output)
    assert not left, f"{where}: raw characters reach the terminal: {left}"
    assert "\x1b]" not in OWN_SEQUENCES.sub("", output), f"{where}: an OSC sequence reaches the terminal"
    return visible_text(output)
