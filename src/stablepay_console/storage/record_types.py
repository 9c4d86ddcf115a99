"""What goes into the local record and what comes out: plain values, no SQL, no UI.

Times are stored as text (`stamp`): ISO 8601 in UTC to the millisecond, so they sort as text and
the audit chain hashes exactly what is stored. Every string from a server arrives here already
cleaned by the services (JSON text through `json_safe`, single values through `clean`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

from stablepay_console.api.sanitize import clean
from stablepay_console.storage.record_json import UNREADABLE, loads_object


def stamp(moment: datetime) -> str:
    """`2026-11-20T09:30:00.000+00:00`: one fixed form, so stored times compare as text."""
    if moment.tzinfo is None:
        raise ValueError("The record keeps timezone-aware times only.")
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")


def parse_stamp(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


# --- in: what a fetch saw -------------------------------------------------------------------


@dataclass(frozen=True)
class RoundSighting:
    """One round as fetched: its JSON text and its fingerprint.

    The columns a round entry keeps beside its text (id, times, link) are read from that text, and only
    when a new entry is written: most sightings are of a round already kept and need the fingerprint alone.
    """

    round_no: int
    wire_json: str
    """The round as the server sent it, as JSON text (already safe: unsafe characters as `\\uXXXX`)."""
    fingerprint: str
    """Changes whenever anything about the round changes: a different fingerprint is a new round entry."""

    @cached_property
    def _sent(self) -> dict[str, Any]:
        return loads_object(self.wire_json) or {}

    def _text(self, name: str, max_len: int) -> str | None:
        value = self._sent.get(name)
        return None if value is None else clean(value, max_len)

    def _stamp(self, name: str) -> str | None:
        value = self._sent.get(name)
        return None if value is None else stamp(datetime.fromisoformat(str(value)))

    @property
    def round_id(self) -> str:
        return self._text("id", 80) or ""

    @property
    def issued_at(self) -> str:
        issued = self._stamp("issuedAt")
        if issued is None:
            raise ValueError("A round is kept with its issuedAt.")
        return issued

    @property
    def expires_at(self) -> str | None:
        return self._stamp("expiresAt")

    @property
    def submitted_at(self) -> str | None:
        return self._stamp("submittedAt")

    @property
    def link(self) -> str | None:
        return self._text("link", 2000) or None


class RfiSighting:
    """One request as fetched: its ID and status, its fingerprint, its JSON text and its round.

    `fingerprint` changes whenever anything about the request or its round changes. A request the record
    already holds with the same fingerprint (most of a page, most of the time) needs nothing else, so the
    JSON text and the round may come as `details`: made on first use, on the record's thread, and only for
    a request that is new or changed. `rfis due` fingerprints 35,000 requests to write a few."""

    __slots__ = ("_details", "_round", "_wire_json", "fingerprint", "rfi_id", "status")

    def __init__(self, rfi_id: str, status: str, fingerprint: str, wire_json: str = "",
                 round: RoundSighting | None = None, *,
                 details: Callable[[], tuple[str, RoundSighting | None]] | None = None) -> None:
        self.rfi_id, self.status, self.fingerprint = rfi_id, status, fingerprint
        self._wire_json, self._round, self._details = wire_json, round, details

    def _made(self) -> None:
        if self._details is not None:
            self._wire_json, self._round = self._details()
            self._details = None  # what they were made from (the bytes as fetched) is let go

    @property
    def wire_json(self) -> str:
        """The request as the server sent it, without its round (rounds are kept apart), as safe JSON text."""
        self._made()
        return self._wire_json

    @property
    def round(self) -> RoundSighting | None:
        self._made()
        return self._round

    def __repr__(self) -> str:
        return f"RfiSighting({self.rfi_id!r}, {self.status!r}, {self.fingerprint!r})"


@dataclass(frozen=True)
class SeenPage:
    """What one fetch (a page of the list) saw, for one profile, at one time."""

    profile: str
    environment: str
    at: datetime
    sightings: tuple[RfiSighting, ...]


# --- out: what the record holds -------------------------------------------------------------


@dataclass(frozen=True)
class RfiRecord:
    profile: str
    rfi_id: str
    environment: str
    status: str
    wire: dict[str, Any]
    """The request as last seen, without its round."""
    has_round: bool
    """Whether a round was open when it was last seen (the latest round entry)."""
    first_seen: datetime
    last_seen: datetime
    imported_by: str | None = None
    """Who imported it from a local record (the team record), until the team watcher sees it itself."""


@dataclass(frozen=True)
class RoundSeen:
    """One round as it was seen; a round that changed between fetches is the next entry."""

    entry: int
    """1, 2, 3…: the order the entries were seen in."""
    round_no: int
    round_id: str
    issued_at: datetime
    expires_at: datetime | None
    submitted_at: datetime | None
    link: str | None
    wire: dict[str, Any]
    """The round exactly as the server sent it."""
    first_seen: datetime
    last_seen: datetime
    imported_by: str | None = None
    """Who imported it from a local record (the team record); None when the team watcher saw it itself."""

    @property
    def link_state(self) -> str:
        return "open" if self.link else "gone"

    @property
    def items(self) -> list[dict[str, Any]]:
        items = self.wire.get("items")
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


@dataclass(frozen=True)
class StatusSeen:
    status: str
    first_seen: datetime
    last_seen: datetime
    imported_by: str | None = None
    """Who imported it from a local record (the team record); None when the team watcher saw it itself."""


IMPORTED_NOTE = "not seen by the team watcher; it counts in no total"


@dataclass(frozen=True)
class RfiHistory:
    profile: str
    rfi_id: str
    record: RfiRecord | None
    rounds: list[RoundSeen] = field(default_factory=list)
    statuses: list[StatusSeen] = field(default_factory=list)

    @property
    def seen(self) -> bool:
        return self.record is not None

    def last_request(self) -> dict[str, Any] | None:
        """The request as last seen, its latest round put back in place."""
        if self.record is None:
            return None
        wire = dict(self.record.wire)
        wire["round"] = self.rounds[-1].wire if self.record.has_round and self.rounds else None
        return wire


@dataclass(frozen=True)
class Imported:
    """A row copied from a local record into the team record: the importer's testimony, never the writer's own."""

    source: str
    """Where it came from (`host:/path/record.sqlite3`)."""
    by: str
    """The role that imported it (the database's word)."""
    on: datetime | str | None
    """When it was imported (the database's clock); None when a version-1 record did not keep it."""
    written_as: str
    """Who the local record said wrote it (its typed author or actor)."""
    written_at: datetime | str | None = None

    def describe(self) -> str:
        """`imported by alice on 2026-11-26 from a local record, where it was written as bob`"""
        when = self.on.strftime(" on %Y-%m-%d") if isinstance(self.on, datetime) else (
            f" on {self.on[:10]}" if isinstance(self.on, str) and self.on else "")
        return f"imported by {self.by}{when} from a local record, where it was written as {self.written_as}"

    def to_json(self) -> dict[str, Any]:
        def text(value: datetime | str | None) -> str | None:
            return value.isoformat() if isinstance(value, datetime) else value

        return {"importedBy": self.by, "importedAt": text(self.on), "importedFrom": self.source,
                "writtenAs": self.written_as, "writtenAt": text(self.written_at)}


Issued = tuple[str, str | None, str | None]
"""An issued request as the team record keeps it: its wire JSON (without its round), its current round's wire JSON,
and that round's deadline as a stamp."""

DueIssued = tuple[str, str, int | None, str | None, str]
"""An issued request due by a time, as the team record keeps it: its ID, its wire JSON (without its round), its
current round's number, that round's wire JSON (None unless asked for) and its deadline (a stamp)."""

OpenRound = tuple[str, int, str, str | None]
"""An issued request's current round as the team record keeps it: the request's ID, the round's number, its
`issuedAt` and its `expiresAt` (stamps)."""


def kept_text(wire: str, round_wire: str | None) -> str:
    """The request as one JSON text, its round put back in place (the round is the request's last field), as
    `services.kept` keeps it: no model is built."""
    body = wire.rstrip()[:-1].rstrip()
    return f"{body}{',' if body != '{' else ''}\"round\":{round_wire or 'null'}}}"


@dataclass(frozen=True)
class Note:
    note_id: int
    profile: str
    rfi_id: str
    author: str
    """Who wrote it; for an imported note, who imported it (see `imported`)."""
    at: datetime
    text: str
    imported: Imported | None = None


@dataclass(frozen=True)
class Claim:
    profile: str
    rfi_id: str
    claimant: str
    at: datetime
    until: datetime | None = None
    """When the claim lapses (team record, `rfis claim --for`); None: held until released."""
    assigned_by: str | None = None
    """The lead who assigned it to the claimant (team record, `rfis assign`); None: the claimant took it."""


@dataclass(frozen=True)
class TeamMember:
    """A person of the team a request may be assigned to (team record: a login in stablepay_analyst)."""

    name: str
    lead: bool = False


@dataclass(frozen=True)
class ClaimOutcome:
    """What a claim or release came to. `done` is False when someone else holds the claim."""

    done: bool
    claim: Claim | None
    """The claim in force afterwards (None once released)."""
    previous: Claim | None = None
    refusal: str = ""
    """Why the store refused, when the database's rules did (a team lead's release, say); "" otherwise."""


@dataclass(frozen=True)
class AuditDraft:
    """An entry to append; the store gives it its number and its place in the chain."""

    at: datetime
    actor: str
    profile: str
    environment: str
    action: str
    target: str = ""
    outcome: str = "ok"
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AuditEntry:
    """An appended entry, its fields exactly as stored (the chain hashes these)."""

    seq: int
    at: str
    actor: str
    profile: str
    environment: str
    action: str
    target: str
    outcome: str
    detail: str
    """JSON text of the details (never a key, never a request body)."""
    prev_hash: str
    hash: str
    imported: Imported | None = None
    """Set on an entry copied from a local record (not covered by the hash: the database sets it)."""

    @property
    def time(self) -> datetime:
        return parse_stamp(self.at)

    typed: bool | None = None
    """In the team record: True when a member typed it, False when the database wrote it with the act (None: the
    local record, where the console writes every entry; or not known)."""

    @property
    def details(self) -> dict[str, Any]:
        """The details' fields; none when they cannot be read (see `readable`)."""
        return loads_object(self.detail) or {}

    @property
    def readable(self) -> bool:
        """Whether the details are a JSON object within the bounds every reader of the record keeps."""
        return loads_object(self.detail) is not None

    def content(self) -> dict[str, Any]:
        """What the entry's own hash covers (with the previous hash)."""
        return {
            "seq": self.seq,
            "at": self.at,
            "actor": self.actor,
            "profile": self.profile,
            "environment": self.environment,
            "action": self.action,
            "target": self.target,
            "outcome": self.outcome,
            "detail": self.detail,
        }

    def to_json(self) -> dict[str, Any]:
        detail: dict[str, Any] | str = self.details if self.readable else UNREADABLE
        shown = {**self.content(), "detail": detail, "prevHash": self.prev_hash, "hash": self.hash}
        if self.typed is not None:
            shown["typed"] = self.typed
        if self.imported is not None:
            shown["imported"] = {**self.imported.to_json(), "description": self.imported.describe()}
        return shown


@dataclass(frozen=True)
class AuditHead:
    """The chain's count and last hash, kept beside the log so a cut-off tail shows."""

    count: int
    hash: str


@dataclass(frozen=True)
class Sweep:
    server: str
    swept_at: datetime
    interval_seconds: int
    by_role: str
    radar: str
    age_seconds: float
    """How long ago, by the database's clock."""

    @property
    def fresh(self) -> bool:
        """Swept within the last two intervals: the watcher is alive."""
        return self.age_seconds <= 2 * self.interval_seconds
