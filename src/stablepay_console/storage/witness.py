"""Witnesses of the audit chain: the last chain head this machine saw of each record, kept in its own data folder.

The chain shows an entry changed, removed or reordered, and the head kept beside it a cut-off end. What it
cannot show on its own: a superuser who re-hashes the whole chain (and its head), or a restore from an older
backup that drops the last entries together with the head. Anyone who saw the original notices: the entry
they saw last is no longer there with that hash, or the record holds fewer entries than they saw.

Each console and command that opens a record looks once (`look`): it compares what the record holds now with
what this machine saw, and keeps the new head only when they agree and the whole chain verifies up to it (a
witness moves forward on a good chain only: a broken log's head, kept, would raise a false alarm once the log is
repaired). When they do not, the old witness is kept (the warning stays until someone deals with it: `audit
verify` says how). A witness file that cannot be read is said, with its path, and left as it is: never replaced.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import record_json
from stablepay_console.storage.record_types import AuditHead
from stablepay_console.storage.writing import write_atomically

WITNESS_NAME = "chain-witness.json"


@dataclass(frozen=True)
class Seen:
    """The head of a record's chain as this machine last saw it."""

    count: int
    hash: str
    at: str
    """When it was seen (ISO 8601, UTC)."""


@dataclass(frozen=True)
class WitnessCheck:
    seen: Seen | None
    """What this machine saw before (None: it never looked at this record)."""
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem

    def describe(self) -> str:
        if self.problem:
            return self.problem
        if self.seen is None:
            return "This machine had not seen this record's audit log before; it keeps the head it sees now."
        return (f"The audit log still holds entry {self.seen.count} as this machine saw it on "
                f"{self.seen.at[:16].replace('T', ' ')} UTC, and nothing before it was dropped.")

    def to_json(self) -> dict[str, Any]:
        seen = None if self.seen is None else {"count": self.seen.count, "hash": self.seen.hash, "at": self.seen.at}
        return {"ok": self.ok, "seen": seen, "problem": self.problem or None}


def compare(seen: Seen | None, head: AuditHead | None, hash_at: Callable[[int], str | None]) -> WitnessCheck:
    """What the record holds now (`head`, and `hash_at(seq)` of one entry) against what was seen."""
    if seen is None or seen.count == 0:
        return WitnessCheck(seen)
    when = f"{seen.at[:16].replace('T', ' ')} UTC"
    holds = head.count if head is not None else 0
    if holds < seen.count:
        return WitnessCheck(seen, (
            f"The audit log holds {holds} entries, but this machine saw {seen.count} on {when} (entry {seen.count}, "
            f"hash {seen.hash[:12]}…): entries were removed, or an older copy of the record was restored."))
    now = hash_at(seen.count)
    if now != seen.hash:
        return WitnessCheck(seen, (
            f"Entry {seen.count} of the audit log no longer has the hash this machine saw on {when} "
            f"({seen.hash[:12]}…, now {clean(now or 'missing', 64)[:12]}…): the log up to it was rewritten and "
            "re-hashed."))
    return WitnessCheck(seen)


class WitnessUnreadable(Exception):
    """The witness file is there but cannot be read: it is left as it is, and said."""


class Witness:
    """The witness file (`chain-witness.json` in the data folder): one seen head per record, by its key.

    `holds(record)` says whether a record's whole chain verifies (the services' `verify`): the witness moves forward
    only when it does."""

    def __init__(self, path: Path, holds: Callable[[Any], bool] | None = None) -> None:
        self.path = path
        self.holds = holds

    def _all(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise WitnessUnreadable(self._unreadable(clean(str(exc), 200))) from None
        try:
            data = record_json.loads(text, max_chars=1_000_000, max_depth=4)
        except record_json.UnreadableJson:
            raise WitnessUnreadable(self._unreadable("it is not the JSON this console writes")) from None
        if not isinstance(data, dict):
            raise WitnessUnreadable(self._unreadable("it is not the JSON this console writes"))
        return data

    def _unreadable(self, why: str) -> str:
        return (f"This machine's witness of the audit log, {self.path}, cannot be read ({why}); it was left as it is, "
                "so nothing this machine saw is lost. Move it aside once you have looked at it: the next look starts "
                "a new one.")

    def seen(self, key: str) -> Seen | None:
        found = self._all().get(key)
        if not isinstance(found, dict):
            return None
        try:
            return Seen(int(found["count"]), str(found["hash"]), str(found["at"]))
        except (KeyError, TypeError, ValueError):
            return None

    def keep(self, key: str, head: AuditHead | None) -> None:
        """Remember `head` as seen now (a failure to write is the caller's to ignore: NotWritten)."""
        if head is None:
            return
        data = self._all()
        data[key] = {"count": head.count, "hash": head.hash, "at": datetime.now(timezone.utc).isoformat()}
        self._write(data)

    def forget(self, key: str) -> None:
        data = self._all()
        if data.pop(key, None) is not None:
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        write_atomically(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n", "the audit log's witness")

    def look(self, key: str, head: AuditHead | None, hash_at: Callable[[int], str | None],
             chain_ok: Callable[[], bool]) -> WitnessCheck:
        """Compare, and keep the new head when the record still holds what was seen and `chain_ok()` (asked only
        then: the whole chain verifies). A witness file that cannot be read is the check's problem, untouched."""
        try:
            seen = self.seen(key)
        except WitnessUnreadable as exc:
            return WitnessCheck(None, str(exc))
        found = compare(seen, head, hash_at)
        moved = head is not None and (seen is None or (seen.count, seen.hash) != (head.count, head.hash))
        if found.ok and moved and chain_ok():
            self.keep(key, head)  # written only when the log moved on: most runs add nothing to write
        return found
