"""The console's first frame, painted before the client stack (httpx, pydantic, the sandbox) is loaded.

`stablepay-console` starts on a built-in profile almost every time. For those, the profile to show is
known from the command line, the environment and the profiles file alone, so the console paints its
frame (banner, tabs, footer and "Loading the inbox…") at once and builds its services in a thread;
rows come from the server as soon as they are there. Nothing is faked: no row is drawn before the
server sent it.
"""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from stablepay_console.profiles.model import EMBEDDED_PROFILES, Profile
from stablepay_console.tui.screens.base import ConsoleScreen

ENV_PROFILE = "STABLEPAY_PROFILE"


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
    """The inbox's frame while the services load: the banner, the tabs and the footer are real."""

    HELP = "## Starting\n\nThe console is loading its client and the inbox's first page."

    def compose_body(self) -> ComposeResult:
        yield Static(Text("Loading the inbox…", style="italic"), id="boot-status", classes="hint")
