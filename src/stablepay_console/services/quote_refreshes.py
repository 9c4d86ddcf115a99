"""Every quote refresh of this session for one onramp, and how the rate and amounts moved."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from stablepay_console.api.models import OnrampTransfer, QuoteInformation

MAX_KEPT = 50
"""Refreshes kept per onramp in one session: plenty to read a trend, bounded against a long day."""


@dataclass(frozen=True)
class QuoteRefresh:
    at: datetime
    onramp: OnrampTransfer

    @property
    def quote(self) -> QuoteInformation | None:
        return self.onramp.quote


def change(new: Decimal | None, old: Decimal | None) -> Decimal | None:
    """new - old, or None when either is unknown (an unreadable or missing value)."""
    if new is None or old is None:
        return None
    try:
        return new - old
    except ArithmeticError:
        return None


class QuoteHistory:
    """The refreshes of the onramp on screen, newest last. Another onramp starts a new history."""

    def __init__(self) -> None:
        self.onramp_id: str | None = None
        self.refreshes: list[QuoteRefresh] = []

    def add(self, onramp: OnrampTransfer, at: datetime) -> None:
        if onramp.details.id != self.onramp_id:
            self.onramp_id, self.refreshes = onramp.details.id, []
        self.refreshes.append(QuoteRefresh(at, onramp))
        del self.refreshes[:-MAX_KEPT]

    def clear(self) -> None:
        self.onramp_id, self.refreshes = None, []

    @property
    def latest(self) -> QuoteRefresh | None:
        return self.refreshes[-1] if self.refreshes else None

    @property
    def previous(self) -> QuoteInformation | None:
        """The quote before the latest one (what the change display compares against)."""
        return self.refreshes[-2].quote if len(self.refreshes) > 1 else None

    def __len__(self) -> int:
        return len(self.refreshes)
