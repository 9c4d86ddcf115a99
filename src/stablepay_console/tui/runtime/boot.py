"""The console's first frame, painted before the client stack (httpx, pydantic, the sandbox) is loaded.

`stablepay-console` starts on a built-in profile almost every time. For those, the profile to show is
known from the command line, the environment and the profiles file alone, so the console paints its
frame (banner, tabs, footer and "Loading the inbox…") at once and builds its services in a thread;
rows come from the server as soon as they are there. Nothing is faked: the only rows drawn before the
server's are, on a repeat start, the first page the server sent last time, greyed and labelled
"From the record, as of 14:02 UTC · refreshing…" (see `tui.first_rows`).
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from stablepay_console.profiles.model import EMBEDDED_PROFILES, Profile
from stablepay_console.storage import variables
from stablepay_console.tui.screens.base import ConsoleScreen

if TYPE_CHECKING:
    from stablepay_console.services.first_frame import LightRfi
    from stablepay_console.storage.first_page import FirstPage
    from stablepay_console.tui.console import Console

log = logging.getLogger(__name__)

ENV_PROFILE = variables.PROFILE
READ_AT_BOOT = "first_page_read"
"""The app attribute where the boot screen leaves the page it read (None: none kept), so it is read once
(by `tui.first_rows`, which is not imported here: it loads the client stack, never on the first frame's path)."""


def built_in_start(asked: str | None) -> Profile | None:
    """The built-in profile the console would start on, or None when it would start on a configured one.

    Reads only the command line, `STABLEPAY_PROFILE` and the profiles file's default (no keyring,
    no network); anything else takes the full path, which checks the profile's key before the UI.
    """
    from stablepay_console.profiles.store import ProfileStore, ProfileStoreError

    name = asked or os.environ.get(ENV_PROFILE) or None
    if name is None:
        try:
            name = ProfileStore().load().default
        except ProfileStoreError:
            return None  # let the full path say what is wrong with the file
    if name is None:
        return EMBEDDED_PROFILES[0]
    return next((p for p in EMBEDDED_PROFILES if p.name == name), None)


class BootScreen(ConsoleScreen):
    """The inbox's frame while the services load: the banner, the tabs and the footer are real.

    On a repeat start it also paints the inbox's first page as last shown (see `tui.first_rows`),
    greyed and labelled "From the record, as of …": `read_first_page` reads it in the boot thread."""

    HELP = "## Starting\n\nThe console is loading its client and the inbox's first page."

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Loading the inbox…", style="italic"), id="boot-status", classes="hint")

    def on_mount(self) -> None:
        self.call_after_refresh(frame_painted(self.app).set)


_PAINTED: weakref.WeakKeyDictionary[object, threading.Event] = weakref.WeakKeyDictionary()
_PAINTED_LOCK = threading.Lock()


def frame_painted(app: object) -> threading.Event:
    """Set once the boot screen's first frame is painted (the boot thread or the screen may ask first)."""
    with _PAINTED_LOCK:
        return _PAINTED.setdefault(app, threading.Event())


def read_first_page(app: Console) -> None:
    """In the boot thread, first: read the kept first page of the start's profile and paint it on the boot screen.

    It waits for the first frame (at most a second), so the frame is never slowed by it; and it is read
    before the client stack loads in the same thread, so the two never compete for the interpreter."""
    frame_painted(app).wait(1.0)
    try:
        from stablepay_console.services.first_frame import light_rows, read_for_start
        from stablepay_console.tui.widgets.inbox import table  # noqa: F401  - loaded here, not on the UI thread

        profile = app.profile
        page = read_for_start(profile.name, profile.base_url) if profile is not None else None
        rows = light_rows(page) if page is not None else []
    except Exception as exc:  # only a head start: the console starts without it
        log.info("The inbox's kept first page could not be read: %s", type(exc).__name__)
        page, rows = None, []
    app.call_from_thread(_show_first_page, app, page, rows)


def _show_first_page(app: Console, page: FirstPage | None, rows: list[LightRfi]) -> None:
    setattr(app, READ_AT_BOOT, page)  # the inbox paints it too, without reading it again
    screen = app.screen
    if page is None or not rows or not isinstance(screen, BootScreen) or app.ready:
        return
    from stablepay_console.tui.formatters.record_rows import record_line
    from stablepay_console.tui.widgets.inbox.table import InboxTable

    now = app.now()
    screen.query_one("#boot-status", Static).update(record_line(page.at, now))
    table = InboxTable(id="boot-rows", classes="-stale")
    table.styles.height = "1fr"
    screen.mount(table)
    table.show(rows, now, first=True)  # type: ignore[arg-type]  # a LightRfi has every field a row shows
