"""The local record of one request inside its detail: claim and notes, rounds seen, status timeline.

`RecordActions` gives the detail screen its keys (`RECORD_BINDINGS`): n adds a note, m claims or
releases (the detail's `ClaimActions`, which asks first where it matters), e writes the evidence pack into the
current folder, h shows the rounds seen. Every read
and write runs on the record's own thread; the UI only awaits it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.widgets import Input

from stablepay_console import __version__
from stablepay_console.api.sanitize import clean
from stablepay_console.services.export import evidence
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.formatters.record_problem import record_problem
from stablepay_console.tui.formatters.text import toast_path
from stablepay_console.tui.runtime.evidence_download import download_evidence
from stablepay_console.tui.runtime.web_mode import in_browser
from stablepay_console.tui.widgets.rfi.history import RfiHistoryView
from stablepay_console.tui.widgets.rfi.notes import RfiNotesView

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen

    from stablepay_console.tui.console import Console

RECORD_BINDINGS = [
    Binding("n", "note", "Note", id="rfi.note", tooltip="Add a note to this request"),
    Binding("m", "claim", "Claim", id="rfi.claim", tooltip="Claim this request (\"I'm on it\"), or release it"),
    Binding("e", "evidence", "Evidence", id="rfi.evidence",
            tooltip="Write an evidence pack into the current folder (in a browser: one zip download)"),
    Binding("h", "history", "History", show=False, id="rfi.history", tooltip="Show the rounds seen and the notes"),
]

RECORD_HELP = """
- **n** adds a note (Enter keeps it); **m** claims the request, or releases your claim.
- **h** shows what this console has seen of it: every round (earlier rounds' items and deadlines,
  what changed) and the status timeline. The API itself returns only the current round.
- **e** writes an evidence pack (rfi.json, rounds.json, notes.json, audit.json, README.md) into
  a new dated folder in the current folder; in a browser it arrives as one zip download of that folder.
"""


class RfiRecordPanel(Vertical):
    DEFAULT_CSS = """
    RfiRecordPanel { height: auto; padding: 0 1; margin: 1 0 0 0; }
    RfiRecordPanel > RfiHistoryView { margin: 1 0 0 0; }
    """

    def __init__(self, rfi_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rfi_id = rfi_id

    def compose(self) -> ComposeResult:
        yield RfiNotesView()
        yield RfiHistoryView()

    @property
    def console(self) -> Console:
        return cast("Console", self.app)

    @property
    def me(self) -> str:
        return self.console.services.audit.actor_for(self.profile)

    @property
    def profile(self) -> str:
        profile = self.console.profile
        return profile.name if profile is not None else ""

    async def on_mount(self) -> None:
        # Awaited here, not in a worker: the first read is part of mounting (tests and snapshots see it
        # done), yet the UI is never blocked: it waits on the record's thread.
        await self._load()

    @work(exclusive=True, group="rfi-record")
    async def reload(self) -> None:
        await self._load()

    async def _load(self) -> None:
        profile, rfi_id = self.profile, self.rfi_id
        try:
            read: tuple[Any, Any, Any] | RecordError = await self.console.services.record.run(
                lambda record: (record.history(profile, rfi_id), record.notes(profile, rfi_id),
                                record.claim_of(profile, rfi_id))
            )
        except RecordError as exc:
            read = exc
        try:
            self._show(read)
        except NoMatches:  # the request's screen was dismissed while the record was read
            return

    def _show(self, read: tuple[Any, Any, Any] | RecordError) -> None:
        if isinstance(read, RecordError):
            self.query_one(RfiHistoryView).show_problem(clean(str(read), 300))
            self.query_one(RfiNotesView).say(record_problem(self.app, read))
            return
        history, notes, claim = read
        self.query_one(RfiHistoryView).show(history)
        self.query_one(RfiNotesView).show(notes, claim, self.me)

    @on(RfiNotesView.NoteTyped)
    async def keep_note(self, event: RfiNotesView.NoteTyped) -> None:
        view, profile = self.query_one(RfiNotesView), self.console.profile
        if profile is None:
            return
        try:
            pending = self.console.services.notes.add(profile, self.rfi_id, event.text)
        except ValueError as exc:
            view.say(str(exc))
            return
        try:
            await asyncio.wrap_future(pending)
        except RecordError as exc:
            view.say(f"The note was not kept: {exc}")
            return
        view.kept()
        self.reload()

    def focus_note(self) -> None:
        field = self.query_one("#note-input", Input)
        field.focus()
        field.scroll_visible()

    @work(group="rfi-evidence")
    async def write_evidence(self, folder: Path | None = None) -> None:
        services, profile = self.console.services, self.console.profile
        if profile is None:
            return
        now, rfi_id = self.console.now(), self.rfi_id
        if in_browser():  # one zip download: the server's folder is out of the analyst's reach
            await download_evidence(self, services, profile, rfi_id, now, self.me)
            return
        try:
            target = evidence.resolve_target(folder or Path.cwd(), rfi_id, now)
            found = await services.record.run(lambda record: evidence.gather(record, profile.name, rfi_id))
            pack = await asyncio.to_thread(evidence.write_pack, found, target, now, self.me, __version__)
        except (evidence.EvidenceError, RecordError) as exc:
            self.notify(clean(str(exc), 300), title="No evidence pack", severity="error", markup=False)
            return
        services.audit.append("evidence.write", profile, target=rfi_id, outcome="written", folder=str(pack.path))
        self.notify(f"Evidence pack written to\n{toast_path(pack.path)}", title="Evidence", timeout=8, markup=False)


class RecordActions:
    """Mixed into the RFI detail screen: the keys of `RECORD_BINDINGS`."""

    @property
    def record_panel(self) -> RfiRecordPanel:
        return cast("Screen[Any]", self).query_one(RfiRecordPanel)

    def action_note(self) -> None:
        self.record_panel.focus_note()

    def action_evidence(self) -> None:
        self.record_panel.write_evidence()

    def action_history(self) -> None:
        self.record_panel.query_one(RfiHistoryView).scroll_visible(top=True)
