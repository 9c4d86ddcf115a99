"""The console started on the screen a test is about, instead of on the inbox."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from textual.widget import AwaitMount

from stablepay_console.tui.app import ConsoleApp


class OpenedOn(ConsoleApp):
    """The console, started as it always is (record notices, ping, key notices, exit signals), except that its
    first screen is `mode` instead of the inbox.

    A test of the batch lookup, say, then does not load, page and draw the inbox first (the dearest screen to
    start: it loads a page, reads the record and draws a table). The test's own way to its screen (`open_mode`, the
    screen's number key) still works: switching to the screen already shown changes nothing. Tests that go back to
    the inbox load it then, as the console does.
    """

    CSS_PATH = str(Path(inspect.getfile(ConsoleApp)).parent / str(ConsoleApp.CSS_PATH))

    def __init__(self, mode: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.first_mode: str | None = mode

    def switch_mode(self, mode: str) -> AwaitMount:
        if self.first_mode is not None and mode == "inbox":  # ConsoleApp.start() opening its first screen
            mode, self.first_mode = self.first_mode, None
        return super().switch_mode(mode)
