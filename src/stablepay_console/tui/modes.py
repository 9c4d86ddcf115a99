"""The console's top-level screens as its tabs, keys and palette name them: each a Textual mode.

Which class each one shows is `tui/screens/__init__.py`'s (imported only when first shown); this is what every
part that names a screen reads, the tabs and the palette included, without importing a screen.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScreenEntry:
    mode: str
    key: str
    title: str
    description: str


TOP_LEVEL = [
    ScreenEntry("inbox", "1", "RFI inbox", "Requests for information, newest first"),
    ScreenEntry("batch", "2", "Batch lookup", "Look up a batch crypto transfer by ID"),
    ScreenEntry("quote", "3", "Quote refresh", "Refresh an onramp's conversion quote"),
    ScreenEntry("metrics", "4", "Metrics", "Run a saved reporting metric as a chart"),
    ScreenEntry("profiles", "5", "Profiles & keys", "Profiles, keys and rotation"),
    ScreenEntry("audit", "6", "Audit log", "What was done with this console, and its check"),
    ScreenEntry("team", "7", "Team", "The team's report: what came in, what was in time, who carried it"),
]
