"""The audit log: who did what, under which profile, to what, and how it came out. Tamper-evident.

Each entry has a time, an actor (the OS user name unless the profile sets one), the profile and
its environment, an action, a target ID and an outcome, plus a few details (never a key, never a
request body). Each carries the SHA-256 of the previous entry and of its own content; `verify`
walks the chain and names the first entry where it breaks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import STEP_TITLES, StepEvent
from stablepay_console.storage.record import Record
from stablepay_console.storage.record_chain import GENESIS, entry_hash
from stablepay_console.storage.record_types import AuditDraft, AuditEntry, AuditHead
from stablepay_console.storage.record_worker import RecordWorker

if TYPE_CHECKING:
    from stablepay_console.api.models import OnrampTransfer, QuoteInformation
    from stablepay_console.services.switching import SwitchOutcome

ACTIONS = {
    "profile.switch": "switched profile",
    "ping": "pinged the API",
    "quote.refresh": "refreshed a quote",
    "key.rotation": "key rotation",
    "export": "exported requests",
    "link.open": "open a link",
    "link.copy": "copy a link",
    "note.add": "added a note",
    "claim": "claimed a request",
    "claim.release": "released a claim",
    "evidence.write": "wrote an evidence pack",
    "triage.ready": "made an answer ready",
    "triage.approve": "approved an answer",
    "triage.reject": "rejected an answer",
    "triage.wait": "waits on the user",
    "triage.resume": "resumed after the user",
    "triage.policy": "changed the service levels",
}
"""The actions the console appends, with how a person reads them (what was asked: the outcome says how it went)."""

MAX_DETAIL = 300


def _detail(values: dict[str, Any]) -> dict[str, Any]:
    """Details as short safe text (numbers and booleans kept as they are)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None or isinstance(value, bool | int):
            out[clean(key, 40)] = value
        else:
            out[clean(key, 40)] = clean(value, MAX_DETAIL)
    return out


class AuditLog:
    """Appends run on the record's thread: a screen calls `append` and goes on at once."""

    def __init__(self, worker: RecordWorker, actor_for: Callable[[str], str], clock: Callable[[], datetime]) -> None:
        self.worker = worker
        self.actor_for = actor_for
        self.clock = clock

    def draft(
        self, action: str, profile: Profile | None, *, target: str = "", outcome: str = "ok", actor: str | None = None,
        **detail: Any,
    ) -> AuditDraft:
        name, environment = (profile.name, profile.environment) if profile is not None else ("", "")
        return AuditDraft(
            at=self.clock(),
            actor=clean(actor or self.actor_for(name), 80),
            profile=clean(name, 80),
            environment=clean(environment, 20),
            action=clean(action, 40),
            target=clean(target, 120),
            outcome=clean(outcome, 200),
            detail=_detail(detail),
        )

    def append(
        self, action: str, profile: Profile | None, *, target: str = "", outcome: str = "ok", **detail: Any
    ) -> Future[AuditEntry]:
        """Append an entry in the background; the future holds it once written."""
        draft = self.draft(action, profile, target=target, outcome=outcome, **detail)
        return self.worker.fire(lambda record: record.append_audit(draft), f"the audit entry '{draft.action}'")

    def switched(self, outcome: SwitchOutcome, was: Profile | None) -> Future[AuditEntry]:
        """A profile switch, applied or refused, with its ping result."""
        result = (outcome.ping or "switched") if outcome.ok else f"not switched: {outcome.problem}"
        previous = was.name if was is not None else ""
        return self.append("profile.switch", outcome.profile, target=outcome.profile.name, outcome=result,
                           previous=previous)

    def quote_refreshed(
        self, profile: Profile | None, onramp_id: str, old: QuoteInformation | None, new: OnrampTransfer | None,
        problem: str = "",
    ) -> Future[AuditEntry]:
        """A quote refresh: the onramp, the rate before (when this session saw one) and after, or why it failed."""
        quote = new.quote if new is not None else None
        return self.append(
            "quote.refresh", profile, target=onramp_id, outcome=f"failed: {problem}" if problem else "refreshed",
            old_rate=str(old.rate) if old is not None else None, new_rate=str(quote.rate) if quote else None,
        )

    def exported(
        self, profile: Profile | None, filters: RfiFilters | str, path: Path, count: int | None, problem: str = "",
        target: str = "",
    ) -> Future[AuditEntry]:
        """An export: its filters (or what it holds), its file and how many records (or why none was written)."""
        what = filters.describe() if isinstance(filters, RfiFilters) else filters
        return self.append("export", profile, target=target, outcome=problem or "written", filters=what,
                           file=str(path), count=count)

    def rotation_hook(self, profile: Profile) -> Callable[[StepEvent], None]:
        """For `Rotation.on_step`: one entry per step of a key rotation, its outcome naming the step taken and how
        it came out (`done: step 1 (…); next step 2 (…)`, `failed: step 3 (…); back to step 2 (…)`). Never a key,
        not even masked: the wizard's own words for a failure can name one, so they stay on its screen."""

        def step(event: StepEvent) -> None:
            self.append("key.rotation", profile, target=profile.name, outcome=event.outcome(),
                        step=int(event.reached), title=STEP_TITLES[event.reached])

        return step


@dataclass(frozen=True)
class ChainReport:
    checked: int
    broken_at: int | None = None
    """The number (seq) of the first broken entry; None when the chain holds."""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.broken_at is None

    def describe(self) -> str:
        if self.ok:
            return f"The audit log is intact: {self.checked} entries, each chained to the one before."
        return f"The audit log is broken at entry {self.broken_at}: {self.reason}"


def verify_chain(entries: Iterable[AuditEntry], head: AuditHead | None) -> ChainReport:
    """Walk the entries in order; the first that was changed, removed, reordered or cut off is named."""
    expected_seq, prev, checked = 1, GENESIS, 0
    for entry in entries:
        if entry.seq != expected_seq:
            if entry.seq > expected_seq:
                reason = f"entries {expected_seq} to {entry.seq - 1} are missing (removed)."
                return ChainReport(checked, expected_seq, reason)
            return ChainReport(checked, entry.seq, f"it appears again after entry {expected_seq - 1} (reordered).")
        if entry.prev_hash != prev:
            reason = "it does not follow the entry before it (entries were removed, inserted or reordered)."
            return ChainReport(checked, entry.seq, reason)
        if entry_hash(entry.prev_hash, entry.content()) != entry.hash:
            return ChainReport(checked, entry.seq, _changed(entry))
        prev, expected_seq, checked = entry.hash, expected_seq + 1, checked + 1
    if head is not None and (head.count != checked or head.hash != prev):
        if head.count > checked:
            reason = f"the log ends at entry {checked} but {head.count} were written (the end was cut off)."
            return ChainReport(checked, checked + 1, reason)
        return ChainReport(checked, checked, "the log's end does not match the recorded head (it was changed).")
    return ChainReport(checked)


def _changed(entry: AuditEntry) -> str:
    what = ACTIONS.get(entry.action, clean(entry.action, 40))
    return (
        f"its content no longer matches its hash: it was changed after it was written "
        f"(now reads: {clean(entry.at)} {clean(entry.actor, 40)} {what} {clean(entry.target, 60)} "
        f"→ {clean(entry.outcome, 60)})."
    )


def verify(record: Record) -> ChainReport:
    return verify_chain(record.audit(), record.audit_head())
