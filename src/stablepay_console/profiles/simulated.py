"""The built-in simulated production keeps its key, key date and rotation across restarts (data folder).

So a rotation can be rehearsed end to end: start it, quit half-way, start the console again and
finish it. The file holds keys of the console's in-process simulated production only: that
simulator made them and nothing else accepts them. A key it did not make (a real key pasted into
the wizard by mistake) is kept in memory for the run and never written here.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from stablepay_console.api import ApiKey
from stablepay_console.profiles.age import DUE_MONTHS, add_months
from stablepay_console.profiles.keys import PENDING, PREVIOUS, MemoryVault, entry_name
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE
from stablepay_console.storage import locations
from stablepay_console.storage.writing import NotWritten, write_atomically

log = logging.getLogger(__name__)

STATE_NAME = "simulated-production"
NOTE = (
    "State of stablepay-console's built-in simulated production. These keys were made by the console's "
    "in-process simulator and work nowhere else."
)
MAX_KEYS = 50
"""The simulator never needs more: a file with more was not written by the console."""


class SimulatedVault(MemoryVault):
    """The built-in profiles' keys; those of the simulated production (`profile`) also live in a file."""

    def __init__(self, profile: str = EMBEDDED_PRODUCTION_PROFILE.name, path: Path | None = None) -> None:
        super().__init__()
        self.kept = profile
        self.path = path or locations.state_file(STATE_NAME)
        self._loading = True
        self._load()
        self._loading = False

    # --- the simulator's own keys ------------------------------------------------------

    def simulator_keys(self) -> dict[str, str]:
        """The keys the simulated production accepts (value -> descriptive name), as last recorded."""
        keys = self._read().get("simulator_keys")
        if not isinstance(keys, dict):
            return {}
        found = {}
        for value, name in list(keys.items())[:MAX_KEYS]:
            if isinstance(value, str) and _valid(value) and isinstance(name, str):
                found[value] = name[:80]
        return found

    def record_simulator_keys(self, keys: Mapping[str, str]) -> None:
        """The simulator's keys changed (its dashboard made or deleted one): keep the new set."""
        data = self._read()
        data["simulator_keys"] = dict(list(keys.items())[:MAX_KEYS])
        self._write(data)
        self.changed()  # a key kept only in memory may now be one the simulator made

    def start(self, now: datetime) -> None:
        """Give the simulated production its first key (once): about to be due, so a rotation can be rehearsed."""
        if self.get(self.kept) is not None:
            return
        key = ApiKey(f"sk_production_{secrets.token_hex(16)}")
        self.record_simulator_keys({**self.simulator_keys(), key.reveal(): "console demo key"})
        self.set(self.kept, key)
        self.set_since(self.kept, add_months(now, -DUE_MONTHS) - timedelta(days=3))

    # --- keeping the profile's state ---------------------------------------------------

    def changed(self) -> None:
        if self._loading:
            return
        made = self.simulator_keys()
        keys = {}
        for role in ("", PENDING, PREVIOUS):
            key = self.get(entry_name(self.kept, role))
            if key is not None and key.reveal() in made:
                keys[role or "current"] = key.reveal()
        since = self.since.get(self.kept)
        state = {
            "keys": keys,
            "key_since": since.isoformat() if since is not None else None,
            "rotation": self.progress.get(self.kept),
        }
        data = self._read()
        if data.get("console") != state:
            data["console"] = state
            self._write(data)

    def _load(self) -> None:
        console = self._read().get("console")
        if not isinstance(console, dict):
            return
        keys = console.get("keys")
        for role in ("current", PENDING, PREVIOUS):
            value = keys.get(role) if isinstance(keys, dict) else None
            if isinstance(value, str) and _valid(value):
                self.set(entry_name(self.kept, "" if role == "current" else role), ApiKey(value))
        since = console.get("key_since")
        try:
            when = datetime.fromisoformat(since) if isinstance(since, str) else None
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            self.set_since(self.kept, when)
        rotation = console.get("rotation")
        if isinstance(rotation, dict):
            self.save_progress(self.kept, rotation)  # read back through RotationState, which cleans it

    # --- the file ------------------------------------------------------------------------

    def _read(self) -> dict[str, Any]:
        try:
            if self.path.stat().st_size > 1 << 20:
                return {}
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        data = {"note": NOTE, **{k: v for k, v in data.items() if k != "note"}}
        try:
            write_atomically(self.path, json.dumps(data, indent=2, sort_keys=True), "the rehearsal's keys")
        except NotWritten as exc:  # the rehearsal then lasts for this run only; nothing else depends on it
            log.warning("%s The rehearsal's keys last for this run only.", exc)


def _valid(value: str) -> bool:
    try:
        ApiKey(value)
    except ValueError:
        return False
    return True
