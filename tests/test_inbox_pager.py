"""The inbox's rules without Textual: paging, needs action, the page cache, provenance, the cursor."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from stablepay_console.api import ServerError, StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import Rfi
from stablepay_console.sandbox import Sandbox
from stablepay_console.services.inbox_pager import INBOX, NEEDS_ACTION, InboxPager, needs_action_order
from tests.conftest import FIXED_NOW


def pager() -> InboxPager:
    return InboxPager("embedded", "sandbox", lambda: FIXED_NOW)


class CountingClient:
    """Wraps a client and counts list_rfis calls; `fail` makes the next calls raise a server error."""

    def __init__(self, client: StablePayClient) -> None:
        self.client = client
        self.calls: list[tuple[Any, ...]] = []
        self.fail = False

    async def list_rfis(self, *args: Any) -> Any:
        self.calls.append(args)
        if self.fail:
            raise ServerError("Simulated internal failure", status=500, code="INTERNAL_SERVER_ERROR")
        return await self.client.list_rfis(*args)  # (filters, limit, offset)

    def iter_rfis(self, *args: Any) -> Any:
        return self.client.iter_rfis(*args)


def rfi_with_deadline(sandbox: Sandbox, index: int, hours: float | None) -> Rfi:
    """One of the sandbox's issued requests with its round's deadline moved to now + `hours`."""
    base = [r for r in sandbox.data.rfis if r.round is not None][index]
    if hours is None:
        return base.model_copy(update={"round": None})
    assert base.round is not None
    new_round = base.round.model_copy(update={"expires_at": FIXED_NOW + timedelta(hours=hours), "submitted_at": None})
    return base.model_copy(update={"round": new_round})


def test_needs_action_puts_deadlines_ahead_first_then_overdue_then_undated(sandbox: Sandbox) -> None:
    late = rfi_with_deadline(sandbox, 0, -5)
    later = rfi_with_deadline(sandbox, 1, -1)
    soon = rfi_with_deadline(sandbox, 2, 2)
    sooner = rfi_with_deadline(sandbox, 3, 1)
    undated = rfi_with_deadline(sandbox, 4, None)
    rows, overdue = needs_action_order([late, undated, soon, later, sooner], FIXED_NOW)
    assert [r.id for r in rows] == [sooner.id, soon.id, later.id, late.id, undated.id]
    assert overdue == {late.id, later.id}


async def test_pages_carry_provenance_and_neighbours_are_prefetched(client: StablePayClient) -> None:
    counting = CountingClient(client)
    p = pager()
    await p.load(counting)  # type: ignore[arg-type]
    shown = p.page.current
    assert shown is not None and len(shown.value.data) == 20
    assert shown.provenance.profile == "embedded" and shown.provenance.at == FIXED_NOW
    assert shown.provenance.asked == "status any · kind any · user any · page 1"
    await p.prefetch(counting)  # type: ignore[arg-type]
    assert sorted(c[2] for c in counting.calls) == [0, 20, 40]  # page 1, then the two pages ahead
    p.go(20)
    assert p.show_cached()  # page 2 paints at once from the cache
    assert p.rows() and p.window() == (20, 20, 240)
    await p.prefetch(counting)  # type: ignore[arg-type]
    assert [c[2] for c in counting.calls[3:]] == [60]  # pages 3 and 1 are cached already


async def test_a_page_on_screen_checked_again_says_refreshing_not_loading(client: StablePayClient) -> None:
    """Page 2 painted from the cache and then checked with the server reads "refreshing", not "Loading page 2"."""
    p = pager()
    await p.load(client)
    await p.prefetch(client)
    p.go(20)
    assert p.show_cached()
    p.begin()
    kind, words = p.state.status_line()
    assert (kind, words) == ("loading", "refreshing…")
    await p.load(client)
    p.go(60)  # page 4 is not cached: nothing of it is on screen yet
    p.begin()
    assert p.state.status_line() == ("loading", "Loading page 4…")


async def test_paging_back_prefetches_the_pages_behind(client: StablePayClient) -> None:
    counting = CountingClient(client)
    p = pager()
    p.go(220)
    await p.load(counting)  # type: ignore[arg-type]
    p.go(200)
    await p.load(counting)  # type: ignore[arg-type]
    await p.prefetch(counting)  # type: ignore[arg-type]
    assert sorted(c[2] for c in counting.calls[2:]) == [160, 180]  # two behind; the page after is cached


async def test_a_filter_change_or_refresh_drops_the_cache(client: StablePayClient) -> None:
    counting = CountingClient(client)
    p = pager()
    await p.load(counting)  # type: ignore[arg-type]
    await p.prefetch(counting)  # type: ignore[arg-type]
    p.apply(RfiFilters(status="issued"), 20)
    p.go(20)
    assert not p.show_cached()
    p.go(0)
    await p.load(counting)  # type: ignore[arg-type]
    p.drop_cache()
    assert not p.show_cached()


async def test_a_failure_keeps_the_last_page_as_stale_with_its_own_window(client: StablePayClient) -> None:
    counting = CountingClient(client)
    p = pager()
    await p.load(counting)  # type: ignore[arg-type]
    counting.fail = True
    p.go(220)
    await p.load(counting)  # type: ignore[arg-type]
    assert p.page.stale and p.query.offset == 0
    kind, text = p.page.status_line()
    assert kind == "stale"
    assert "Server error: HTTP 500: Simulated internal failure" in text
    assert "Still showing status any · kind any · user any · page 1 · profile embedded (sandbox)" in text


async def test_a_profile_switch_drops_every_result_of_the_old_profile(client: StablePayClient) -> None:
    p = pager()
    await p.load(client)
    p.toggle_view()
    await p.load_needs_action(client)
    assert p.page.current is not None and p.action.current is not None
    p.set_profile("embedded-production", "production")
    assert p.page.current is None and p.action.current is None
    assert p.rows() == [] and p.window() is None
    assert p.query.offset == 0


async def test_the_list_shrank_so_the_new_last_page_is_shown(client: StablePayClient, sandbox: Sandbox) -> None:
    p = pager()
    await p.load(client)
    p.go(220)
    del sandbox.data.rfis[100:]  # 100 left: offset 220 is past the end
    await p.load(client)
    assert p.window() == (80, 20, 100)
    assert len(p.rows()) == 20


@pytest.mark.parametrize(
    ("where", "offset", "expected"),
    [("next", 0, (20, "")), ("prev", 0, (None, "This is the first page.")), ("last", 0, (220, "")),
     ("next", 220, (None, "This is the last page.")), ("first", 0, (None, ""))],
)
async def test_paging_targets(client: StablePayClient, where: str, offset: int, expected: tuple[Any, str]) -> None:
    p = pager()
    assert p.target("next") == (None, "Nothing has loaded yet.")
    p.go(offset)
    await p.load(client)
    assert p.target(where) == expected


async def test_the_cursor_goes_to_the_first_row_after_a_new_order_filter_or_view(client: StablePayClient) -> None:
    p = pager()
    await p.load(client)
    p.cursor_to_first = False
    p.toggle_view()
    assert p.view == NEEDS_ACTION and p.cursor_to_first and p.filters.status == "issued"
    p.cursor_to_first = False
    p.apply(RfiFilters(kind="onboarding"), 20)
    assert p.view == INBOX and p.cursor_to_first  # choosing a status (any) left needs action
    p.cursor_to_first = False
    p.go(20)
    assert p.cursor_to_first
