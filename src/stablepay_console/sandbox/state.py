"""The sandbox's mutable world: its data, the keys it accepts, its faults and what it was asked."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stablepay_console.sandbox.data import SandboxData
from stablepay_console.sandbox.faults import Faults

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


@dataclass
class SandboxState:
    """The sandbox's mutable world: its data, its keys and its faults."""

    data: SandboxData
    environment: str = "sandbox"
    keys: dict[str, str] = field(default_factory=dict)
    """key value -> descriptive name; only these keys are accepted."""
    faults: Faults = field(default_factory=Faults)
    ping_path: str = "/ping"
    """Where the key check answers: "/ping" as the contract has it, or "/v2/ping" as the provider's own published
    description has it (the other one is an unknown route, 404)."""
    rng: random.Random = field(default_factory=lambda: random.Random(99))
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(method, path) of every API request received, for tests that count requests."""
    on_keys_changed: Callable[[dict[str, str]], None] | None = None
    """Told the accepted keys after its dashboard made or deleted one (the console keeps them for its
    simulated production)."""
    on_rfi_changed: Callable[[Rfi, str], None] | None = None
    """Told each request the control routes raised, asked again, answered or closed (`sandbox.webhooks`)."""
    _index: dict[tuple[str | None, str | None, str | None], list[bytes]] = field(default_factory=dict)
    _index_version: int = -1

    def rfi_changed(self, rfi: Rfi, action: str) -> None:
        if self.on_rfi_changed is not None:
            self.on_rfi_changed(rfi, action)

    def keys_changed(self) -> None:
        if self.on_keys_changed is not None:
            self.on_keys_changed(dict(self.keys))

    def matching(self, status: str | None, kind: str | None, user_id: str | None) -> list[bytes]:
        """The wire JSON of every RFI matching the filters, newest first (cached until the data changes)."""
        if self._index_version != self.data.rfis.version:
            self._index.clear()
            self._index_version = self.data.rfis.version
        key = (status, kind, user_id)
        found = self._index.get(key)
        if found is None:
            found = [
                row.wire
                for row in self.data.rfis.rows
                if (status is None or row.status == status)
                and (kind is None or row.kind == kind)
                and (user_id is None or row.user_id == user_id)
            ]
            self._index[key] = found
        return found
