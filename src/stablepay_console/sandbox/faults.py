"""Faults the sandbox can inject, for tests and benchmarks."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FAULT_KINDS = ("500", "429", "502_html", "invalid_json", "truncated", "401")


@dataclass
class Faults:
    """Per-request fault injection. Mutable at run time: tests flip it mid-session.

    `force` applies one fault kind to every API request (or to the next `force_count`
    requests when that is set); the `*_rate` fields inject faults at random.
    """

    latency: float = 0.0
    error_rate: float = 0.0
    rate_limit_rate: float = 0.0
    malformed_rate: float = 0.0
    retry_after: int = 1
    force: str | None = None
    force_count: int | None = None
    seed: int = 1
    requests: int = 0
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self.rng.seed(self.seed)
        if self.force is not None and self.force not in FAULT_KINDS:
            raise ValueError(f"Unknown fault {self.force!r}; choose from {', '.join(FAULT_KINDS)}.")

    def pick(self) -> str | None:
        """The fault for the request now arriving, if any."""
        self.requests += 1
        if self.force is not None:
            if self.force_count is None:
                return self.force
            if self.force_count > 0:
                self.force_count -= 1
                return self.force
            return None
        roll = self.rng.random()
        if roll < self.error_rate:
            return "500"
        roll -= self.error_rate
        if roll < self.rate_limit_rate:
            return "429"
        roll -= self.rate_limit_rate
        if roll < self.malformed_rate:
            return self.rng.choice(["502_html", "invalid_json", "truncated"])
        return None

    def clear(self) -> None:
        self.force = None
        self.force_count = None
        self.error_rate = self.rate_limit_rate = self.malformed_rate = 0.0
        self.latency = 0.0
