"""The team's process on the inbox's highlighted row: the steps offered there (keys R A X W U and the palette),
"Assign to…" and a lead's "Release claim", worked out from what the inbox already read (the rows' claims and the
steps of their current rounds), never from a read of its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from stablepay_console.services.triage.state import offered
from stablepay_console.storage.record_triage_types import TriageCase, TriageStep
from stablepay_console.storage.record_types import Claim
from stablepay_console.storage.triage_steps import Step
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.triage.claims import ClaimActions
from stablepay_console.tui.triage.steps import Entry, StepTaker

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.tui.screens.base import ConsoleScreen


class RowActions:
    def __init__(self, screen: ConsoleScreen, claims: Callable[[], Mapping[str, Claim]],
                 steps: Callable[[], Mapping[str, Sequence[TriageStep]]], me: Callable[[], str]) -> None:
        self.screen = screen
        self.steps = StepTaker(screen)
        self.claim_actions = ClaimActions(screen)
        self._claims, self._steps, self._me = claims, steps, me

    def case(self, rfi: Rfi) -> TriageCase:
        return TriageCase(rfi.id, rfi.status, rfi.current_round, self._claims().get(rfi.id),
                          tuple(self._steps().get(rfi.id, ())))

    def offered(self, rfi: Rfi | None) -> list[Step]:
        return [] if rfi is None else offered(self.case(rfi), self._me())

    def allows(self, rfi: Rfi | None, name: object) -> bool:
        return any(step.name == name for step in self.offered(rfi))

    def take(self, rfi: Rfi | None, name: str) -> None:
        if rfi is None:
            self.screen.notify("No request is highlighted.", severity="warning", timeout=3)
        else:
            self.steps.take(rfi, name)

    def entries(self, rfi: Rfi | None) -> list[Entry]:
        if rfi is None:
            return []
        found = self.steps.entries(rfi, self.offered(rfi))
        claim = self._claims().get(rfi.id)
        if self.screen.console.services.team is not None:  # assignment is the team record's (Offer.ASSIGNMENT)
            found.append(("Assign to…", partial(self.claim_actions.assign, rfi.id, claim),
                          "give the highlighted request to an analyst of the team (a lead's right)"))
        if claim is not None and claim.claimant != self._me():
            found.append(("Release claim", partial(self.claim_actions.release_other, rfi.id, claim),
                          f"release {clean(claim.claimant, 40)}'s claim (a lead's right; asks first)"))
        return found
