"""What the team listener tells the screens, as a Textual message: the listener knows no screen, and each screen
that shows something of the team handles `TeamChanged` with `@on` and reads again what it touched."""

from __future__ import annotations

from textual.message import Message

from stablepay_console.services.team.live import Change


class TeamChanged(Message):
    """Another console (or this one) changed a note, a claim or a step; `resync`: read everything again."""

    def __init__(self, change: Change) -> None:
        super().__init__()
        self.change = change

    @property
    def everything(self) -> bool:
        return self.change.kind == "resync"

    def touches(self, *kinds: str) -> bool:
        """Whether a view of these kinds ("claims", "notes", "triage") must read again."""
        return self.everything or self.change.kind in kinds
