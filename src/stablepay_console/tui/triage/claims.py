"""Claims from a screen: claim or release (`m`), a lead's release of someone else's claim, assignment.

Releasing your claim on an answer that is ready or approved asks first: nobody would hold it. Releasing someone
else's ("Release claim" in the palette, a lead's right) and giving a held request to another analyst ("Assign
to…") ask first too. The team's database decides who may; a refusal is said in its words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.text import Text

from stablepay_console.services.triage.state import APPROVED, READY
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.formatters.record_problem import record_problem
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.assign_picker import AssignPicker
from stablepay_console.tui.modals.confirm import ConfirmScreen
from stablepay_console.tui.runtime.workers import start
from stablepay_console.tui.triage.steps import StepTaken

if TYPE_CHECKING:
    from stablepay_console.storage.record_types import Claim
    from stablepay_console.tui.console import Console
    from stablepay_console.tui.screens.base import ConsoleScreen

KEPT_ANSWER = (READY, APPROVED)
"""Where releasing your own claim asks first: an answer made ready or approved would be left with nobody."""


class ClaimActions:
    """Claim, release and assign for one screen; the screen is told (`StepTaken`) to read the request again."""

    def __init__(self, screen: ConsoleScreen) -> None:
        self.screen = screen

    @property
    def console(self) -> Console:
        return self.screen.console

    @property
    def me(self) -> str:
        profile = self.console.profile
        return self.console.services.audit.actor_for(profile.name if profile else "")

    def _then(self, work: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[bool | None], None]:
        """What a question's answer does: `work` on yes, nothing on no."""

        def answered(yes: bool | None) -> None:
            if yes:
                start(self.screen, work, "claim")

        return answered

    def _said(self, rfi_id: str) -> None:
        self.screen.post_message(StepTaken(rfi_id, True))

    def _problem(self, exc: RecordError, title: str) -> None:
        self.screen.notify(record_problem(self.console, exc), title=title, severity="error", timeout=12,
                           markup=False)

    # --- m: claim, or release your own ---------------------------------------------------------------------------

    def toggle(self, rfi_id: str, held: Claim | None, step: str) -> None:
        if held is not None and held.claimant != self.me:
            self.screen.notify(f"Claimed by {held.claimant}. A lead may release it (command palette: Release claim).",
                               title="Not claimed", severity="warning", markup=False)
            return
        if held is None:
            start(self.screen, partial(self._claim, rfi_id), "claim")
            return
        if step not in KEPT_ANSWER:
            start(self.screen, partial(self._release, rfi_id, force=False), "claim")
            return
        question = Text(f"{rfi_id} is {step}. Released, nobody holds it: an answer {step} and in no one's hands. "
                        "Release your claim?")
        self.console.push_screen(ConfirmScreen(question, title="Release your claim?", yes_label="Release"),
                                 self._then(partial(self._release, rfi_id, force=False)))

    async def _claim(self, rfi_id: str) -> None:
        profile = self.console.profile
        if profile is None:
            return
        try:
            outcome = await asyncio.wrap_future(self.console.services.notes.claim(profile, rfi_id))
        except RecordError as exc:
            self._problem(exc, "Not claimed")
            return
        if not outcome.done and outcome.claim is not None:
            self.screen.notify(f"Claimed by {outcome.claim.claimant} meanwhile.", title="Not claimed",
                               severity="warning", markup=False)
        else:
            self.screen.notify("Claimed: the inbox shows it as yours.", title="Claim", timeout=3, markup=False)
        self._said(rfi_id)

    async def _release(self, rfi_id: str, force: bool) -> None:
        profile = self.console.profile
        if profile is None:
            return
        try:
            outcome = await asyncio.wrap_future(self.console.services.notes.release(profile, rfi_id, force=force))
        except RecordError as exc:
            self._problem(exc, "Not released")
            return
        before = outcome.previous
        if outcome.done:
            whose = "your" if before is None or before.claimant == self.me else f"{before.claimant}'s"
            self.screen.notify(f"Released {whose} claim.", title="Claim", timeout=3, markup=False)
        elif outcome.refusal:
            self.screen.notify(f"Refused: {outcome.refusal}", title="Not released", severity="error", timeout=12,
                               markup=False)
        else:
            self.screen.notify("It is not claimed now." if before is None else f"Claimed by {before.claimant}.",
                               title="Not released", severity="warning", markup=False)
        self._said(rfi_id)

    # --- a lead's: release someone else's claim, assign --------------------------------------------------------

    def release_other(self, rfi_id: str, held: Claim) -> None:
        question = Text(f"{rfi_id} is claimed by {held.claimant}. Release their claim? (A lead's right: the team "
                        "record refuses anyone else.)")
        self.console.push_screen(
            ConfirmScreen(question, title="Release someone else's claim?", yes_label="Release", danger=True),
            self._then(partial(self._release, rfi_id, force=True)))

    def assign(self, rfi_id: str, held: Claim | None) -> None:
        start(self.screen, partial(self._pick, rfi_id, held), "assign")

    async def _pick(self, rfi_id: str, held: Claim | None) -> None:
        try:
            analysts = await asyncio.wrap_future(self.console.services.triage.analysts())
        except RecordError as exc:
            self._problem(exc, "Cannot assign")
            return
        holder = held.claimant if held else None

        def chosen(name: str | None) -> None:
            if name is None or name == holder:
                if name is not None:
                    self.screen.notify(f"{name} holds it already.", title="Assign", timeout=3, markup=False)
                return
            if holder is None:
                start(self.screen, partial(self._assign, rfi_id, name), "assign")
                return
            question = Text(f"{rfi_id} is held by {holder}. Assign it to {name} instead? It is taken from "
                            f"{holder}.")
            self.console.push_screen(
                ConfirmScreen(question, title="Reassign?", yes_label="Reassign"),
                self._then(partial(self._assign, rfi_id, name)))

        self.console.push_screen(AssignPicker(rfi_id, analysts, holder), chosen)

    async def _assign(self, rfi_id: str, analyst: str) -> None:
        profile = self.console.profile
        if profile is None:
            return
        try:
            outcome = await asyncio.wrap_future(self.console.services.triage.assign(profile, rfi_id, analyst))
        except (RecordError, ValueError) as exc:
            said = record_problem(self.console, exc) if isinstance(exc, RecordError) else str(exc)
            self.screen.notify(said, title="Not assigned", severity="error", timeout=12, markup=False)
            return
        claim = outcome.claim
        self.screen.notify(f"Assigned to {clean(claim.claimant if claim else analyst, 40)}.", title="Assign",
                           timeout=4, markup=False)
        self._said(rfi_id)
