"""The inbox table: one row per RFI, with a deadline column that can be re-rendered alone.

Rows are keyed by RFI ID, so a page that lists one request twice (a hostile or shifting list)
keeps the first and counts the rest, rather than crashing on a duplicate key. A page of any
length shows at once, a window of rows at a time (see `WindowedTable`).
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from stablepay_console.api.models import Rfi
from stablepay_console.tui.formatters.lists import first_of_each, hidden_note
from stablepay_console.tui.formatters.rfi import held_short, status_text
from stablepay_console.tui.formatters.text import ago, countdown, plain, short_id, when
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

COLUMNS = (
    ("created", "Created"),
    ("at", "At (UTC)"),
    ("status", "Status"),
    ("kind", "Kind"),
    ("subject", "Subject"),
    ("user", "User"),
    ("held", "Held transfer"),
    ("round", "Round"),
    ("deadline", "Deadline"),
)


def deadline_cell(rfi: Rfi, now: datetime) -> Text:
    """The countdown to the open round's deadline; a round already answered owes no reply."""
    if rfi.round is not None and rfi.round.submitted_at is not None:
        return Text("answered", style="dim")
    return countdown(rfi.deadline, now)


def overdue_cell(rfi: Rfi, now: datetime) -> Text:
    return Text("overdue " + ago(rfi.deadline, now).removesuffix(" ago"), style="bold magenta")


def inbox_cells(rfi: Rfi, now: datetime, deadline: Text) -> tuple[Text, ...]:
    """The cells of one request's row (every value cleaned; IDs shortened)."""
    return (
        plain(ago(rfi.created_at, now)),
        plain(when(rfi.created_at).removesuffix(" UTC")),
        status_text(rfi.status),
        plain(rfi.kind, max_len=40),
        plain(rfi.subject_type, max_len=40),
        plain(short_id(rfi.user_id)),
        held_short(rfi),
        plain(rfi.current_round if rfi.current_round is not None else "", max_len=12),
        deadline,
    )


class InboxTable(WindowedTable):
    """Rows keyed by RFI ID; `tick` re-renders only the time cells."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(window=500, **kwargs)
        self.rfis: dict[str, Rfi] = {}
        self.order: list[Rfi] = []
        self.duplicates_hidden = 0
        """How many rows of the last page repeated an RFI ID already shown (dropped, first kept)."""
        self._said_duplicates: tuple[int, frozenset[str]] = (0, frozenset())
        self._deadlines: dict[str, str] = {}
        """The deadline text each row shows now, so a tick repaints only cells whose text changed."""
        self._created: dict[str, str] = {}
        self._overdue: set[str] = set()
        self._now: datetime | None = None
        self.marks: dict[str, Text] = {}
        """A marker for the status cell of some requests (claims in the local record), by ID."""

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, rfis: list[Rfi], now: datetime, *, overdue: set[str] | None = None, first: bool = False) -> None:
        """Replace the rows. The cursor goes to the first row when `first` (a new order, filter or view),
        else stays on the same request when it is still there. `overdue` rows are marked as such."""
        keep = None if first else self.highlighted_id
        self._overdue = overdue or set()
        self._now = now
        self.order, self.duplicates_hidden = first_of_each(rfis, lambda rfi: rfi.id)
        self.rfis = {rfi.id: rfi for rfi in self.order}
        self._deadlines, self._created = {}, {}
        position = 0
        if keep is not None and keep in self.rfis:
            position = next(i for i, rfi in enumerate(self.order) if rfi.id == keep)
        self.show_rows(len(self.order), self._row, position)
        self._say_duplicates(rfis)

    def _row(self, index: int) -> TableRow:
        rfi, now = self.order[index], self._now
        assert now is not None  # set by show() before any row is built
        deadline = self._deadline(rfi, now)
        self._deadlines[rfi.id] = deadline.plain
        self._created[rfi.id] = ago(rfi.created_at, now)
        cells = inbox_cells(rfi, now, deadline)
        if rfi.id in self.marks:
            cells = (*cells[:2], cells[2] + self.marks[rfi.id], *cells[3:])
        return TableRow(cells, key=rfi.id)

    def _say_duplicates(self, rfis: list[Rfi]) -> None:
        ids = frozenset(rfi.id for rfi in rfis) if self.duplicates_hidden else frozenset()
        said = (self.duplicates_hidden, ids)
        if self.duplicates_hidden and said != self._said_duplicates:
            self.notify(
                f"The server listed the same request more than once: {hidden_note(self.duplicates_hidden)}.",
                title="Duplicate requests",
                severity="warning",
                markup=False,
            )
        self._said_duplicates = said

    def _deadline(self, rfi: Rfi, now: datetime) -> Text:
        if rfi.id in self._overdue:
            return overdue_cell(rfi, now)
        return deadline_cell(rfi, now)

    def tick(self, now: datetime) -> None:
        """Repaint the time cells whose text changed: the deadline countdown and "created … ago"."""
        self._now = now
        for rfi in self.order[self.window_start : self.window_end]:
            rfi_id = rfi.id
            created = ago(rfi.created_at, now)
            if self._created.get(rfi_id) != created:
                self._created[rfi_id] = created
                self.update_cell(rfi_id, "created", plain(created))
            if rfi.deadline is None:
                continue
            deadline = self._deadline(rfi, now)
            if self._deadlines.get(rfi_id) != deadline.plain:
                self._deadlines[rfi_id] = deadline.plain
                self.update_cell(rfi_id, "deadline", deadline)

    @property
    def highlighted_id(self) -> str | None:
        at = self.position
        if at is None or not 0 <= at < len(self.order):
            return None
        return self.order[at].id

    @property
    def highlighted(self) -> Rfi | None:
        rfi_id = self.highlighted_id
        return self.rfis.get(rfi_id) if rfi_id is not None else None
