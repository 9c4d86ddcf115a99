"""What a walk through the pages asks for and what its report says (api/paging.py), exactly: the report's pages,
re-read pages and reason to stop are printed by `rfis list --all`, the export's summary and the watch's sweep
line, and the requests it makes are the API's cost of one walk."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

import pytest

from stablepay_console.api.models import Pagination, Rfi, RfiPage
from stablepay_console.api.paging import MAX_REREAD_PAGES, PagingReport, page_step, walk_pages
from tests.hostile_payloads import BASE_TIME, rfi


class Listing:
    """A list of `size` requests served page by page; `total_at(call)` may lie about or change the total, and
    `shift_at` drops that many rows from the front of the list once that many pages have been served."""

    def __init__(self, size: int, *, echo: Callable[[int], int] = lambda limit: limit,
                 total_at: Callable[[int], int] | None = None, shift: tuple[int, int] | None = None) -> None:
        self.rows = [Rfi.model_validate(rfi(n)) for n in range(size)]
        self.echo = echo
        self.total_at = total_at
        self.shift = shift
        self.asked: list[tuple[int, int]] = []

    async def __call__(self, limit: int, offset: int) -> RfiPage:
        self.asked.append((limit, offset))
        if self.shift is not None and len(self.asked) == self.shift[0] + 1:
            del self.rows[: self.shift[1]]
        total = self.total_at(len(self.asked)) if self.total_at is not None else len(self.rows)
        page = self.rows[offset: offset + limit]
        return RfiPage(data=page, pagination=Pagination(limit=self.echo(limit), offset=offset, total=total))


async def walked(listing: Listing, page_size: int, concurrency: int = 1,
                 **kw: object) -> tuple[list[str], PagingReport]:
    report = PagingReport()
    got = [r.id async for page in walk_pages(listing, page_size, concurrency=concurrency, report=report, **kw)  # type: ignore[arg-type]
           for r in page]
    return got, report


async def test_one_walk_reads_each_page_once_in_turn_and_counts_them() -> None:
    listing = Listing(45)
    got, report = await walked(listing, 10)
    assert len(got) == 45 and len(set(got)) == 45
    assert listing.asked == [(10, 0), (10, 10), (10, 20), (10, 30), (10, 40)]
    assert report.pages == 5 and report.reread_pages == 0 and report.duplicates == 0
    assert report.stopped == "a short page (the end of the list)"
    assert (report.first_total, report.total, report.delivered) == (45, 45, 45)
    assert not report.capped and not report.date_range_stop and not report.total_differs


async def test_a_list_of_whole_pages_ends_at_the_total_the_server_gave() -> None:
    listing = Listing(30)
    got, report = await walked(listing, 10, concurrency=2)
    assert len(got) == 30 and report.pages == 3
    assert listing.asked == [(10, 0), (10, 10), (10, 20)]  # no page asked past the total
    assert report.stopped == "the end of the total the server gave"


async def test_an_empty_list_is_one_request_and_says_so() -> None:
    listing = Listing(0)
    got, report = await walked(listing, 10)
    assert got == [] and listing.asked == [(10, 0)]
    assert report.pages == 1 and report.stopped == "an empty page"


async def test_a_page_that_brings_nothing_new_says_so() -> None:
    listing = Listing(10, total_at=lambda call: 50)  # the same ten rows however far the walk goes
    same = listing.rows

    async def again(limit: int, offset: int) -> RfiPage:
        listing.asked.append((limit, offset))
        return RfiPage(data=same, pagination=Pagination(limit=limit, offset=offset, total=50))

    report = PagingReport()
    got = [r.id async for page in walk_pages(again, 10, report=report) for r in page]
    assert len(got) == 10 and report.pages == 2 and report.duplicates == 10
    assert report.stopped == "a page that brought nothing new"


async def requests_ahead(concurrency: int | None) -> int:
    """How many pages are asked for while the first page's rows are with the caller."""
    listing = Listing(200)
    pages = walk_pages(listing, 10) if concurrency is None else walk_pages(listing, 10, concurrency=concurrency)
    first = await pages.__anext__()
    for _ in range(5):  # the pages sent meanwhile get to make their requests
        await asyncio.sleep(0)
    await pages.aclose()
    assert len(first) == 10
    return len(listing.asked) - 1


@pytest.mark.parametrize("concurrency", [1, 2, 3])
async def test_pages_in_flight_are_twice_the_concurrency(concurrency: int) -> None:
    assert await requests_ahead(concurrency) == 2 * concurrency


async def test_the_default_is_one_walk_of_two_pages_in_flight() -> None:
    assert await requests_ahead(None) == 2


