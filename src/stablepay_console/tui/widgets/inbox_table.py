"""The inbox table: one row per RFI, with a deadline column that can be re-rendered alone."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.widgets import DataTable

from stablepay_console.api.models import Rfi
from stablepay_console.tui.formatters.rfi import held_short, status_text
from stablepay_console.tui.formatters.text import ago, countdown, plain, short_id, when

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


class InboxTable(DataTable[object]):
    """Rows keyed by RFI ID; `tick` re-renders only the deadline cells."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.rfis: dict[str, Rfi] = {}
        self._deadlines: dict[str, str] = {}
        """The deadline text each row shows now, so a tick repaints only cells whose text changed."""
        self._created: dict[str, str] = {}
        self._overdue: set[str] = set()

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, rfis: list[Rfi], now: datetime, *, overdue: set[str] | None = None, first: bool = False) -> None:
        """Replace the rows. The cursor goes to the first row when `first` (a new order, filter or view),
        else stays on the same request when it is still there. `overdue` rows are marked as such."""
        keep = None if first else self.highlighted_id
        self._overdue = overdue or set()
        self.clear()
        self.rfis = {rfi.id: rfi for rfi in rfis}
        self._deadlines = {}
        self._created = {rfi.id: ago(rfi.created_at, now) for rfi in rfis}
        for rfi in rfis:
            deadline = self._deadline(rfi, now)
            self._deadlines[rfi.id] = deadline.plain
            self.add_row(
                plain(ago(rfi.created_at, now)),
                plain(when(rfi.created_at).removesuffix(" UTC")),
                status_text(rfi.status),
                plain(rfi.kind),
                plain(rfi.subject_type),
                plain(short_id(rfi.user_id)),
                held_short(rfi),
                plain(rfi.current_round if rfi.current_round is not None else ""),
                deadline,
                key=rfi.id,
            )
        if keep is not None and keep in self.rfis:
            self.move_cursor(row=self.get_row_index(keep))
        elif self.row_count:
            self.move_cursor(row=0)

    def _deadline(self, rfi: Rfi, now: datetime) -> Text:
        if rfi.id in self._overdue:
            return Text("overdue " + ago(rfi.deadline, now).removesuffix(" ago"), style="bold magenta")
        return deadline_cell(rfi, now)

    def tick(self, now: datetime) -> None:
        """Repaint the time cells whose text changed: the deadline countdown and "created … ago"."""
        for rfi_id, rfi in self.rfis.items():
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
        if not self.rfis or self.row_count == 0:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # no cursor row (empty or cleared table)
            return None
        return key.value

    @property
    def highlighted(self) -> Rfi | None:
        rfi_id = self.highlighted_id
        return self.rfis.get(rfi_id) if rfi_id is not None else None
