"""Paging that never trusts the server: duplicates, lying pagination, lists that move during the walk."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from stablepay_console.api import StablePayClient
from stablepay_console.api.models import Pagination, Rfi, RfiPage
from stablepay_console.api.paging import PagingReport, page_step, walk_pages
from tests.hostile_payloads import BASE_TIME, LIST_SIZE, rfi, uid
from tests.hostile_server import HostileServer, hostile_server_fixture, mock_transport  # noqa: F401

ALL_IDS = [uid(n) for n in range(LIST_SIZE)]


class Counting(httpx.AsyncBaseTransport):
    """The hostile answers in-process, counting the requests."""

    def __init__(self, case: str) -> None:
        self.inner = mock_transport(case)
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return await self.inner.handle_async_request(request)


async def walk(case: str, page_size: int = 20, concurrency: int = 8) -> tuple[list[Rfi], PagingReport, Counting]:
    transport = Counting(case)
    report = PagingReport()
    async with StablePayClient("http://127.0.0.1", "k", transport=transport, export_concurrency=concurrency) as client:
        rows = [r async for r in client.iter_rfis(page_size=page_size, report=report)]
    return rows, report, transport


def ids(rows: list[Rfi]) -> list[str]:
    return [r.id for r in rows]


@pytest.mark.parametrize("page_size", [20, 100])
@pytest.mark.parametrize("case", ["normal", "limit-zero", "negative-offset"])
async def test_an_honest_list_and_harmless_lies_give_every_row_once_in_order(case: str, page_size: int) -> None:
    rows, report, transport = await walk(case, page_size)
    assert ids(rows) == ALL_IDS
    assert report.delivered == LIST_SIZE and report.duplicates == 0 and not report.total_differs
    assert report.stopped in ("a short page (the end of the list)", "the end of the total the server gave")
    assert all(r.url.params["offset"].isdigit() and 1 <= int(r.url.params["limit"]) <= 100 for r in transport.requests)


async def test_a_total_of_ten_trillion_stops_at_the_short_page_with_a_handful_of_requests() -> None:
    rows, report, transport = await walk("total-huge", page_size=20)
    assert ids(rows) == ALL_IDS
    assert report.total == 10**13 and report.total_differs
    assert report.stopped in ("a short page (the end of the list)", "an empty page")
    assert len(transport.requests) <= 3 + 16  # the pages, plus at most one window in flight


@pytest.mark.parametrize(("case", "total"), [("same-page-1000", 1000), ("same-page-1e9", 10**9)])
async def test_the_same_page_again_and_again_stops_when_nothing_is_new(case: str, total: int) -> None:
    rows, report, transport = await walk(case, page_size=20)
    assert ids(rows) == ALL_IDS[:20]
    assert report.delivered == 20 and report.duplicates >= 20
    assert report.stopped == "a page that brought nothing new"
    assert report.total == total and report.total_differs
    assert len(transport.requests) <= 2 + 16


async def test_the_same_page_served_short_stops_at_once() -> None:
    rows, report, transport = await walk("same-page-1000", page_size=100)
    assert len(rows) == 20 and len(transport.requests) == 1
    assert report.total_differs


async def test_duplicates_in_one_page_are_skipped() -> None:
    rows, report, _ = await walk("duplicate-ids")
    assert ids(rows) == [uid(0), uid(1), uid(2)]
    assert report.duplicates == 2 and report.delivered == 3


async def test_the_same_rfi_on_two_pages_is_written_once() -> None:
    rows, report, _ = await walk("overlapping-pages")
    assert ids(rows) == ALL_IDS
    assert report.duplicates == 1  # row 19 comes again at the top of the second page


@pytest.mark.parametrize("concurrency", [1, 8])
async def test_a_list_that_grows_during_the_walk_loses_nothing_and_repeats_nothing(concurrency: int) -> None:
    rows, report, _ = await walk("growing", page_size=20, concurrency=concurrency)
    got = ids(rows)
    assert len(got) == len(set(got))
    assert set(ALL_IDS) <= set(got)
    assert report.duplicates > 0
    assert report.delivered == len(got)


@pytest.mark.parametrize("concurrency", [1, 8])
async def test_a_list_that_shrinks_during_the_walk_is_re_read_where_it_shifted(concurrency: int) -> None:
    rows, report, _ = await walk("shrinking", page_size=20, concurrency=concurrency)
    assert sorted(ids(rows)) == sorted(ALL_IDS)  # the rows that moved up past the walk were read again
    assert report.reread_pages >= 1
    assert len(ids(rows)) == len(set(ids(rows)))


async def test_over_http_too(hostile_server: HostileServer) -> None:
    report = PagingReport()
    async with StablePayClient(hostile_server.url("same-page-1e9"), "k") as client:
        rows = [r async for r in client.iter_rfis(page_size=20, report=report)]
    assert len(rows) == 20 and report.total_differs


async def test_a_server_that_invents_rows_for_ever_stops_at_the_ceiling() -> None:
    async def endless(limit: int, offset: int) -> RfiPage:
        rows = [Rfi.model_validate(rfi(offset + n)) for n in range(limit)]
        return RfiPage(data=rows, pagination=Pagination(limit=limit, offset=offset, total=10**13))

    report = PagingReport()
    rows = [r async for page in walk_pages(endless, 50, concurrency=4, report=report, max_rows=230) for r in page]
    assert len(rows) == 230 and report.capped and report.stopped == "the row ceiling"


async def test_paging_stops_once_past_the_start_of_a_date_range() -> None:
    requested: list[int] = []

    async def pages(limit: int, offset: int) -> RfiPage:
        requested.append(offset)
        rows = [Rfi.model_validate(rfi(n)) for n in range(offset, min(1000, offset + limit))]
        return RfiPage(data=rows, pagination=Pagination(limit=limit, offset=offset, total=1000))

    report = PagingReport()
    older_than = BASE_TIME - timedelta(minutes=30)  # rfi(n) was created n minutes before BASE_TIME
    rows = [r async for page in walk_pages(pages, 10, concurrency=2, report=report, older_than=older_than)
            for r in page]
    assert report.date_range_stop and "date range" in report.stopped
    assert len(rows) == 50 and max(requested) < 100  # rows 40-49 are the first page wholly older


@pytest.mark.parametrize(("echoed", "asked", "step"), [(0, 20, 20), (-1, 20, 20), (10, 20, 10), (500, 20, 20)])
def test_the_stride_follows_a_usable_echoed_limit_only(echoed: int, asked: int, step: int) -> None:
    assert page_step(echoed, asked) == step


def test_negative_pagination_reads_as_zero_and_limit_zero_divides_nothing() -> None:
    page = Pagination.model_validate({"limit": 0, "offset": -20, "total": -5})
    assert (page.limit, page.offset, page.total) == (0, 0, 0)
    assert page.page == 1 and page.pages == 1
    huge = Pagination.model_validate({"limit": 1, "offset": 0, "total": 10**13})
    assert huge.pages == 10**13


async def test_iter_rfis_still_matches_a_sequential_loop_on_the_sandbox(client: StablePayClient) -> None:
    sequential: list[str] = []
    offset = 0
    while True:
        page = await client.list_rfis(limit=100, offset=offset)
        sequential += [r.id for r in page.data]
        offset += 100
        if offset >= page.pagination.total:
            break
    report = PagingReport()
    assert [r.id async for r in client.iter_rfis(report=report)] == sequential
    assert report.delivered == len(sequential) == report.total and report.duplicates == 0
