"""The RFI inbox's state, without Textual: filters, paging, needs action, the page cache, the cursor.

The inbox screen only composes widgets, binds keys and renders what this pager says. Every page
carries its provenance (profile, filters, page, time); a page of another profile is dropped on a
switch, and after an error the last good page stays only as stale.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from stablepay_console.api.client import StablePayClient
from stablepay_console.api.error_text import error_lines
from stablepay_console.api.errors import APIError
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import Rfi, RfiPage
from stablepay_console.services.needs_action import Partial, needs_action_order, read_needs_action
from stablepay_console.services.provenance import Loaded, Provenance, ResultState
from stablepay_console.services.team.needs_action import TeamRead
from stablepay_console.services.triage.queues import MINE, QUEUES, REVIEW, QueueAsk, queue_rows
from stablepay_console.services.triage.review import ReviewItem

__all__ = ["BY_CREATED", "BY_DEADLINE", "INBOX", "MINE", "NEEDS_ACTION", "QUEUES", "REVIEW", "WHOLE_VIEWS",
           "InboxPager", "InboxQuery", "needs_action_order"]

INBOX, NEEDS_ACTION = "inbox", "needs action"
WHOLE_VIEWS = (NEEDS_ACTION, MINE, REVIEW)
"""Views read whole and paged here: needs action (every issued request matching the kind and user filters), and the
queues over the whole account (`services.triage.queues`: my requests, those awaiting my review), deadline first."""
BY_CREATED, BY_DEADLINE = "created", "deadline"
"""The inbox's orders: the server's own (newest created first), or the nearest deadline first (those with none
last). The API sorts by neither: the deadline order is of the page in view."""
CACHED_PAGES = 12
"""Pages kept per filter (LRU): the shown one, its neighbours, and a few visited ones."""
AHEAD = 2
"""Pages prefetched in the direction the user is paging (one the other way): holding `n` against a
slow server still finds the next page cached."""


@dataclass(frozen=True)
class InboxQuery:
    """What the inbox asks the server for: filters and the page window."""

    filters: RfiFilters = field(default_factory=RfiFilters)
    limit: int = 20
    offset: int = 0

    @property
    def page_number(self) -> int:
        return self.offset // max(1, self.limit) + 1


def last_offset(total: int, limit: int) -> int:
    return max(0, (total - 1) // max(1, limit) * max(1, limit))


class InboxPager:
    """Paging and views of the RFI list for one console. `client_for()` gives the current client."""

    def __init__(self, profile: str, environment: str, clock: Callable[[], datetime]) -> None:
        self.profile, self.environment, self.clock = profile, environment, clock
        self.query = InboxQuery()
        self.view = INBOX
        self.page: ResultState[RfiPage] = ResultState()
        self.action: ResultState[Sequence[Rfi]] = ResultState()
        self.action_offset = 0
        self.review: list[ReviewItem] = []
        """The review queue as last read from the record (who made each answer ready; the banner's count)."""
        self.queues: dict[str, ResultState[Sequence[Rfi]]] = {queue: ResultState() for queue in QUEUES}
        """Each queue's rows as last read again from the API, deadline first."""
        self.queue_overdue: dict[str, set[str]] = {queue: set() for queue in QUEUES}
        self.queue_missing: dict[str, list[str]] = {queue: [] for queue in QUEUES}
        """Requests of a queue in no list of the account (gone from the API)."""
        self.overdue: set[str] = set()
        self.cursor_to_first = True
        """True after a filter, view or order change: the table puts its cursor on the first row."""
        self._cache: OrderedDict[InboxQuery, Loaded[RfiPage]] = OrderedDict()
        self.revalidated = False
        """The shown page was served from the cache and the server's copy differed: it was repainted."""
        self.direction = 1
        """+1 after paging forward, -1 after paging back: where the prefetch looks first."""
        self.from_record: tuple[list[Rfi], datetime] | None = None
        """A repeat start's first page as last shown, and when: greyed until the server's page replaces it."""
        self.order = BY_CREATED
        """How the inbox's rows are sorted (the issued views keep their own order)."""

    # --- what is asked -----------------------------------------------------------

    @property
    def filters(self) -> RfiFilters:
        """The filters in force; needs action always means issued; a queue is the whole account's, unfiltered."""
        if self.view == NEEDS_ACTION:
            return replace(self.query.filters, status="issued")
        if self.view in QUEUES:
            return RfiFilters()
        return self.query.filters

    def set_profile(self, profile: str, environment: str) -> None:
        """Another profile: nothing fetched under the old one is kept, the page goes back to the first."""
        self.profile, self.environment = profile, environment
        self.from_record = None
        self.page.profile_changed(profile)
        self.action.profile_changed(profile)
        for state in self.queues.values():
            state.profile_changed(profile)
        self._cache.clear()
        self.query = replace(self.query, offset=0)
        self.action_offset = 0
        self.cursor_to_first = True

    def apply(self, filters: RfiFilters, limit: int) -> None:
        if self.view in QUEUES:
            self.view = INBOX  # a filter is the inbox's: a queue is every request of the account that is mine
        if self.view == NEEDS_ACTION:
            if filters.status == "issued":  # the selector shows the view's own status: keep the inbox's
                filters = replace(filters, status=self.query.filters.status)
            else:
                self.view = INBOX  # choosing another status means leaving the issued-only view
        if filters != self.query.filters:
            self._cache.clear()
            self.from_record = None
        self.query = InboxQuery(filters=filters, limit=limit, offset=0)
        self.action_offset = 0
        self.cursor_to_first = True

    def set_limit(self, limit: int) -> None:
        """A new page size (the table's height, or the user's choice): back to the page holding the first row shown."""
        if limit != self.query.limit:
            self.query = replace(self.query, limit=limit, offset=self.query.offset // limit * limit)
            self.action_offset = self.action_offset // limit * limit

    def clear_filters(self) -> None:
        self.view = INBOX
        self.apply(RfiFilters(), self.query.limit)

    def toggle_view(self, view: str = NEEDS_ACTION) -> None:
        """Into `view` (needs action, or the review queue), or back to the inbox from it."""
        self.view = INBOX if self.view == view else view
        self.action_offset = 0
        self.cursor_to_first = True

    def whole_rows(self) -> Sequence[Rfi]:
        """Every row of a whole view as read: every issued request (needs action), or a queue's, deadline first."""
        found = self.state.current
        return found.value if found is not None and self.view in WHOLE_VIEWS else []  # type: ignore[return-value]

    def shown_overdue(self) -> set[str]:
        """The rows of the view marked overdue (the whole views: deadline passed, a reply would be rejected)."""
        if self.view == NEEDS_ACTION:
            return self.overdue
        return self.queue_overdue.get(self.view, set())

    def reviewed_by(self, rfi_id: str) -> str:
        """Who made the answer under review ready ("" when it is not in the review queue)."""
        return next((item.made_ready_by for item in self.review if item.rfi_id == rfi_id), "")

    def cycle_order(self) -> str:
        """Created (the server's order) and deadline in turn; the order now."""
        self.order = BY_DEADLINE if self.order == BY_CREATED else BY_CREATED
        self.cursor_to_first = True
        return self.order

    def loaded(self) -> list[tuple[Sequence[Rfi], Provenance]]:
        """Every list of this profile's requests read (the cache, the page shown, the whole views), with where."""
        loaded: list[tuple[Sequence[Rfi], Provenance]] = [(hit.value.data, hit.provenance)
                                                          for hit in self._cache.values()]
        for state in (self.page.current, self.action.current, *(q.current for q in self.queues.values())):
            if state is not None and state.provenance.profile == self.profile:
                loaded.append((state.value.data if isinstance(state.value, RfiPage) else state.value,
                               state.provenance))
        return loaded

    def drop_cache(self) -> None:
        """Refresh asks the server again for everything."""
        self._cache.clear()

    # --- what is shown -----------------------------------------------------------

    def rows(self) -> list[Rfi]:
        if self.view in WHOLE_VIEWS:
            rows = self.whole_rows()
            return list(rows[self.action_offset : self.action_offset + self.query.limit])
        shown = self.page.current
        if shown is None and self.from_record is not None:
            return self.from_record[0][: self.query.limit]
        rows = list(shown.value.data) if shown is not None else []
        if self.order == BY_DEADLINE:
            rows.sort(key=lambda rfi: (rfi.deadline is None, rfi.deadline or rfi.created_at))
        return rows

    def show_from_record(self, rows: list[Rfi], at: datetime) -> bool:
        """Paint a repeat start's first page (as of `at`) until the server's comes: only on the first page of the
        unfiltered inbox, and only before any page of the server is shown."""
        if self.page.current is not None or self.view != INBOX or self.query.offset or not self.query.filters.is_empty:
            return False
        self.from_record = (rows, at)
        return True

    @property
    def state(self) -> ResultState[RfiPage] | ResultState[Sequence[Rfi]]:
        if self.view in QUEUES:
            return self.queues[self.view]
        return self.action if self.view == NEEDS_ACTION else self.page

    def window(self) -> tuple[int, int, int] | None:
        """(offset, limit, total) of what the table shows, or None before anything loaded."""
        limit = self.query.limit
        if self.view in WHOLE_VIEWS:
            found = self.state.current
            return None if found is None else (self.action_offset, limit, len(self.whole_rows()))
        shown = self.page.current
        if shown is None:
            return None
        p = shown.value.pagination
        return max(0, p.offset), max(1, p.limit), max(0, p.total)

    def target(self, where: str) -> tuple[int | None, str]:
        """The offset to go to for next/prev/first/last, or None with what to tell the user."""
        window = self.window()
        if window is None:
            return None, "Nothing has loaded yet."
        offset, limit, total = window
        last = last_offset(total, limit)
        goal = {"next": offset + limit, "prev": offset - limit, "first": 0, "last": last}[where]
        if goal > last:
            return None, "This is the last page."
        if goal < 0:
            return None, "This is the first page."
        return (None, "") if goal == offset else (goal, "")

    def go(self, offset: int) -> None:
        self.cursor_to_first = True
        if self.view in WHOLE_VIEWS:
            self.action_offset = offset
        else:
            self.direction = -1 if offset < self.query.offset else 1
            self.query = replace(self.query, offset=offset)

    # --- loading -----------------------------------------------------------------

    def _provenance(self, query: InboxQuery, what: str, origin: str = "") -> Provenance:
        return Provenance(self.profile, self.environment, what, self.clock(), origin)

    def cached(self, query: InboxQuery | None = None) -> Loaded[RfiPage] | None:
        return self._cache.get(query or self.query)

    def show_cached(self) -> bool:
        """Paint the asked page at once from the cache (then `load` revalidates). False when not cached."""
        hit = self.cached()
        if hit is None or self.view != INBOX:
            return False
        self.page.succeed(hit)
        return True

    async def _fetch(self, client: StablePayClient, query: InboxQuery) -> Loaded[RfiPage]:
        f = query.filters
        page = await client.list_rfis(f, query.limit, query.offset)
        p = page.pagination
        if not page.data and p.total > 0 and p.offset >= p.total:
            # The list shrank since the last page was counted: show the new last page instead.
            query = replace(query, offset=last_offset(p.total, query.limit))
            page = await client.list_rfis(f, query.limit, query.offset)
        asked = f"{f.describe()} · page {query.page_number}"
        loaded = Loaded(page, self._provenance(query, asked))
        self._remember(replace(query, offset=max(0, page.pagination.offset)), loaded)
        return loaded

    def _remember(self, query: InboxQuery, loaded: Loaded[RfiPage]) -> None:
        self._cache[query] = loaded
        self._cache.move_to_end(query)
        while len(self._cache) > CACHED_PAGES:
            self._cache.popitem(last=False)

    def begin(self) -> None:
        """Say what is being loaded for the current view (before `load` or `load_needs_action` awaits)."""
        if self.view == NEEDS_ACTION:
            self.action.begin("Loading every issued request…")
        elif self.view in QUEUES:
            self.queues[self.view].begin("Reading the queue from the record, each request again from the server…")
        else:
            self.page.begin(self.loading_words(self.query))

    def loading_words(self, query: InboxQuery) -> str:
        """"Loading page 3…" for a page not yet on screen; "refreshing…" while the page on screen (from the
        cache, or a reload) is checked again with the server."""
        shown = self.page.current
        on_screen = (
            shown is not None
            and shown.provenance.asked == f"{query.filters.describe()} · page {query.page_number}"
            and shown.value.pagination.offset == query.offset
            and shown.value.pagination.limit == query.limit
        )
        return "refreshing…" if on_screen else f"Loading page {query.page_number}…"

    async def load(self, client: StablePayClient) -> bool:
        """Fetch the asked page; on failure keep the last good one (stale) and its window.

        True when the rows to show changed (False: the server's copy equals the page already shown,
        which need not be painted again)."""
        query = self.query
        was = self.page.current
        self.page.begin(self.loading_words(query))
        try:
            loaded = await self._fetch(client, query)
        except APIError as exc:
            self.page.fail(error_lines(exc))
            if was is not None:
                self.query = replace(self.query, offset=was.value.pagination.offset)
            return False
        if query != self.query:
            return False  # the user moved on while this was in flight; its result is only cached
        same = was is not None and was.provenance.asked == loaded.provenance.asked and was.value == loaded.value
        self.revalidated = (
            was is not None
            and was.provenance.asked == loaded.provenance.asked
            and was.value.pagination.limit == loaded.value.pagination.limit  # a page resized to the table is no update
            and [r.id for r in was.value.data] != [r.id for r in loaded.value.data]
        )
        self.page.succeed(loaded)
        self.from_record = None
        self.query = replace(query, offset=max(0, loaded.value.pagination.offset))
        return not same

    def neighbours(self) -> list[InboxQuery]:
        """The uncached pages to prefetch: `AHEAD` in the direction of paging, one the other way."""
        window = self.window() if self.view == INBOX else None
        if window is None:
            return []
        offset, limit, total = window
        step = limit * self.direction
        goals = [offset + step * n for n in range(1, AHEAD + 1)] + [offset - step]
        wanted = [replace(self.query, offset=goal) for goal in goals if 0 <= goal <= last_offset(total, limit)]
        return [query for query in wanted if query not in self._cache]

    async def prefetch(self, client: StablePayClient) -> None:
        """Fetch the neighbours of the shown page quietly and at once, so the next page switch paints at once."""
        await asyncio.gather(*(self._prefetch_one(client, query) for query in self.neighbours()))

    async def _prefetch_one(self, client: StablePayClient, query: InboxQuery) -> None:
        try:
            await self._fetch(client, query)
        except APIError:
            pass  # a prefetch failure is not the user's concern: the real load will say

    async def load_needs_action(self, client: StablePayClient, shown: Callable[[], None] | None = None,
                                team: TeamRead | None = None) -> None:
        """Every issued request matching the kind and user filters: deadline ahead, then overdue, shown as read
        (`shown` repaints) until the last page; `team` gives them from a fresh team watcher's sweep instead."""
        f = self.filters
        asked = f"{self.view} · {f.describe()}"
        self.action.begin("Loading every issued request…")

        def partial(got: Partial) -> None:
            self.overdue = got.overdue
            still = f"Still reading: {got.read:,} of {got.total:,} issued requests…"
            self.action.partial(Loaded(got.rows, self._provenance(self.query, f"{asked} (partial)")), still)
            if shown is not None:
                shown()

        swept = await team(f, self.clock(), partial) if team is not None else None

        try:
            ordered, self.overdue = swept.found if swept else await read_needs_action(client, f, self.clock(), partial)
        except APIError as exc:
            self.action.fail(error_lines(exc))
            if self.action.current is None:
                self.view = INBOX
            return
        self.action.succeed(Loaded(ordered, self._provenance(self.query, asked, swept.said if swept else "")))
        self.action_offset = min(self.action_offset, last_offset(len(ordered), self.query.limit))

    async def load_queue(self, client: StablePayClient, ask: QueueAsk) -> None:
        """A queue's rows (which requests: `ask`, from the record), each read again from the API, deadline first."""
        state = self.queues[ask.queue]
        state.begin("Reading each request of the queue again from the server…")
        try:
            got = await queue_rows(client, ask, self.clock())
        except APIError as exc:
            state.fail(error_lines(exc))
            return
        self.queue_overdue[ask.queue], self.queue_missing[ask.queue] = got.overdue, got.missing
        if ask.queue == REVIEW:
            self.review = list(ask.review)
        origin = f"{len(got.missing)} of the record's in no list of the account" if got.missing else ""
        asked = f"{ask.queue} · every request of the account"
        state.succeed(Loaded(got.rows, self._provenance(self.query, asked, origin)))
        if self.view == ask.queue:
            self.action_offset = min(self.action_offset, last_offset(len(got.rows), self.query.limit))
