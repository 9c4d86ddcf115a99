"""The evidence pack's README.md: the whole story of one request, readable in any text viewer."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from stablepay_console.api.sanitize import clean
from stablepay_console.services.audit import ACTIONS
from stablepay_console.services.history_view import changes_per_round, imported_words, item_line, moment, status_lines
from stablepay_console.storage.record_types import AuditEntry, Claim, Note, RfiHistory


def _md(value: object, max_len: int | None = None) -> str:
    """Cleaned text that cannot start Markdown structure of its own (a heading, a list, a table)."""
    text = clean(value, max_len)
    for ch in ("\\", "`", "*", "_", "[", "]", "<", ">", "|", "#"):
        text = text.replace(ch, "\\" + ch)
    return text


def _request_lines(request: dict[str, Any] | None) -> list[str]:
    if request is None:
        return ["Never seen by this console under this profile: nothing was recorded about it."]
    fields = (
        ("ID", "id"), ("Kind", "kind"), ("Status", "status"), ("Subject", "subjectType"), ("User", "userId"),
        ("Held transfer", "transferId"), ("Flow", "flowType"), ("Created", "createdAt"),
        ("Current round", "currentRound"),
    )
    return [f"- {label}: {_md(request.get(key), 200)}" for label, key in fields if request.get(key) is not None]


def _rounds(history: RfiHistory) -> list[str]:
    if not history.rounds:
        return ["No round was seen.", ""]
    out: list[str] = []
    for r, changes in zip(history.rounds, changes_per_round(history), strict=True):
        out += [
            f"### Entry {r.entry}: round {r.round_no}",
            "",
            *([f"- **Imported**: {_md(imported_words(r.imported_by))}"] if r.imported_by else []),
            f"- Seen from {moment(r.first_seen)} to {moment(r.last_seen)}",
            f"- Round ID: {_md(r.round_id)}",
            f"- Issued: {moment(r.issued_at)}",
            f"- Deadline: {moment(r.expires_at, 'none given')}",
            f"- Answered: {moment(r.submitted_at, 'not answered')}",
            f"- Hosted link: {r.link_state}" + (f" ({_md(r.link, 300)})" if r.link else ""),
        ]
        if changes:
            out.append("- What changed from the entry before: " + _md("; ".join(changes)))
        out += ["", f"Items ({len(r.items)}):" if r.items else "No items.", ""]
        out += [f"{n}. {_md(item_line(i))}" for n, i in enumerate(r.items, start=1)]
        out.append("")
    return out


def _notes(notes: list[Note], claim: Claim | None) -> list[str]:
    out = [f"Claimed by {_md(claim.claimant)} since {moment(claim.at)}." if claim else "Not claimed.", ""]
    if not notes:
        return [*out, "No notes."]
    for note in notes:
        text = " / ".join(_md(line, 1000) for line in note.text.splitlines() if line.strip())
        said = f" ({_md(note.imported.describe(), 300)})" if note.imported is not None else ""
        out.append(f"- {moment(note.at)}, {_md(note.author, 80)}{said}: {text}")
    return out


def _actions(entries: list[AuditEntry]) -> list[str]:
    if not entries:
        return ["No action on this request was recorded."]
    out = []
    for e in entries:
        what = ACTIONS.get(e.action, e.action)
        out.append(
            f"- #{e.seq} {_md(e.at)} · {_md(e.actor, 80)} · {_md(what, 60)} · outcome: {_md(e.outcome, 200)}"
            f" · hash {e.hash[:16]}…" + (f" · {_md(e.imported.describe(), 300)}" if e.imported is not None else "")
        )
    return out


def readme(
    history: RfiHistory,
    notes: list[Note],
    claim: Claim | None,
    entries: list[AuditEntry],
    written_at: datetime,
    writer: str,
    version: str,
) -> str:
    record = history.record
    where = f"profile {_md(history.profile)}" + (f" ({_md(record.environment)})" if record else "")
    lines = [
        f"# Evidence: request for information {_md(history.rfi_id)}",
        "",
        f"Written {moment(written_at)} by {_md(writer, 80)} with stablepay-console {_md(version)}, from the "
        f"local record of {where}. It holds what this console saw: the API returns only a request's "
        "current round, so earlier rounds are known only if the console fetched the request while they were open.",
        "",
        "## The request, as last seen",
        "",
    ]
    if record is not None:
        lines.append(f"First seen {moment(record.first_seen)}, last seen {moment(record.last_seen)}.")
        if record.imported_by:
            lines.append(f"**Imported**: {_md(imported_words(record.imported_by))}.")
        lines.append("")
    lines += _request_lines(history.last_request())
    lines += ["", f"## Rounds seen ({len(history.rounds)})", "", *_rounds(history)]
    lines += ["## Status timeline", ""]
    lines += [f"- {_md(line)}" for line in status_lines(history)] or ["No status was seen."]
    lines += ["", f"## Claim and notes ({len(notes)})", "", *_notes(notes, claim)]
    lines += ["", f"## Actions recorded ({len(entries)})", "", *_actions(entries)]
    lines += [
        "",
        "## The files",
        "",
        "- rfi.json: the request as last seen.",
        "- rounds.json: every round entry (items, deadline, link state, answer time, what changed) and the "
        "status timeline.",
        "- notes.json: the notes and the claim.",
        "- audit.json: the audit entries about this request. Each carries the SHA-256 of the entry before it "
        "(prevHash) and of its own content (hash); `stablepay-console audit verify` checks the whole log.",
        "",
    ]
    return "\n".join(lines)
