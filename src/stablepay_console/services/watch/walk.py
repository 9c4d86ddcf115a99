"""The plain walk of the account: every request page by page, as the API pages it (UI-free).

`walk_issued` hands on every issued request a page at a time (`rfis due` asked live, the service levels counted in
the same walk); `every_rfi` is every request matching the filters, newest first (`rfis list --all`, the export).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

from stablepay_console.api.filters import RfiFilters
from stablepay_console.services.gc_pause import gc_paused
from stablepay_console.services.watch.events import ISSUED

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi
    from stablepay_console.api.paging import PagingReport


async def walk_issued(client: StablePayClient, *each_page: Callable[[Sequence[Rfi]], object]) -> None:
    """Every issued request, page by page: each of `each_page` sees each page as it passes (what is due, and the
    service levels' breaches counted in the same walk)."""
    pages = client.iter_rfi_pages(RfiFilters(status=ISSUED))
    with gc_paused():
        async with aclosing(pages):  # pages still in flight are cancelled on an error
            async for rfis in pages:
                for see in each_page:
                    see(rfis)


async def every_rfi(
    client: StablePayClient, filters: RfiFilters | None = None, report: PagingReport | None = None
) -> list[Rfi]:
    """Every request matching `filters`, all pages, newest first: the same paging as the export
    (`report` says what the paging met)."""
    rfis = client.iter_rfis(filters or RfiFilters(), report=report)
    with gc_paused():
        async with aclosing(rfis):  # pages still in flight are cancelled on an error
            return [rfi async for rfi in rfis]
