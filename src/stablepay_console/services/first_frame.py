"""The console's first frame, its UI-free part: the inbox's first page from the record, for a repeat start.

The first frame is this module (what a repeat start paints, and what it keeps for the next), the boot screen
that paints it (`tui.runtime.boot`, with `built_in_start`: the profile a start shows before the client stack
loads), the inbox's swap to the server's rows (`tui.runtime.first_rows`), and the file (`storage.first_page`).

After each first page of the unfiltered inbox the console keeps it (`storage.first_page`). On the next
start of the same profile the inbox paints those rows at once, greyed and labelled "as of 14:02 ·
refreshing…", then replaces them with the server's page; they are never shown for another profile,
base URL or filter, and never as current. Before the client stack is loaded (the console's first
frame) they are `LightRfi`s: the fields a table row shows, read from the JSON without pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from stablepay_console.api.sanitize import clean
from stablepay_console.services.watch.seen import parse_when as _when
from stablepay_console.storage import first_page
from stablepay_console.storage.first_page import FirstPage

if TYPE_CHECKING:
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.models import Rfi, RfiPage

START_FILTERS: dict[str, str | None] = {"status": None, "kind": None, "userId": None}
"""The filters every start opens the inbox with: the only ones a first page is kept for."""


def filter_fields(filters: RfiFilters) -> dict[str, str | None]:
    return {"status": filters.status, "kind": filters.kind, "userId": filters.user_id}


def _text(value: Any, limit: int = 80) -> str | None:
    return clean(value, limit) if isinstance(value, str) and value else None


@dataclass(frozen=True)
class LightRound:
    round: int | None
    expires_at: datetime | None
    submitted_at: datetime | None
    link: str | None


@dataclass(frozen=True)
class LightRfi:
    """What an inbox row shows of a request, from its JSON: no pydantic needed (the first frame)."""

    id: str
    created_at: datetime
    status: str
    kind: str
    subject_type: str
    user_id: str | None
    transfer_id: str | None
    flow_type: str | None
    current_round: int | None
    round: LightRound | None

    @property
    def deadline(self) -> datetime | None:
        return self.round.expires_at if self.round is not None else None

    @classmethod
    def of(cls, row: dict[str, Any]) -> LightRfi | None:
        rfi_id, created = _text(row.get("id")), _when(row.get("createdAt"))
        if rfi_id is None or created is None:
            return None
        r = row.get("round")
        number = row.get("currentRound")
        round_ = None
        if isinstance(r, dict):
            n = r.get("round")
            round_ = LightRound(n if isinstance(n, int) else None, _when(r.get("expiresAt")),
                                _when(r.get("submittedAt")), _text(r.get("link"), 2000))
        return cls(rfi_id, created, _text(row.get("status"), 40) or "?", _text(row.get("kind"), 40) or "?",
                   _text(row.get("subjectType"), 40) or "?", _text(row.get("userId")), _text(row.get("transferId")),
                   _text(row.get("flowType"), 40), number if isinstance(number, int) else None, round_)


def read_for_start(profile: str, base_url: str) -> FirstPage | None:
    """The first page kept for this profile and base URL, if it was the start's (unfiltered) one. Reads a file:
    call it off the UI thread."""
    page = first_page.load(profile, base_url)
    return page if page is not None and page.filters == START_FILTERS and page.rows else None


def light_rows(page: FirstPage) -> list[LightRfi]:
    return [row for row in map(LightRfi.of, page.rows) if row is not None]


def model_rows(page: FirstPage) -> list[Rfi]:
    """The rows as models (the inbox, once the client stack is loaded); a row that no longer reads is left out."""
    from pydantic import ValidationError

    from stablepay_console.api.models import Rfi

    rows = []
    for row in page.rows:
        try:
            rows.append(Rfi.model_validate(row))
        except ValidationError:
            continue
    return rows


def page_to_keep(profile: str, base_url: str, filters: RfiFilters, page: RfiPage, at: datetime) -> FirstPage | None:
    """What to keep of a page the inbox shows: only the first page of the start's filters."""
    if filter_fields(filters) != START_FILTERS or page.pagination.offset != 0 or not page.data:
        return None
    rows = [rfi.to_wire() for rfi in page.data[: first_page.MAX_ROWS]]
    return FirstPage(profile, base_url, dict(START_FILTERS), at, page.pagination.limit, page.pagination.total, rows)
