"""The plain walk of the account (services/watch/walk.py): `every_rfi` is every request the filters match, all
pages, with the paging told; `walk_issued` hands every issued request, a page at a time, to each of its readers."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from stablepay_console.api import StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import Rfi
from stablepay_console.api.paging import PagingReport
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import SANDBOX_KEY
from stablepay_console.services.watch.walk import every_rfi, walk_issued


def client_for(sandbox: Sandbox) -> StablePayClient:
    return StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app))


def ids_with(sandbox: Sandbox, status: str | None = None) -> set[str]:
    return {str(r.id) for r in sandbox.data.rfis if status is None or r.status == status}


async def test_every_rfi_is_every_request_the_filters_match_and_tells_the_paging(sandbox: Sandbox) -> None:
    issued = ids_with(sandbox, "issued")
    assert 100 < len(ids_with(sandbox)) and issued and issued != ids_with(sandbox)
    report = PagingReport()
    async with client_for(sandbox) as client:
        found = await every_rfi(client, RfiFilters(status="issued"), report=report)
        everything = await every_rfi(client)
    assert {str(r.id) for r in found} == issued and len(found) == len(issued)
    assert report.delivered == len(issued) and report.pages >= 1
    assert {str(r.id) for r in everything} == ids_with(sandbox) and len(everything) > 100  # past the first page


async def test_walk_issued_hands_every_issued_request_page_by_page_to_each_reader() -> None:
    sandbox = Sandbox(rfis=400)  # more than one page of issued requests
    issued = ids_with(sandbox, "issued")
    first: list[list[str]] = []
    second: list[list[str]] = []

    def reader(into: list[list[str]]):  # type: ignore[no-untyped-def]
        def see(page: Sequence[Rfi]) -> None:
            into.append([str(r.id) for r in page])
        return see

    async with client_for(sandbox) as client:
        await walk_issued(client, reader(first), reader(second))
    assert first == second and len(first) >= 2 and len(issued) > 100
    assert {i for page in first for i in page} == issued and sum(map(len, first)) == len(issued)
