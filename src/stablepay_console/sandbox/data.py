"""Deterministic, seeded sandbox data built from the api models.

The pieces live beside this module: `ids` (well-known IDs, keys, sample IDs), `rfi_gen` (RFIs that
keep the spec's rules), `transfers` (batches and onramps), `metrics_data` (saved metric results).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from stablepay_console.api.models import DOC_TYPES, BatchTransfer, OnrampTransfer, RfiItem
from stablepay_console.sandbox.ids import (
    BATCH_50_ID,
    BATCH_FAILED_ID,
    BATCH_PENDING_ID,
    BATCH_SMALL_ID,
    BATCH_UNKNOWN_CHAIN_ID,
    BOOKMARKED_METRICS,
    METRIC_DAILY_VOLUME_ID,
    METRIC_EMPTY_ID,
    METRIC_HOURLY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
    SAMPLE_IDS,
    SANDBOX_KEY,
    UNKNOWN_DOC_TYPE,
)
from stablepay_console.sandbox.metrics_data import make_metrics
from stablepay_console.sandbox.rfi_gen import make_items, make_rfi, new_uuid
from stablepay_console.sandbox.rfi_store import RfiStore
from stablepay_console.sandbox.transfers import (
    REFRESHED_QUOTE_VALIDITY,
    make_batches,
    make_onramps,
    quote_for,
    refreshed,
)

__all__ = [
    "BATCH_50_ID",
    "BATCH_FAILED_ID",
    "BATCH_PENDING_ID",
    "BATCH_SMALL_ID",
    "BATCH_UNKNOWN_CHAIN_ID",
    "BOOKMARKED_METRICS",
    "DOC_TYPES_SERVED",
    "METRIC_DAILY_VOLUME_ID",
    "METRIC_EMPTY_ID",
    "METRIC_HOURLY_VOLUME_ID",
    "METRIC_MONTHLY_VOLUME_ID",
    "METRIC_TX_COUNT_ID",
    "ONRAMP_COMPLETED_ID",
    "ONRAMP_OPEN_ID",
    "ONRAMP_OPEN_NO_EXPIRY_ID",
    "REFRESHED_QUOTE_VALIDITY",
    "SAMPLE_IDS",
    "SANDBOX_KEY",
    "UNKNOWN_DOC_TYPE",
    "SandboxData",
    "quote_for",
]

DOC_TYPES_SERVED = [*DOC_TYPES, UNKNOWN_DOC_TYPE, None]


@dataclass
class SandboxData:
    """Everything the sandbox serves, generated from a seed and a notion of now."""

    seed: int = 7
    rfi_count: int = 240
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    frozen: bool = False
    """True when `now` was given (tests): refreshes then happen at `now`, not at the wall clock."""
    rfis: RfiStore = field(default_factory=RfiStore)
    batches: dict[str, BatchTransfer] = field(default_factory=dict)
    onramps: dict[str, OnrampTransfer] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.now = self.now.replace(microsecond=0)
        rng = random.Random(self.seed)
        self.users = [new_uuid(rng) for _ in range(40)]
        # Each RFI is built as a model (so the sandbox only ever sends what the client reads),
        # then kept as its wire JSON: a large sandbox stays small in memory.
        self.rfis = RfiStore(make_rfi(rng, i, self.now, self.users) for i in range(self.rfi_count))
        self.batches = make_batches(rng, self.now, self.users, self.seed)
        self.onramps = make_onramps(rng, self.now, self.users)
        self.metrics = make_metrics(rng, self.now)

    def _items(self, rng: random.Random, round_no: int) -> list[RfiItem]:
        """A round's items (the loopback control routes open new rounds with these)."""
        return make_items(rng, round_no)

    def refresh_quote(self, onramp_id: str, rng: random.Random) -> OnrampTransfer:
        """A new rate a little off the last one, and a new expiry."""
        self.onramps[onramp_id] = refreshed(self.onramps[onramp_id], rng, self.now_moving())
        return self.onramps[onramp_id]

    def now_moving(self) -> datetime:
        if self.frozen:
            return self.now
        return datetime.now(timezone.utc).replace(microsecond=0)
