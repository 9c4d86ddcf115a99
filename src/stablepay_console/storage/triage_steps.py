"""The triage steps, in one table: what each is called, where it may be taken from, where it leads, who may take it,
whether it needs a note, and how a person reads it.

Everything else follows this table: the services' rules and words (`services/triage/state.py`), the shell's
commands, their help and what they say was done (`cli/triage_commands.py`, `cli/triage_runs.py`), the console's keys,
palette words and notices (`tui/triage/steps.py`) and the local record's CHECK. The team
record's database enforces the same rules in PL/pgSQL (`team/migrations/`); `tests/test_triage_steps_agree.py`
replays every (state, step, actor) against the Python rules and both stores and requires the same answer, so a
rule changed on one side only fails there. Adding a step: a row here, a migration for each store, and tests.
"""

from __future__ import annotations

from dataclasses import dataclass

UNCLAIMED, CLAIMED, READY, APPROVED, WAITING = "unclaimed", "claimed", "ready", "approved", "waiting"
CLOSED = ("submitted", "resolved", "expired")
"""The provider's statuses that close a request: no step is taken on it any more."""

CLAIMANT, NOT_MAKER, MEMBER = "the claimant", "not who made it ready", "any member"
"""Who may take a step: the request's claimant only; anyone but who made the answer ready (four eyes); anyone."""


@dataclass(frozen=True)
class Step:
    name: str
    """As typed (`rfis ready`) and kept (the `step` column); its audit action is `triage.<name>`."""
    takes_from: tuple[str, ...]
    """The steps a request must be at for this one to be taken."""
    leads_to: str
    """Where the request is after it (`claimed` becomes `unclaimed` when nobody holds it)."""
    who: str
    """CLAIMANT, NOT_MAKER or MEMBER."""
    note_required: bool
    help: str
    """What it means, in a person's words (the shell's help, the console's F1)."""
    label: str
    """The name of the act, as a menu or the command palette says it."""
    done: str
    """What it did, as a sentence after it says it: "bob approved it", "Approved; its step is now approved"."""
    key: str
    """Its key in the console, the same on the inbox's highlighted row and in the request's detail."""

    @property
    def action(self) -> str:
        return f"triage.{self.name}"


STEPS = (
    Step("ready", (CLAIMED,), READY, CLAIMANT, False,
         "the claimant says the answer is prepared and asks for review", "Mark ready", "made ready", "R"),
    Step("approve", (READY,), APPROVED, NOT_MAKER, False,
         "a different analyst approves the prepared answer (four eyes: never the one who made it ready)", "Approve",
         "approved", "A"),
    Step("reject", (READY, APPROVED), CLAIMED, MEMBER, True,
         "send a prepared answer back to the claimant, saying why", "Reject", "sent back", "X"),
    Step("wait", (CLAIMED, READY), WAITING, MEMBER, False,
         "the user was asked for documents: the team's clock pauses", "Waiting on the user",
         "set waiting on the user", "W"),
    Step("resume", (WAITING,), CLAIMED, MEMBER, False,
         "the user answered: back to claimed, the clock runs again", "Resume", "resumed", "U"),
)
BY_NAME = {step.name: step for step in STEPS}
NAMES = tuple(BY_NAME)
STATES = (UNCLAIMED, CLAIMED, READY, APPROVED, WAITING, *CLOSED)
"""Every place a request can be, the provider's closing statuses included."""

