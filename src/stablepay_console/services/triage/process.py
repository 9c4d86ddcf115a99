"""A request's process, as its detail shows it: the step it is at, who holds it, the time left to its next
service level, what may be done next, and every step taken on its current round (who, when, step, note).

UI-free: the detail reads the case and the policy from the record (`Triage.case`) and renders what this decides.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.triage.due import RowTriage, row_triage
from stablepay_console.services.triage.state import LABELS, offered
from stablepay_console.storage.record_triage_types import TriageCase, TriagePolicy, TriageStep
from stablepay_console.storage.triage_steps import Step

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


@dataclass(frozen=True)
class Process:
    rfi_id: str
    step: str
    """Where the request stands: unclaimed, claimed, ready, approved, waiting, or the provider's closing status."""
    holder: str | None
    assigned_by: str | None
    due: RowTriage
    """The step and the time left to the next service level (None: no level ahead)."""
    history: tuple[TriageStep, ...]
    offered: tuple[Step, ...]
    """The steps the reader may take now (the console's keys and palette offer only these)."""

    @property
    def said(self) -> str:
        return LABELS.get(self.step, self.step)


def process(rfi: Rfi, case: TriageCase, policy: TriagePolicy, me: str, now: datetime) -> Process:
    """`case` as the record has it, `rfi` as the API sent it just now (its status is the newer)."""
    case = replace(case, status=rfi.status)
    claim = case.claim
    due = row_triage(rfi, claim, case.steps, policy, now)
    return Process(rfi.id, due.step, claim.claimant if claim else None, claim.assigned_by if claim else None, due,
                   case.steps, tuple(offered(case, me)))

