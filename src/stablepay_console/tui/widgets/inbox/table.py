"""The inbox table: one row per RFI, with a deadline column that can be re-rendered alone.

Rows are keyed by RFI ID, so a page that lists one request twice (a hostile or shifting list)
keeps the first and counts the rest, rather than crashing on a duplicate key. A page of any
length shows at once, a window of rows at a time (see `WindowedTable`).

Columns have priorities, as in k9s or gh-dash: each is as wide as its longest cell (capped), and
when they do not all fit the least useful go first (the absolute time, then the subject, the held
transfer…); Status and Deadline always stay. From 160 columns (the screen's `-wide` breakpoint) the request's
whole ID is a column of its own (what "Go to request" and `rfis show` take); with room to spare beside it (about
240 columns) the user and held-transfer IDs are shown whole. The table says how many rows fit (`Fits`), for the inbox's
page size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.message import Message

from stablepay_console.tui.formatters.lists import first_of_each, hidden_note
from stablepay_console.tui.formatters.rfi import held_short, status_text
from stablepay_console.tui.formatters.text import NO_DEADLINE, ago, countdown, plain, short_id, when
from stablepay_console.tui.formatters.triage import sla_cell, step_cell
from stablepay_console.tui.widgets.columns import CELL_PADDING, SCROLLBAR, columns_that_fit
from stablepay_console.tui.widgets.windowed_table import TableRow, WindowedTable

if TYPE_CHECKING:  # the models (pydantic) load with the client stack, not with this widget
    from stablepay_console.api.models import Rfi
    from stablepay_console.services.triage.due import RowTriage


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    drop: int
    """0: always shown; otherwise the highest goes first when the columns do not fit."""
    cap: int = 24
    """The widest this column gets; a longer cell ends in an ellipsis."""
    least: int = 0
    """The narrowest it gets: a ticking countdown keeps its place as its text changes length."""
    wide: bool = False
    """Shown only on a wide screen (160 columns and more, the `-wide` breakpoint), then by its drop rank."""


COLUMNS = (
    Column("id", "ID", drop=3, cap=36, wide=True),
    Column("created", "Created", drop=4, least=11),
    Column("at", "At (UTC)", drop=9),
    Column("status", "Status", drop=0),
    Column("kind", "Kind", drop=5),
    Column("subject", "Subject", drop=8),
    Column("user", "User", drop=6, cap=36),
    Column("held", "Held transfer", drop=7, cap=46),
    Column("round", "Round", drop=3, cap=8),
    Column("step", "Step", drop=2, cap=16),
    Column("sla", "SLA", drop=1, cap=8),
    Column("deadline", "Deadline", drop=0, least=10),
)
KEYS = tuple(column.key for column in COLUMNS)
SLA_TOOLTIP = ("SLA: the time left to the request's next service level (claim, make ready, approve; Step says "
               "which), -2h05m in red once breached that long ago, paused while waiting on the user. F1 has the "
               "legend; `record policy` shows the levels.")
STATUS = KEYS.index("status")
FULL_IDS = ("user", "held")
"""Columns that show a whole ID when there is room, a shortened one otherwise."""
MARK_BEFORE = 5
"""The claim mark's who (`issued ◆ bob`) is shown only while every column that drops at this priority or later
(Kind and the more useful ones) still fits with it; otherwise the mark is a bare `◆` (mine) or `◇` (someone
else's), as wide as the status words already are, and the Step column says "claimed": a claim never pushes the
Kind column out."""


def fit_columns(widths: dict[str, int], room: int, full_widths: dict[str, int],
                wide: bool = False) -> tuple[list[str], set[str]]:
    """The columns to show in `room` cells (in table order; the `wide` ones only on a wide screen), which of
    FULL_IDS get whole IDs, and "status" in that set when the claim marks say who."""
    columns = [c for c in COLUMNS if wide or not c.wide]
    drops = [c.drop for c in columns]
    marked = dict(widths, status=full_widths["status"])
    kept = columns_that_fit([marked[c.key] for c in columns], drops, room)
    full = set()
    if all(i in kept for i, c in enumerate(columns) if c.drop <= MARK_BEFORE):
        widths = marked
        full.add("status")
    else:
        kept = columns_that_fit([widths[c.key] for c in columns], drops, room)
    keys = [columns[i].key for i in kept]
    spare = room - sum(widths[k] + CELL_PADDING for k in keys)
    for key in FULL_IDS:
        grow = full_widths[key] - widths[key]
        if key in keys and grow <= spare:
            full.add(key)
            spare -= grow
    return keys, full


def deadline_cell(rfi: Rfi, now: datetime) -> Text:
    """The countdown to the open round's deadline; a round already answered owes no reply; an issued request
    whose round gives no deadline says so ("no deadline", never an empty cell that reads as not loaded)."""
    if rfi.round is not None and rfi.round.submitted_at is not None:
        return Text("answered", style="dim")
    if rfi.deadline is None and rfi.status == "issued":
        return Text(NO_DEADLINE, style="dim")
    return countdown(rfi.deadline, now)


def overdue_cell(rfi: Rfi, now: datetime) -> Text:
    return Text("overdue " + ago(rfi.deadline, now).removesuffix(" ago"), style="bold magenta")


def inbox_cells(
    rfi: Rfi, now: datetime, deadline: Text, full: frozenset[str] = frozenset(), triage: RowTriage | None = None
) -> tuple[Text, ...]:
    """The cells of one request's row, in COLUMNS order (every value cleaned; IDs shortened unless
    their column is in `full`); `triage`: its step and the time left to its next service level."""
    return (
        plain(rfi.id),
        plain(ago(rfi.created_at, now)),
        plain(when(rfi.created_at).removesuffix(" UTC")),
        status_text(rfi.status),
        plain(rfi.kind, max_len=40),
        plain(rfi.subject_type, max_len=40),
        plain(rfi.user_id or "") if "user" in full else plain(short_id(rfi.user_id)),
        held_full(rfi) if "held" in full else held_short(rfi),
        round_cell(rfi, now),
        step_cell(triage),
        sla_cell(triage),
        deadline,
    )


def round_cell(rfi: Rfi, now: datetime) -> Text:
    """The round's number, then `link` while its hosted reply page can still be used (spec 2.3): never once the
    deadline has passed, where a reply would be rejected."""
    cell = plain(rfi.current_round if rfi.current_round is not None else "", max_len=12)
    r = rfi.round
    if r is not None and r.link and (r.expires_at is None or r.expires_at > now):
        cell.append(" link", style="green")
    return cell


def held_full(rfi: Rfi) -> Text:
    """`<whole transfer ID> onramp`, blank on an onboarding request."""
    if not rfi.transfer_id and not rfi.flow_type:
        return Text("")
    return plain(f"{rfi.transfer_id or '?'} {rfi.flow_type or ''}".rstrip())


def fitted(cell: Text) -> Text:
    """One line, ending in an ellipsis when its column is narrower."""
    cell.no_wrap, cell.overflow = True, "ellipsis"
    return cell


class InboxTable(WindowedTable):
    """Rows keyed by RFI ID; `tick` re-renders only the time cells. Columns fit the width (see COLUMNS)."""

    class Fits(Message):
        """The table's size changed: `rows` rows fit in it without scrolling."""

        def __init__(self, rows: int) -> None:
            super().__init__()
            self.rows = rows

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
        self.triage_of: Callable[[Rfi, datetime], RowTriage | None] = lambda rfi, now: None
        """A request's triage step and time left (the inbox sets it once it has read the record)."""
        self._slas: dict[str, str] = {}
        self.service_levels = False
        """Whether someone set a policy (`show_service_levels`): only then is there an SLA column."""
        self.shown_columns: tuple[str, ...] = ()
        self._full: frozenset[str] = frozenset()
        self._layout: tuple[object, ...] = ()
        self._made: dict[tuple[str, frozenset[str]], tuple[Text, ...]] = {}
        self._cells_at: datetime | None = None
        self._waiting_position: int | None = None
        """The cursor's row of rows given before the table had a size (drawn at its first size)."""

    def on_mount(self) -> None:
        self._fit_columns()

    def on_resize(self, _: events.Resize) -> None:
        waiting, self._waiting_position = self._waiting_position, None
        position = self.position if waiting is None else waiting
        if self._fit_columns() or waiting is not None:
            self.show_rows(len(self.order), self._row, position or 0)
        self.post_message(self.Fits(max(1, self.size.height - self.header_height)))

    def _measure(self, full: bool) -> dict[str, int]:
        widths = {c.key: max(cell_len(c.label), c.least) for c in COLUMNS}
        caps = {c.key: c.cap for c in COLUMNS}
        now = self._now
        if now is None:
            return widths
        shape = frozenset({*FULL_IDS, "status"}) if full else frozenset()
        for rfi in self.order[: self.window]:
            for key, cell in zip(KEYS, self._cells(rfi, now, shape), strict=True):
                widths[key] = max(widths[key], min(cell.cell_len, caps[key]))
        return widths

    def _fit_columns(self) -> bool:
        """Choose and size the columns for the rows and the width now; True when they changed."""
        room = self.size.width - SCROLLBAR
        if room <= 0:
            room = 10_000  # not laid out yet: every column, until the first resize says otherwise
        widths, full_widths = self._measure(full=False), self._measure(full=True)
        if not self.service_levels:  # nobody set a policy: no level, no column (its room goes to the others)
            widths["sla"] = full_widths["sla"] = -CELL_PADDING
        keys, full = fit_columns(widths, room, full_widths, self.is_attached and self.screen.has_class("-wide"))
        keys = [key for key in keys if key != "sla" or self.service_levels]
        sizes = [full_widths[k] if k in full else widths[k] for k in keys]
        layout = (tuple(keys), tuple(sizes), frozenset(full))
        if layout == self._layout:
            return False
        self._layout, self.shown_columns, self._full = layout, tuple(keys), frozenset(full)
        labels = {c.key: c.label for c in COLUMNS}
        super().clear(columns=True)
        for key, size in zip(keys, sizes, strict=True):
            self.add_column(labels[key], key=key, width=size)
        return True

    def show_service_levels(self, shown: bool) -> None:
        """The SLA column, and its tooltip, when the record holds a policy someone set; none otherwise. Drawn again
        with the next rows (`show`)."""
        self.service_levels = shown
        self.tooltip = SLA_TOOLTIP if shown else None

    def show(self, rfis: list[Rfi], now: datetime, *, overdue: set[str] | None = None, first: bool = False) -> None:
        """Replace the rows. The cursor goes to the first row when `first` (a new order, filter or view),
        else stays on the same request when it is still there. `overdue` rows are marked as such."""
        keep = None if first else self.highlighted_id
        self._overdue = overdue or set()
        self._now = now
        self.order, self.duplicates_hidden = first_of_each(rfis, lambda rfi: rfi.id)
        self.rfis = {rfi.id: rfi for rfi in self.order}
        self._deadlines, self._created = {}, {}
        self._made.clear()  # the marks or the overdue set may have changed
        position = 0
        if keep is not None and keep in self.rfis:
            position = next(i for i, rfi in enumerate(self.order) if rfi.id == keep)
        if not self.size.width:  # not laid out yet: its first size picks the columns and then draws the rows
            self._waiting_position = position
        else:
            self._fit_columns()
            self.show_rows(len(self.order), self._row, position)
        self._say_duplicates(rfis)

    def _row(self, index: int) -> TableRow:
        rfi, now = self.order[index], self._now
        assert now is not None  # set by show() before any row is built
        cells = dict(zip(KEYS, self._cells(rfi, now, self._full), strict=True))
        self._deadlines[rfi.id] = cells["deadline"].plain
        self._slas[rfi.id] = cells["sla"].plain
        self._created[rfi.id] = ago(rfi.created_at, now)
        return TableRow([fitted(cells[key]) for key in self.shown_columns], key=rfi.id)

    def _cells(self, rfi: Rfi, now: datetime, shape: frozenset[str]) -> tuple[Text, ...]:
        """The row's cells, made once per request, time and shape (measuring and drawing both need them)."""
        if self._cells_at != now:
            self._made.clear()
            self._cells_at = now
        key = (rfi.id, shape)
        made = self._made.get(key)
        if made is None:
            cells = inbox_cells(rfi, now, self._deadline(rfi, now), shape, self.triage_of(rfi, now))
            made = self._made[key] = self._marked(rfi, cells, shape)
        return made

    def _marked(self, rfi: Rfi, cells: tuple[Text, ...], shape: frozenset[str]) -> tuple[Text, ...]:
        mark = self.marks.get(rfi.id)
        if mark is None:
            return cells
        if "status" not in shape:  # no room to say who (see MARK_BEFORE): mine or someone else's
            mark = Text(" ◆" if mark.plain == " ◆ me" else " ◇", style=mark.style)
        return (*cells[:STATUS], cells[STATUS] + mark, *cells[STATUS + 1 :])

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
                if "created" in self.shown_columns:
                    self.update_cell(rfi_id, "created", fitted(plain(created)))
            if "sla" in self.shown_columns:
                sla = sla_cell(self.triage_of(rfi, now))
                if self._slas.get(rfi_id) != sla.plain:
                    self._slas[rfi_id] = sla.plain
                    self.update_cell(rfi_id, "sla", fitted(sla))
            if rfi.deadline is None:
                continue
            deadline = self._deadline(rfi, now)
            if self._deadlines.get(rfi_id) != deadline.plain:
                self._deadlines[rfi_id] = deadline.plain
                self.update_cell(rfi_id, "deadline", fitted(deadline))

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
