"""What a walk through the pages reports (api/paging.py), against a list kept in the test: the pages read and re-read,
why it stopped, in words; the stride the server's echoed page size allows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

from stablepay_console.api.models import Pagination, Rfi, RfiPage
from stablepay_console.api.paging import PagingReport, page_step, walk_pages
from tests.hostile_payloads import BASE_TIME, rfi

Fetch = Callable[[int, int], Awaitable[RfiPage]]


def listing(rows: list[dict[str, object]], calls: list[tuple[int, int]], shrink_after: int | None = None) -> Fetch:
    """A server's list: `shrink_after` fetches in, its first two rows go (the rest move up)."""
    kept = list(rows)

    async def fetch(limit: int, offset: int) -> RfiPage:
        calls.append((limit, offset))
        if shrink_after is not None and len(calls) == shrink_after + 1:
            del kept[:2]
        page = kept[offset:offset + limit]
        return RfiPage.model_validate({"data": page, "pagination": Pagination(limit=limit, offset=offset,
                                                                              total=len(kept)).to_wire()})
    return fetch


async def walked(fetch: Fetch, page_size: int = 10, **kwargs: object) -> tuple[list[Rfi], PagingReport]:
    report = PagingReport()
    rows: list[Rfi] = []
    async for page in walk_pages(fetch, page_size, report=report, **kwargs):  # type: ignore[arg-type]
        rows.extend(page)
    return rows, report


def test_the_stride_is_the_servers_page_size_when_it_is_one_the_walk_can_use() -> None:
    assert [page_step(echoed, 100) for echoed in (1, 2, 99, 100)] == [1, 2, 99, 100]
    assert [page_step(echoed, 100) for echoed in (0, -1, 101)] == [100, 100, 100]


async def test_a_whole_list_is_read_once_a_page_and_says_it_ended_at_the_total() -> None:
    calls: list[tuple[int, int]] = []
    rows, report = await walked(listing([rfi(n) for n in range(30)], calls))
    assert len(rows) == 30 and report.pages == 3 and report.reread_pages == 0
    assert sorted(calls) == [(10, 0), (10, 10), (10, 20)]
    assert report.stopped == "the end of the total the server gave"
    assert not report.date_range_stop


async def test_an_empty_list_says_so() -> None:
    rows, report = await walked(listing([], []))
    assert rows == [] and report.pages == 1 and report.stopped == "an empty page"


async def test_a_list_that_shrank_under_the_walk_is_re_read_where_its_rows_moved_up() -> None:
    calls: list[tuple[int, int]] = []
    source = [rfi(n) for n in range(30)]
    rows, report = await walked(listing(source, calls, shrink_after=1), concurrency=1)
    assert sorted(r.id for r in rows) == sorted(str(s["id"]) for s in source), "every row once, none lost"
    assert report.reread_pages == 1 and (2, 8) in calls, calls  # the two rows that moved up past offset 10
    assert report.pages == 3 and report.stopped == "a short page (the end of the list)"


async def test_a_walk_past_the_date_range_says_so() -> None:
    source = [rfi(n * 60) for n in range(30)]  # an hour apart
    _, report = await walked(listing(source, []), older_than=BASE_TIME - timedelta(hours=5))
    assert report.stopped == "a page older than the start of the date range" and report.date_range_stop
