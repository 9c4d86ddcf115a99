"""The evidence pack: one folder an auditor can read without tools, about one request.

    rfi.json     the request as last seen (with when and under which profile)
    rounds.json  every round seen (items, deadline, link state, submittedAt, what changed) and the status timeline
    notes.json   the notes and the claim
    audit.json   the audit entries about this request, with their hashes
    README.md    all of it in plain words

Written into a hidden folder beside the target and renamed into place once complete; an existing
folder is never overwritten (the target name is claimed first, so a race cannot replace it either).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from stablepay_console.services.export.evidence_readme import readme
from stablepay_console.services.history_view import history_json
from stablepay_console.storage.record import Record
from stablepay_console.storage.record_types import AuditEntry, Claim, Note, RfiHistory
from stablepay_console.storage.writing import not_written


@dataclass(frozen=True)
class EvidencePack:
    path: Path
    rounds: int
    notes: int
    entries: int


class EvidenceError(Exception):
    """The pack cannot be written where asked; the message says why (nothing was left behind)."""


def default_name(rfi_id: str, now: datetime) -> str:
    return f"evidence-{rfi_id}-{now.strftime('%Y%m%d-%H%M%S')}"


def resolve_target(output: str | Path, rfi_id: str, now: datetime) -> Path:
    """The pack's folder: `output` itself when it does not exist yet, else a dated folder inside it."""
    path = Path(output).expanduser()
    if path.is_dir():
        path = path / default_name(rfi_id, now)
    if path.exists():
        raise EvidenceError(f"{path} already exists; an evidence pack never overwrites anything.")
    if not path.parent.is_dir():
        raise EvidenceError(f"The folder {path.parent} does not exist.")
    return path


@dataclass(frozen=True)
class Gathered:
    history: RfiHistory
    notes: list[Note]
    claim: Claim | None
    entries: list[AuditEntry]


def gather(record: Record, profile: str, rfi_id: str) -> Gathered:
    return Gathered(
        record.history(profile, rfi_id),
        record.notes(profile, rfi_id),
        record.claim_of(profile, rfi_id),
        record.audit(target=rfi_id, profile=profile),
    )


def _dump(value: Any) -> str:
    # ASCII only: every character a terminal could act on is a \u escape, and the values decode exactly.
    return json.dumps(value, indent=2, ensure_ascii=True, sort_keys=False, default=str) + "\n"


def _note_json(note: Note) -> dict[str, Any]:
    shown: dict[str, Any] = {"author": note.author, "at": note.at.isoformat(), "text": note.text}
    if note.imported is not None:
        shown["imported"] = {**note.imported.to_json(), "description": note.imported.describe()}
    return shown


def files_of(found: Gathered, written_at: datetime, writer: str, version: str) -> dict[str, str]:
    h = found.history
    record = h.record
    claim = found.claim
    return {
        "rfi.json": _dump({
            "profile": h.profile,
            "environment": record.environment if record else None,
            "firstSeen": record.first_seen.isoformat() if record else None,
            "lastSeen": record.last_seen.isoformat() if record else None,
            "request": h.last_request(),
        }),
        "rounds.json": _dump({key: value for key, value in history_json(h).items() if key in ("rounds", "statuses")}),
        "notes.json": _dump({
            "notes": [_note_json(n) for n in found.notes],
            "claim": {"claimant": claim.claimant, "since": claim.at.isoformat()} if claim else None,
        }),
        "audit.json": _dump({"entries": [e.to_json() for e in found.entries]}),
        "README.md": readme(found.history, found.notes, found.claim, found.entries, written_at, writer, version),
    }


def write_pack(found: Gathered, target: Path, written_at: datetime, writer: str, version: str) -> EvidencePack:
    """Write the five files into a temporary folder beside `target`, then rename it into place."""
    try:
        os.mkdir(target, 0o700)  # claims the name: fails if anything is there already
    except FileExistsError:
        raise EvidenceError(f"{target} already exists; an evidence pack never overwrites anything.") from None
    except OSError as exc:
        raise EvidenceError(str(not_written("the evidence pack", target, exc))) from None
    staging: Path | None = None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent))
        for name, text in files_of(found, written_at, writer, version).items():
            (staging / name).write_text(text, encoding="utf-8")
        os.replace(staging, target)  # over the empty folder claimed above; fails if anything was put in it
    except OSError as exc:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        _remove_if_empty(target)
        raise EvidenceError(str(not_written("the evidence pack", target, exc))) from None
    return EvidencePack(target, len(found.history.rounds), len(found.notes), len(found.entries))


def _remove_if_empty(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass
