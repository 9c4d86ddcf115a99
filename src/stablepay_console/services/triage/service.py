"""Triage steps, the service-level policy and the report, on the record's thread.

Each step is checked (`triage_state.refusal`) and kept with its audit entry (`triage.<step>`) in one
transaction: both are kept or neither. In the team record the database checks the same rules again
and sets who and when, so a step refused there leaves nothing behind either. A refused step is
audited too (outcome `refused: …`), as a refused claim is.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timedelta

from stablepay_console.api.sanitize import clean
from stablepay_console.profiles.model import Profile
from stablepay_console.services.audit import AuditLog
from stablepay_console.services.notes import author_for, check_note
from stablepay_console.services.triage.queues import QueueAsk, queue_ask
from stablepay_console.services.triage.report import Report, report
from stablepay_console.services.triage.review import ReviewItem, review_queue
from stablepay_console.services.triage.state import ACTION_OF, step_of
from stablepay_console.services.triage.state import refusal as refusal_of
from stablepay_console.storage.record import Offer, Record, RecordRefused, assignments
from stablepay_console.storage.record_triage_types import RoundShown, TriageCase, TriagePolicy, TriageStep
from stablepay_console.storage.record_types import ClaimOutcome, TeamMember
from stablepay_console.storage.record_worker import RecordWorker


@dataclass(frozen=True)
class StepOutcome:
    done: bool
    now: str
    """The step the request is at afterwards (unchanged when refused)."""
    refusal: str = ""
    step: TriageStep | None = None


class Triage:
    def __init__(
        self, worker: RecordWorker, audit: AuditLog, clock: Callable[[], datetime],
        author_of: Callable[[str], str] = author_for,
    ) -> None:
        self.worker = worker
        self.audit = audit
        self.clock = clock
        self.author_of = author_of

    def step(self, profile: Profile, rfi_id: str, action: str, note: str = "",
             author: str | None = None, shown: RoundShown | None = None) -> Future[StepOutcome]:
        """Take `action` (ready, approve, reject, wait, resume) on the request, in `shown`, the round the console
        showed (the record refuses the step where it knows another); ValueError at once for a bad note."""
        text = check_note(note) if note.strip() else ""
        at = self.clock()

        def write(record: Record) -> StepOutcome:
            with record.transaction():
                case = record.triage_case(profile.name, rfi_id)
                # asked once the record is open: in the team record, the database role it connected as
                actor = clean(author, 80) if author else self.author_of(profile.name)
                before = step_of(case.status, case.claim, case.steps)
                # where the store checks the rules itself (the team's database), its word is the one said
                refused = None if Offer.FOUR_EYES in record.offers else refusal_of(action, case, actor, text)
                if refused is None:
                    try:
                        kept = record.add_triage_step(profile.name, rfi_id, action, actor, text, at, shown)
                    except RecordRefused as exc:
                        record.append_audit(self.audit.draft(ACTION_OF[action], profile, target=rfi_id,
                                                             outcome=f"refused: {exc.why}", actor=actor, was=before))
                        return StepOutcome(False, before, exc.why)
                    after = record.triage_case(profile.name, rfi_id)
                    now = step_of(after.status, after.claim, after.steps)
                    if Offer.ACT_ENTRIES not in record.offers:  # else the store wrote the step's entry with it
                        record.append_audit(self.audit.draft(ACTION_OF[action], profile, target=rfi_id, outcome=now,
                                                             actor=actor, was=before, note=text or None))
                    return StepOutcome(True, now, step=kept)
                record.append_audit(self.audit.draft(ACTION_OF[action], profile, target=rfi_id,
                                                     outcome=f"refused: {refused}", actor=actor, was=before))
                return StepOutcome(False, before, refused)

        return self.worker.submit(write)

    def policy(self) -> Future[TriagePolicy]:
        return self.worker.submit(lambda record: record.triage_policy())

    def set_policy(
        self, profile: Profile | None, claim_within: timedelta | None = None, ready_within: timedelta | None = None,
        approve_before: timedelta | None = None,
    ) -> Future[TriagePolicy]:
        """Change the levels given (the team record: a lead's or the owner's right, the database says)."""
        who = self.author_of(profile.name if profile else "")
        at = self.clock()

        def write(record: Record) -> TriagePolicy:
            with record.transaction():
                old = record.triage_policy()
                new = TriagePolicy(claim_within or old.claim_within, ready_within or old.ready_within,
                                   approve_before or old.approve_before)
                kept = record.set_triage_policy(new, who, at)
                if Offer.ACT_ENTRIES in record.offers:  # the store wrote the change's entry with it
                    return kept
                record.append_audit(self.audit.draft(
                    "triage.policy", profile, target="policy", outcome="changed", actor=who,
                    claim_within=int(kept.claim_within.total_seconds()),
                    ready_within=int(kept.ready_within.total_seconds()),
                    approve_before=int(kept.approve_before.total_seconds())))
                return kept

        return self.worker.submit(write)

    def report(self, profile: Profile, since: datetime) -> Future[Report]:
        """The report of the profile's requests (the team record: its server's) issued since `since`."""

        def read(record: Record) -> Report:
            facts = record.triage_facts(profile.name, self.clock())
            return report(facts, since, facts.now or self.clock())

        return self.worker.submit_after_held(read)

    def steps(self, profile: str, rfi_ids: list[str]) -> Future[tuple[dict[str, list[TriageStep]], TriagePolicy]]:
        """The current round's steps of each request shown, and the policy (the inbox's columns)."""
        return self.worker.submit(lambda record: (record.triage_steps(profile, rfi_ids), record.triage_policy()))

    def case(self, profile: str, rfi_id: str) -> Future[tuple[TriageCase, TriagePolicy]]:
        """Where the request stands in the record, and the policy (the detail's process)."""
        return self.worker.submit(lambda record: (record.triage_case(profile, rfi_id), record.triage_policy()))

    def review_queue(self, profile: str, me: str | None = None) -> Future[list[ReviewItem]]:
        """The answers made ready by someone else than `me` (by default, who this console acts as), oldest first."""

        def read(record: Record) -> list[ReviewItem]:
            return review_queue(record, profile, me or self.author_of(profile))

        return self.worker.submit(read)

    def queue(self, profile: str, queue: str, me: str | None = None) -> Future[QueueAsk]:
        """Which requests are in `queue` (my requests, awaiting my review) for `me` (by default, who this console
        acts as), from the claims and steps of the whole account."""

        def read(record: Record) -> QueueAsk:
            return queue_ask(record, profile, me or self.author_of(profile), queue)

        return self.worker.submit(read)

    def analysts(self) -> Future[list[TeamMember]]:
        """Who a request may be assigned to (the team record's analysts); RecordError where there is no team."""
        return self.worker.submit(lambda record: assignments(record).team_analysts())

    def assign(self, profile: Profile, rfi_id: str, analyst: str) -> Future[ClaimOutcome]:
        """Give the request to `analyst` (a lead's right: the database refuses anyone else, in its own words, and
        writes the claim, its log and its audit entry `triage.assign`)."""
        name = clean(analyst, 80).strip()
        if not name:
            raise ValueError("Say who the request is assigned to (an analyst's name).")
        return self.worker.submit(lambda record: assignments(record).assign(profile.name, rfi_id, name))
