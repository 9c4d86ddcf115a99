"""A terminal screen (pyte) fed a console's output, read as plain text, cheaply.

The tests that read what a console drew from its raw output (the web mode's WebSocket frames, a tmux pane's
recording) only read text. A Textual frame is mostly colour: pyte parsed each SGR sequence a character at a time
and rebuilt the whole display on each look, seconds of CPU in each browser test. Here the colour sequences are
dropped before pyte sees them (a sequence split between two chunks reaches pyte whole, as before: it only sets
colours), and a look reads again only the lines that changed since the last.
"""

from __future__ import annotations

import re

import pyte
from pyte.screens import wcwidth  # the width pyte itself renders with

COLOURS = re.compile(rb"\x1b\[[0-9;:]*m")
"""SGR: colours and attributes, which no reading here looks at."""


class PlainScreen:
    def __init__(self, columns: int, lines: int) -> None:
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.lines = [""] * lines

    def feed(self, data: bytes) -> None:
        self.stream.feed(COLOURS.sub(b"", data))

    @property
    def display(self) -> list[str]:
        """The screen's lines, as `pyte.Screen.display` has them."""
        for y in self.screen.dirty:
            if 0 <= y < len(self.lines):
                self.lines[y] = self._line(y)
        self.screen.dirty.clear()
        return list(self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.display)

    def _line(self, y: int) -> str:
        """Line `y` as pyte renders it (the cell after a wide character is its stub)."""
        cells, found, stub = self.screen.buffer[y], [], False
        for x in range(self.screen.columns):
            if stub:
                stub = False
                continue
            char = cells[x].data
            stub = wcwidth(char[0]) == 2
            found.append(char)
        return "".join(found)
