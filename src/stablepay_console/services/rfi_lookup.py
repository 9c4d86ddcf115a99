"""Find known requests again by what the list can filter on (UI-free).

The API has no "get one request": to learn the new status of a request that left the issued list,
the watch reads its user's requests of its kind (the list's `userId` and `kind` filters), newest first,
page by page, and stops once every request looked for in that list is found, or once a page is older
than the oldest of them (the list is newest first, so they are not further down). Lists are read at
once, each a page at a time, bounded together by the server's gate.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi

PAGE = 100
MAX_PAGES = 200
"""Pages read for one list at most (20,000 requests of one user and kind)."""


@dataclass(frozen=True)
class Wanted:
    """A request to find: its ID and what narrows the list it is in."""

    id: str
    kind: str | None
    user_id: str | None
    created_at: datetime


@dataclass
class Found:
    rfis: list[Rfi]
    missing: set[str]
    """IDs in none of the lists read: gone from the API (or never where their fields said)."""
    pages: int = 0


async def _one_list(client: StablePayClient, kind: str | None, user_id: str | None, wanted: list[Wanted],
                    found: Found) -> None:
    ids = {w.id for w in wanted}
    oldest = min(w.created_at for w in wanted)
    for page_no in range(MAX_PAGES):
        page = await client.list_rfis(None, kind, user_id, limit=PAGE, offset=page_no * PAGE, bulk=True)
        found.pages += 1
        for rfi in page.data:
            if rfi.id in ids:
                ids.discard(rfi.id)
                found.rfis.append(rfi)
        if not ids or len(page.data) < PAGE or all(rfi.created_at < oldest for rfi in page.data):
            break
    found.missing |= ids


async def find(client: StablePayClient, wanted: Iterable[Wanted]) -> Found:
    """The requests wanted as the server has them now; those not found are in `missing`."""
    lists: dict[tuple[str | None, str | None], list[Wanted]] = {}
    for w in wanted:
        lists.setdefault((w.kind, w.user_id), []).append(w)
    found = Found([], set())
    tasks = [asyncio.ensure_future(_one_list(client, kind, user, ws, found)) for (kind, user), ws in lists.items()]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:  # one list failed: the others stop too
            task.cancel()
    return found
