"""The top-level screens, each a Textual mode, imported only when first shown."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from textual.screen import Screen


@dataclass(frozen=True)
class ScreenEntry:
    mode: str
    key: str
    title: str
    module: str
    cls: str
    description: str

    def load(self) -> Screen:
        module = importlib.import_module(f"stablepay_console.tui.screens.{self.module}")
        screen: Screen = getattr(module, self.cls)()
        return screen


TOP_LEVEL = [
    ScreenEntry("inbox", "1", "RFI inbox", "inbox", "InboxScreen", "Requests for information, newest first"),
    ScreenEntry("batch", "2", "Batch lookup", "batch", "BatchScreen", "Look up a batch crypto transfer by ID"),
    ScreenEntry("quote", "3", "Quote refresh", "quote", "QuoteScreen", "Refresh an onramp's conversion quote"),
    ScreenEntry("metrics", "4", "Metrics", "metrics", "MetricsScreen", "Run a saved reporting metric as a chart"),
    ScreenEntry("profiles", "5", "Profiles & keys", "profiles", "ProfilesScreen", "Profiles, keys and rotation"),
    ScreenEntry("audit", "6", "Audit log", "audit", "AuditScreen", "What was done with this console, and its check"),
    ScreenEntry("team", "7", "Team", "team", "TeamScreen", "The team's report: what came in, what was in time, who "
                "carried it"),
]
