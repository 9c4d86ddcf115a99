"""The triage steps on our side, beside the provider's status: which step a request is at, and what may follow.

A request is `unclaimed`, `claimed`, `ready` (the answer is prepared, awaiting review), `approved`
(a second analyst checked it) or `waiting` (on the user, the team's clock paused). The provider's
`submitted`, `resolved` and `expired` close it. Steps:

    claimed --ready--> ready --approve--> approved
       ^                 |  \\                |
       +----reject-------+   +----reject-----+
    claimed/ready --wait--> waiting --resume--> claimed

Only the claimant makes a request ready; the one who made it ready never approves it (four eyes);
a rejection says why. The steps are one table (`storage/triage_steps.py`); the team record's database
enforces the same rules (migrations 0003 and 0004); this module says them first, in words, and is the only
check for the local record.
"""

from __future__ import annotations

from collections.abc import Sequence

from stablepay_console.storage.record_triage_types import TriageCase, TriageStep
from stablepay_console.storage.record_types import Claim
from stablepay_console.storage.triage_steps import (
    APPROVED,
    BY_NAME,
    CLAIMANT,
    CLAIMED,
    CLOSED,
    NOT_MAKER,
    READY,
    STEPS,
    UNCLAIMED,
    WAITING,
    Step,
)

__all__ = ["ACTION_OF", "AFTER", "APPROVED", "CLAIMED", "CLOSED", "FROM", "LABELS", "READY", "UNCLAIMED", "WAITING",
           "maker_of", "offered", "ready_at", "refusal", "step_of"]

AFTER = {step.name: step.leads_to for step in STEPS}
"""The step a request is at after each action."""
FROM = {step.name: step.takes_from for step in STEPS}
"""The steps each action may be taken from."""
ACTION_OF = {step.name: step.action for step in STEPS}
"""The audit log's name of each action."""
LABELS = {UNCLAIMED: "unclaimed", CLAIMED: "claimed", READY: "ready", APPROVED: "approved", WAITING: "waiting"}


def step_of(status: str | None, claim: Claim | None, steps: Sequence[TriageStep]) -> str:
    """Where a request is: the provider's closing status, else the last step (claimed or not)."""
    if status in CLOSED:
        return str(status)
    at = AFTER[steps[-1].step] if steps else CLAIMED
    if at == CLAIMED and claim is None:
        return UNCLAIMED
    return at


def maker_of(steps: Sequence[TriageStep]) -> str | None:
    """Who made the answer under review ready (the last `ready`), if it is under review or approved."""
    made = ready_at(steps)
    return made.actor if made is not None else None


def refusal(action: str, case: TriageCase, actor: str, note: str = "") -> str | None:
    """Why `actor` may not take `action` on the request now; None when they may."""
    step = BY_NAME.get(action)
    if step is None:
        return f"'{action}' is not a triage step"
    now = step_of(case.status, case.claim, case.steps)
    rfi = case.rfi_id
    if now in CLOSED:
        return f"{rfi} is closed: the provider says it is {now}"
    if step.note_required and not note.strip():
        return "a rejection needs a note saying why (--note TEXT)"
    if now not in step.takes_from:
        return f"{rfi} is {LABELS.get(now, now)}; '{action}' needs it {' or '.join(step.takes_from)}"
    if step.who == CLAIMANT and (case.claim is None or case.claim.claimant != actor):
        holder = case.claim.claimant if case.claim is not None else "nobody"
        return f"only the claimant makes an answer ready; {rfi} is claimed by {holder}"
    if step.who == NOT_MAKER and maker_of(case.steps) == actor:
        return f"four eyes: {actor} made the answer ready and cannot approve it; another analyst approves it"
    return None


def ready_at(steps: Sequence[TriageStep]) -> TriageStep | None:
    """The `ready` step of the answer under review or approved (the last one, unless sent back since)."""
    for step in reversed(steps):
        if step.step == "ready":
            return step
        if step.step in ("reject", "resume"):
            return None
    return None


def offered(case: TriageCase, actor: str) -> list[Step]:
    """The steps `actor` may take on the request now, in the table's order: what the console offers (a step the
    rules would refuse is not offered; a rejection's note is asked for when it is taken)."""
    return [step for step in STEPS if refusal(step.name, case, actor, note="a note") is None]
