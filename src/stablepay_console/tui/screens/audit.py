"""The audit log: every action this console took, newest first, with a filter and the chain's state."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from stablepay_console.services.audit import ACTIONS, ChainReport, verify
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_types import AuditEntry
from stablepay_console.tui.formatters.text import clean, plain
from stablepay_console.tui.screens.base import ConsoleScreen
from stablepay_console.tui.widgets.columns import FittedTable

SHOWN = 2000
"""The latest entries read into the view (`stablepay-console audit log` prints them all)."""

COLUMNS = (("seq", "#"), ("at", "Time (UTC)"), ("actor", "Actor"), ("profile", "Profile"), ("action", "Action"),
           ("target", "Target"), ("outcome", "Outcome"))
DROP = (4, 0, 2, 3, 0, 1, 0)
"""When the columns do not all fit (80 columns), the entry's number goes first, then the profile, the actor and
the target: a column is shown whole or not at all, so no heading or outcome is cut ("Outcom", "claime")."""
OUTCOME_CELLS = 40

HELP = """\
## Audit log

What was done with this console, newest first: profile switches, pings, quote refreshes, key
rotation steps, exports, hosted links opened or copied, notes, claims and evidence packs. Each
entry has its time, actor, profile (red: production), action, target ID (its first 8
characters) and outcome; never a key.

- **/** focuses the filter: only entries whose action, target, profile, actor or outcome contain
  the text (Enter applies, Esc leaves the field); **x** clears it.
- **r** reads the log again; **v** checks its hash chain (each entry carries the SHA-256 of the
  one before and of itself): the first changed, removed or reordered entry is named.

From the shell: `stablepay-console audit log` and `stablepay-console audit verify`.
"""


def short_target(target: str) -> str:
    """A request or transfer ID by its first 8 characters (the filter takes the whole ID); others as they are."""
    return target[:8] + "…" if len(target) == 36 and target.count("-") == 4 else clean(target, 40)


def matches(entry: AuditEntry, needle: str) -> bool:
    if not needle:
        return True
    haystack = " ".join((entry.action, ACTIONS.get(entry.action, ""), entry.target, entry.profile,
                         entry.environment, entry.actor, entry.outcome, entry.detail))
    return needle.casefold() in haystack.casefold()


class AuditScreen(ConsoleScreen):
    HELP = HELP
    DEFAULT_CSS = """
    AuditScreen #audit-chain, AuditScreen #audit-status { padding: 0 1; height: auto; }
    AuditScreen #audit-filter { margin: 0 1; }
    AuditScreen #audit-table { height: 1fr; }
    """
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="audit.filter", tooltip="Filter the entries"),
        Binding("x", "clear_filter", "Clear", show=False, id="audit.clear", tooltip="Clear the filter"),
        Binding("r", "reload", "Reload", id="audit.reload", tooltip="Read the log again"),
        Binding("v", "verify", "Verify", id="audit.verify", tooltip="Check the hash chain"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[AuditEntry] = []
        self.needle = ""

    def compose_body(self) -> ComposeResult:
        yield Static("", id="audit-chain")
        yield Input(placeholder="Filter: action, request ID, profile, actor or outcome; Enter applies",
                    id="audit-filter")
        yield Static("", id="audit-status")
        yield FittedTable(id="audit-table", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> FittedTable:
        return self.query_one("#audit-table", FittedTable)

    def on_mount(self) -> None:
        self.table.show([label for _, label in COLUMNS], DROP, [], [])
        self.table.focus()
        self.action_verify()

    def on_screen_resume(self) -> None:
        self.action_reload()

    # --- reading ----------------------------------------------------------------------------

    def action_reload(self) -> None:
        self.load()

    @work(exclusive=True, group="audit-load")
    async def load(self) -> None:
        try:
            self.entries = await self.console.services.record.run(lambda record: record.audit(limit=SHOWN))
        except RecordError as exc:
            self.entries = []
            self.query_one("#audit-status", Static).update(Text(f"The record cannot be read: {exc}", "red"))
            self.table.clear()
            return
        self.render_entries()

    def action_verify(self) -> None:
        self.check_chain()

    @work(exclusive=True, group="audit-verify")
    async def check_chain(self) -> None:
        line = self.query_one("#audit-chain", Static)
        line.update(Text("Checking the hash chain…", style="italic"))
        try:
            report: ChainReport = await self.console.services.record.run(verify)
        except RecordError as exc:
            line.update(Text(f"The local record cannot be read: {exc}", style="bold red"))
            return
        said = Text(report.describe(), style="green" if report.ok else "bold red")
        notice = self.console.services.record.notice
        if notice:
            said.append(f"\n{clean(notice)}", style="yellow")
        line.update(said)
        self.load()

    # --- showing ----------------------------------------------------------------------------

    def render_entries(self) -> None:
        shown = [e for e in reversed(self.entries) if matches(e, self.needle)]
        rows = [
            (plain(e.seq), plain(e.at[:19].replace("T", " ")),
             plain(e.actor if e.imported is None else f"{e.actor} (imported: {e.imported.written_as})", max_len=24),
             plain(e.profile, "bold red" if e.environment == "production" else "", max_len=24),
             plain(ACTIONS.get(e.action, e.action), max_len=28), plain(short_target(e.target)),
             plain(e.outcome, max_len=OUTCOME_CELLS))
            for e in shown
        ]
        self.table.show([label for _, label in COLUMNS], DROP, rows, [str(e.seq) for e in shown])
        status = Text(f"{len(shown)} of the latest {len(self.entries)} entries", style="bold")
        if self.needle:
            status.append(" matching ")
            status.append(clean(self.needle, 60), style="bold")
        if len(self.entries) == SHOWN:
            status.append(" · older ones: stablepay-console audit log", style="dim")
        self.query_one("#audit-status", Static).update(status)

    @on(Input.Submitted, "#audit-filter")
    def apply_filter(self, event: Input.Submitted) -> None:
        self.needle = event.value.strip()
        self.render_entries()
        self.table.focus()

    def action_focus_filter(self) -> None:
        self.query_one("#audit-filter", Input).focus()

    def action_clear_filter(self) -> None:
        self.query_one("#audit-filter", Input).value = ""
        self.needle = ""
        self.render_entries()