async def test_a_concurrency_below_one_still_reads_two_pages_ahead() -> None:
    assert await requests_ahead(0) == 2


async def test_a_ceiling_on_rows_asks_for_no_page_past_it() -> None:
    listing = Listing(1000)
    got, report = await walked(listing, 10, concurrency=1, max_rows=30)
    assert len(got) == 30 and report.capped and report.stopped == "the row ceiling"
    assert max(offset for _, offset in listing.asked) == 30  # the page that found the ceiling, none after it


async def test_a_shrink_re_reads_just_the_rows_that_moved_up_and_counts_those_pages() -> None:
    # After the first page, the list loses its first 5 rows: rows 10-14 move up to offsets 5-9, before the walk.
    listing = Listing(40, shift=(1, 5))
    got, report = await walked(listing, 10)
    assert sorted(got) == sorted(r.id for r in [Rfi.model_validate(rfi(n)) for n in range(40)])
    assert len(got) == len(set(got))
    assert (5, 5) in listing.asked  # the 5 rows before offset 10, read again from offset 5
    assert report.reread_pages == 1
    assert report.first_total == 40 and report.total == 35


async def test_a_shrink_across_many_pages_re_reads_each_of_them_whole() -> None:
    # Served from the 6th request on (offset 50), the list has lost its first 30 rows: rows 50-79 are now at
    # offsets 20-49, behind the walk, and are read again as three pages.
    listing = Listing(200, shift=(5, 30))
    got, report = await walked(listing, 10)
    assert listing.asked[:5] == [(10, 0), (10, 10), (10, 20), (10, 30), (10, 40)]
    after = listing.asked[6:]
    assert [(10, 20), (10, 30), (10, 40)] == [asked for asked in after if asked[1] < 50]
    assert report.reread_pages == 3
    assert len(got) == len(set(got)) == 200


async def test_a_shrink_larger_than_the_reread_limit_is_chased_no_further() -> None:
    # At offset 100 the list has lost 80 rows: eight pages moved behind the walk, five are read again.
    listing = Listing(400, shift=(10, 80))
    _, report = await walked(listing, 10)
    behind = [asked for asked in listing.asked[11:] if asked[1] < 100]
    assert behind == [(10, 20), (10, 30), (10, 40), (10, 50), (10, 60)]
    assert report.reread_pages == MAX_REREAD_PAGES


async def test_a_shrink_past_the_top_re_reads_from_the_first_row() -> None:
    listing = Listing(40, shift=(1, 15))  # at offset 10, 15 rows gone: rows 15-24 are now at offsets 0-9
    got, report = await walked(listing, 10)
    assert listing.asked[3] == (10, 0) and report.reread_pages == 1
    assert len(got) == len(set(got)) == 40 - 5  # rows 10-14 were taken away before the walk reached them


async def test_one_row_a_page_re_reads_the_row_that_moved_up_to_the_top() -> None:
    listing = Listing(5, shift=(1, 1))  # at offset 1 the first row is gone: row 1 is now at offset 0
    got, report = await walked(listing, 1)
    assert len(got) == 5 and report.reread_pages == 1


async def test_a_total_that_grows_reads_nothing_again() -> None:
    listing = Listing(30, total_at=lambda call: 30 + call)
    _, report = await walked(listing, 10)
    assert report.reread_pages == 0


async def test_without_a_date_range_the_stop_is_never_a_date_range_stop() -> None:
    listing = Listing(15)
    _, report = await walked(listing, 10)
    assert not report.date_range_stop


async def test_a_date_range_that_holds_the_whole_list_ends_at_its_end_not_at_the_range() -> None:
    listing = Listing(15)
    _, report = await walked(listing, 10, older_than=BASE_TIME - timedelta(days=365))
    assert not report.date_range_stop and report.stopped == "a short page (the end of the list)"


async def test_a_date_range_stop_says_so_in_words() -> None:
    listing = Listing(100)  # rfi(n) was created n minutes before BASE_TIME
    got, report = await walked(listing, 10, older_than=BASE_TIME - timedelta(minutes=15))
    assert report.date_range_stop and report.stopped == "a page older than the start of the date range"
    assert len(got) == 30 and max(offset for _, offset in listing.asked) <= 30


def test_the_stride_is_the_servers_page_size_when_it_is_one_the_walk_can_use() -> None:
    assert [page_step(echoed, 100) for echoed in (1, 2, 99, 100)] == [1, 2, 99, 100]
    assert [page_step(echoed, 100) for echoed in (0, -1, 101)] == [100, 100, 100]
