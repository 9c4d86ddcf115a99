"""Triage steps from a screen: one key each, the palette's words, the note dialog, the outcome said.

A screen holds a `StepTaker` and says which request is meant and where it stands; only the steps the rules allow
the reader now are offered (`services.triage.state.offered`: the footer shows their keys, the palette their
words). Taking one asks for its note (`StepNoteDialog`), sends it on the record's thread, and says what came of
it: a refusal in the words of whoever refused it (the team's database, word for word). Then the screen is told
(`StepTaken`) and reads the request again; the other consoles hear of it from the database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.message import Message

from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_triage_types import RoundShown
from stablepay_console.storage.triage_steps import BY_NAME, STEPS, Step
from stablepay_console.tui.formatters.record_problem import record_problem
from stablepay_console.tui.formatters.text import clean
from stablepay_console.tui.modals.step_note import StepNoteDialog
from stablepay_console.tui.runtime.workers import start

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.tui.console import Console
    from stablepay_console.tui.screens.base import ConsoleScreen

Entry = tuple[str, Callable[[], object], str]


def shown_round(rfi: Rfi) -> RoundShown | None:
    """The round the screen shows of the request (number and ID, from the API's page); None when it shows none."""
    if rfi.round is not None:
        return RoundShown(rfi.round.round, rfi.round.id)
    return RoundShown(rfi.current_round) if rfi.current_round else None


def step_bindings(screen: str) -> list[Binding]:
    """The screen's step keys (ids `<screen>.<step>`); each shows only while its step is offered."""
    return [Binding(s.key, f"triage_step('{s.name}')", s.label, id=f"{screen}.{s.name}",
                    tooltip=s.help[0].upper() + s.help[1:]) for s in STEPS]


STEPS_HELP = "\n".join(
    f"- **{s.key}** {s.label.lower()}: {s.help}{' (a note is required)' if s.note_required else ''}."
    for s in STEPS)


class StepTaken(Message):
    """A step was taken (or refused) on `rfi_id` from this screen: read it again."""

    def __init__(self, rfi_id: str, done: bool) -> None:
        super().__init__()
        self.rfi_id = rfi_id
        self.done = done


class StepTaker:
    """Takes steps for one screen."""

    def __init__(self, screen: ConsoleScreen) -> None:
        self.screen = screen

    @property
    def console(self) -> Console:
        return self.screen.console

    def entries(self, rfi: Rfi, offered: list[Step]) -> list[Entry]:
        """The palette's entries for the steps offered on `rfi`."""
        return [(step.label, partial(self.take, rfi, step.name), f"{step.help} (key {step.key})")
                for step in offered]

    def take(self, rfi: Rfi, name: str) -> None:
        """Take the step on the request as shown: it is kept in the round on screen (the record refuses it if it
        knows another)."""
        step, rfi_id, shown = BY_NAME[name], rfi.id, shown_round(rfi)

        def noted(note: str | None) -> None:
            if note is not None:
                start(self.screen, partial(self._send, rfi_id, step, note, shown), "triage-step")

        self.console.push_screen(StepNoteDialog(rfi_id, step), noted)

    async def _send(self, rfi_id: str, step: Step, note: str, shown: RoundShown | None = None) -> None:
        console, profile = self.console, self.console.profile
        if profile is None:
            return
        title = f"{step.label}: {clean(rfi_id, 40)}"
        try:
            pending = console.services.triage.step(profile, rfi_id, step.name, note, shown=shown)
            outcome = await asyncio.wrap_future(pending)
        except ValueError as exc:
            self.screen.notify(str(exc), title=title, severity="error", markup=False)
            return
        except RecordError as exc:
            self.screen.notify(record_problem(console, exc), title=f"{title} not taken", severity="error",
                               timeout=12, markup=False)
            self.screen.post_message(StepTaken(rfi_id, False))
            return
        if outcome.done:
            self.screen.notify(f"{step.done.capitalize()}; its step is now {outcome.now}.", title=title,
                               timeout=4, markup=False)
        else:
            self.screen.notify(f"Refused: {outcome.refusal}", title=f"{title} refused", severity="error",
                               timeout=12, markup=False)
        self.screen.post_message(StepTaken(rfi_id, outcome.done))
