"""The inbox filter bar: status, kind, user ID and page size, checked before anything is sent."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static

from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import RFI_KINDS, RFI_STATUSES
from stablepay_console.api.validation import parse_limit, parse_uuid
from stablepay_console.services.inbox_pager import InboxQuery

ANY = "any"
AUTO = "auto"
"""The page size that follows the table's height (the default)."""


class InboxFilterBar(Vertical):
    """Posts `Applied` only with values the client would send; a bad value is refused inline."""

    class Applied(Message):
        def __init__(self, filters: RfiFilters, limit: int | None) -> None:
            super().__init__()
            self.filters = filters
            self.limit = limit
            """Rows per page; None follows the table's height."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="filter-row"):
            yield Select(
                [("any status", ANY), *((s, s) for s in RFI_STATUSES)],
                allow_blank=False,
                value=ANY,
                id="filter-status",
                tooltip="Status filter (key s cycles it)",
            )
            yield Select(
                [("any kind", ANY), *((k, k) for k in RFI_KINDS)],
                allow_blank=False,
                value=ANY,
                id="filter-kind",
                tooltip="Kind filter (key k cycles it)",
            )
            yield Input(placeholder="user ID (UUID), Enter applies", id="filter-user")
            yield Input(value=AUTO, placeholder="page size", id="filter-limit",
                        tooltip="Rows per page, 1 to 100, or auto (as many as the table shows)")
        yield Static("", id="filter-error", classes="error")

    @property
    def filters(self) -> RfiFilters:
        """The filters as they are now, with the user ID as last applied."""
        status = self.query_one("#filter-status", Select).value
        kind = self.query_one("#filter-kind", Select).value
        return RfiFilters(
            status=None if status == ANY else str(status),
            kind=None if kind == ANY else str(kind),
            user_id=self._user_id,
        )

    _user_id: str | None = None
    _limit: int | None = None

    def show(self, query: InboxQuery) -> None:
        """Reflect `query` in the widgets without announcing it back."""
        self._user_id = query.filters.user_id
        if self._limit is not None:
            self._limit = query.limit
        status = self.query_one("#filter-status", Select)
        kind = self.query_one("#filter-kind", Select)
        with self.prevent(Select.Changed):
            status.value = query.filters.status or ANY
            kind.value = query.filters.kind or ANY
        self.query_one("#filter-user", Input).value = query.filters.user_id or ""
        self.show_limit(self._limit)
        self.set_error(None)

    @property
    def limit(self) -> int | None:
        """The page size chosen; None: auto (the table's height)."""
        return self._limit

    def show_limit(self, limit: int | None) -> None:
        """A fixed page size, or None: auto (the table's height)."""
        self._limit = limit
        self.query_one("#filter-limit", Input).value = AUTO if limit is None else str(limit)

    def show_filters(self, filters: RfiFilters) -> None:
        """Make the selectors say the filters in force (needs action means issued), without announcing it."""
        status = self.query_one("#filter-status", Select)
        kind = self.query_one("#filter-kind", Select)
        with self.prevent(Select.Changed):
            if status.value != (filters.status or ANY):
                status.value = filters.status or ANY
            if kind.value != (filters.kind or ANY):
                kind.value = filters.kind or ANY

    def set_error(self, message: str | None) -> None:
        error = self.query_one("#filter-error", Static)
        error.update(Text(message or ""))
        error.display = bool(message)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._announce()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "filter-user":
            text = event.value.strip()
            try:
                self._user_id = parse_uuid(text, "user ID") if text else None
            except ValueError as exc:
                self.set_error(str(exc))
                return
            event.input.value = self._user_id or ""
        elif event.input.id == "filter-limit":
            try:
                auto = event.value.strip().lower() == AUTO
                self._limit = None if auto else parse_limit(event.value)
            except ValueError as exc:
                self.set_error(str(exc))
                return
        self._announce()

    def _announce(self) -> None:
        self.set_error(None)
        self.post_message(self.Applied(self.filters, self._limit))

    def cycle(self, which: str) -> None:
        """Move the status or kind filter to its next value (from the keyboard)."""
        select: Select[str] = self.query_one(f"#filter-{which}", Select)
        values = [ANY, *(RFI_STATUSES if which == "status" else RFI_KINDS)]
        current = str(select.value)
        select.value = values[(values.index(current) + 1) % len(values)] if current in values else ANY
