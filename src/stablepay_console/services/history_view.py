"""A request's recorded history as a person reads it (text) and as a program reads it (JSON).

Shared by `rfis history`, the evidence pack and the RFI detail. Every string is cleaned here:
what the record holds came from a server.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from stablepay_console.api.models import DOC_TYPES
from stablepay_console.api.sanitize import clean
from stablepay_console.storage.record_triage_types import TriageStep
from stablepay_console.storage.record_types import IMPORTED_NOTE, RfiHistory, RoundSeen, StatusSeen


def moment(value: datetime | None, missing: str = "none") -> str:
    """`2026-11-20 09:30 UTC` (to the minute), or `missing`."""
    if value is None:
        return missing
    if value.utcoffset() == timedelta(0):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    return value.isoformat(timespec="minutes")


def item_line(item: dict[str, Any]) -> str:
    """`[required] Proof of address (document: Proof of address): utility bill or bank letter`"""
    label = clean(item.get("label") or "(no label)", 200)
    kind = clean(item.get("kind") or "item", 30)
    doc = item.get("docType")
    if kind == "document":
        doc_name = DOC_TYPES.get(doc, f"untyped: {clean(doc, 40)}") if doc else "no standard type"
        kind = f"document: {doc_name}"
    line = f"{'[required] ' if item.get('required') else ''}{label} ({kind})"
    detail = item.get("detail")
    return f"{line}: {clean(detail, 300)}" if detail else line


def _label(item: dict[str, Any]) -> str:
    return clean(item.get("label") or item.get("id") or "(no label)", 80)


def _items_by_id(r: RoundSeen) -> dict[str, dict[str, Any]]:
    return {str(i.get("id")): i for i in r.items}


def _round_fields(before: RoundSeen, after: RoundSeen) -> list[str]:
    changes: list[str] = []
    if after.round_id != before.round_id or after.round_no != before.round_no:
        changes.append(f"compliance asked again: round {after.round_no} (was round {before.round_no})")
    if after.issued_at != before.issued_at:
        changes.append(f"issued {moment(after.issued_at)} (was {moment(before.issued_at)})")
    if after.expires_at != before.expires_at:
        changes.append(f"deadline {moment(after.expires_at)} (was {moment(before.expires_at)})")
    return changes


def _item_changes(before: RoundSeen, after: RoundSeen) -> list[str]:
    old, new = _items_by_id(before), _items_by_id(after)
    groups = (
        ("items added: ", [_label(i) for k, i in new.items() if k not in old]),
        ("items dropped: ", [_label(i) for k, i in old.items() if k not in new]),
        ("items reworded or changed: ", [_label(i) for k, i in new.items() if k in old and old[k] != i]),
    )
    return [said + "; ".join(labels) for said, labels in groups if labels]


def _reply_and_link(before: RoundSeen, after: RoundSeen) -> list[str]:
    changes: list[str] = []
    if after.submitted_at != before.submitted_at:
        answered = after.submitted_at is not None
        changes.append(f"answered at {moment(after.submitted_at)}" if answered else "no longer shown as answered")
    if after.link_state != before.link_state:
        changes.append("hosted link gone" if after.link is None else "hosted link available")
    elif after.link != before.link:
        changes.append("hosted link replaced")
    return changes


def round_changes(before: RoundSeen, after: RoundSeen) -> list[str]:
    """What differs from one round entry to the next, in plain words."""
    changes = _round_fields(before, after) + _item_changes(before, after) + _reply_and_link(before, after)
    return changes or ["other fields changed"]


def _round_json(r: RoundSeen, changes: list[str]) -> dict[str, Any]:
    return {
        "entry": r.entry,
        "round": r.round_no,
        "roundId": r.round_id,
        "issuedAt": r.issued_at.isoformat(),
        "expiresAt": r.expires_at.isoformat() if r.expires_at else None,
        "submittedAt": r.submitted_at.isoformat() if r.submitted_at else None,
        "linkState": r.link_state,
        "link": r.link,
        "items": r.items,
        "firstSeen": r.first_seen.isoformat(),
        "lastSeen": r.last_seen.isoformat(),
        "changes": changes,
        "importedBy": r.imported_by,
    }


def _status_json(s: StatusSeen) -> dict[str, Any]:
    return {"status": s.status, "firstSeen": s.first_seen.isoformat(), "lastSeen": s.last_seen.isoformat(),
            "importedBy": s.imported_by}


def changes_per_round(history: RfiHistory) -> list[list[str]]:
    """For each round entry, what changed from the entry before (nothing for the first)."""
    rounds = history.rounds
    return [[]] + [round_changes(a, b) for a, b in pairwise(rounds)] if rounds else []


def step_json(step: TriageStep) -> dict[str, Any]:
    return {"step": step.step, "by": clean(step.actor, 80), "at": step.at.isoformat(), "round": step.round_no,
            "note": step.note or None}


def step_lines(steps: list[TriageStep]) -> list[str]:
    """`2026-11-20 09:30 UTC  round 1  ready    alice: statement and ID checked`, oldest first."""
    width = max((len(s.step) for s in steps), default=0)
    return [f"{moment(s.at)}  round {s.round_no if s.round_no is not None else '?'}  {s.step.ljust(width)}  "
            f"{clean(s.actor, 80)}" + (f": {clean(s.note, 300)}" if s.note else "") for s in steps]


def history_json(history: RfiHistory, steps: list[TriageStep] | None = None) -> dict[str, Any]:
    record = history.record
    return {
        "profile": history.profile,
        "rfiId": history.rfi_id,
        "seen": record is not None,
        "environment": record.environment if record else None,
        "status": record.status if record else None,
        "firstSeen": record.first_seen.isoformat() if record else None,
        "lastSeen": record.last_seen.isoformat() if record else None,
        "importedBy": record.imported_by if record else None,
        "rounds": [_round_json(r, c) for r, c in zip(history.rounds, changes_per_round(history), strict=True)],
        "statuses": [_status_json(s) for s in history.statuses],
        "steps": [step_json(s) for s in steps or []],
    }


def imported_words(by: str | None) -> str:
    """How an imported round or status is labelled wherever it is shown ("" for the watcher's own)."""
    return f"imported by {clean(by, 80)} from a local record: {IMPORTED_NOTE}" if by else ""


def round_lines(r: RoundSeen, changes: list[str], indent: str = "  ") -> list[str]:
    lines = [
        f"Entry {r.entry}: round {r.round_no}, seen {moment(r.first_seen)} to {moment(r.last_seen)}"
        + (f" ({imported_words(r.imported_by)})" if r.imported_by else ""),
        f"{indent}Round ID {clean(r.round_id)} · issued {moment(r.issued_at)}",
        f"{indent}Deadline {moment(r.expires_at, 'none given')} · "
        f"{'answered ' + moment(r.submitted_at) if r.submitted_at else 'not answered'} · "
        f"hosted link {r.link_state}",
    ]
    if changes:
        lines.append(f"{indent}Changed: " + "; ".join(changes))
    lines.append(f"{indent}Items ({len(r.items)}):" if r.items else f"{indent}No items.")
    lines.extend(f"{indent}  {n}. {item_line(i)}" for n, i in enumerate(r.items, start=1))
    return lines


def status_lines(history: RfiHistory) -> list[str]:
    width = max((len(clean(s.status)) for s in history.statuses), default=0)
    return [
        f"{clean(s.status).ljust(width)}  first seen {moment(s.first_seen)}, last seen {moment(s.last_seen)}"
        + (f" ({imported_words(s.imported_by)})" if s.imported_by else "")
        for s in history.statuses
    ]


def history_text(history: RfiHistory, steps: list[TriageStep] | None = None) -> str:
    record = history.record
    if record is None:
        return (
            f"Request {clean(history.rfi_id)} has not been seen under profile {clean(history.profile)}: the record "
            "keeps what this console received (open the inbox or run a headless command to fetch it)."
        )
    lines = [
        f"Request {clean(history.rfi_id)} · profile {clean(history.profile)} ({clean(record.environment)})",
        f"Status now {clean(record.status)} · first seen {moment(record.first_seen)} · "
        f"last seen {moment(record.last_seen)}"
        + (f" ({imported_words(record.imported_by)})" if record.imported_by else ""),
        "",
        f"Rounds seen ({len(history.rounds)}):" if history.rounds else "No round seen.",
    ]
    for r, changes in zip(history.rounds, changes_per_round(history), strict=True):
        lines.extend("  " + line for line in round_lines(r, changes))
    lines += ["", "Status timeline:", *("  " + line for line in status_lines(history))]
    if steps:
        lines += ["", f"Triage steps ({len(steps)}):", *("  " + line for line in step_lines(steps))]
    return "\n".join(lines)
