"""Find requests by their ID (UI-free): known requests again by what the list can filter on, one by its ID.

The API has no "get one request": to learn the new status of a request that left the issued list,
the watch reads its user's requests of its kind (the list's `userId` and `kind` filters), newest first,
page by page, and stops once every request looked for in that list is found, or once a page is older
than the oldest of them (the list is newest first, so they are not further down). Lists are read at
once, each a page at a time, bounded together by the server's gate.

One request by its ID (`rfis show`, the console's "Go to request"): what the record last saw of it narrows the
list (its user and kind); a request the record never saw, or no longer where the record saw it, is looked for
in the account's pages, newest first, stopping at the first match. Every page is a walk's page (`bulk`): the
server's gate, shared by every caller, bounds them. An 8-character prefix (the one the inbox shows) is resolved
only among the requests the console already knows (`resolve`), never by a guess on the server.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.api.filters import RfiFilters

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.models import Rfi
    from stablepay_console.storage.record_types import RfiHistory

PAGE = 100
MAX_PAGES = 200
"""Pages read for one list at most (20,000 requests of one user and kind)."""
ACCOUNT_PAGES = 2_000
"""Pages of the whole account read for one ID at most (200,000 requests)."""
PREFIX = 8
"""The characters of an ID the inbox shows where it has no room for all 36."""


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
        asked = RfiFilters(kind=kind, user_id=user_id)
        page = await client.list_rfis(asked, limit=PAGE, offset=page_no * PAGE, bulk=True)
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


@dataclass(frozen=True)
class Lookup:
    """One request looked for by its ID: the request as the server has it now (None: not in the account), and
    how many pages were read to know."""

    rfi: Rfi | None
    pages: int


def wanted_from(history: RfiHistory) -> Wanted | None:
    """What the record last saw of a request, as what narrows the list it is in (None: never seen)."""
    from stablepay_console.storage.record_types import parse_stamp

    wire = history.last_request()
    if wire is None:
        return None
    try:
        created = parse_stamp(str(wire["createdAt"]))
    except (KeyError, ValueError):
        return None
    kind, user = wire.get("kind"), wire.get("userId")
    return Wanted(history.rfi_id, kind if isinstance(kind, str) else None, user if isinstance(user, str) else None,
                  created)


async def find_one(client: StablePayClient, rfi_id: str, seen: Wanted | None = None) -> Lookup:
    """The request `rfi_id` (already checked: a UUID in canonical form) as the server has it now."""
    pages = 0
    if seen is not None:
        found = await find(client, [seen])
        pages = found.pages
        if found.rfis:
            return Lookup(found.rfis[0], pages)
    for page_no in range(ACCOUNT_PAGES):
        page = await client.list_rfis(limit=PAGE, offset=page_no * PAGE, bulk=True)
        pages += 1
        match = next((rfi for rfi in page.data if rfi.id == rfi_id), None)
        if match is not None:
            return Lookup(match, pages)
        if len(page.data) < PAGE:
            break
    return Lookup(None, pages)


@dataclass(frozen=True)
class Resolved:
    """What a typed ID names: a whole ID to open (`rfi_id`), or why nothing can be opened (`problem`)."""

    rfi_id: str | None = None
    problem: str = ""


def resolve(text: str, known: Iterable[str]) -> Resolved:
    """A full ID (checked as every ID is) or the 8-character prefix the inbox shows, among the `known` IDs (the
    pages seen, the record). Nothing here asks the server."""
    from stablepay_console.api.validation import parse_uuid

    typed = text.strip().lower()
    if len(typed) == PREFIX and all(ch in "0123456789abcdef" for ch in typed):
        matches = sorted({rfi_id for rfi_id in known if rfi_id.lower().startswith(typed)})
        if len(matches) == 1:
            return Resolved(matches[0])
        if not matches:
            return Resolved(problem=f"No request this console has seen starts with {typed}: paste the whole ID "
                                    "(36 characters) to look for it in the account.")
        shown = ", ".join(matches[:3]) + (f" and {len(matches) - 3} more" if len(matches) > 3 else "")
        return Resolved(problem=f"{len(matches)} requests start with {typed} ({shown}): paste the whole ID.")
    try:
        return Resolved(parse_uuid(text, "request ID"))
    except ValueError as exc:
        return Resolved(problem=f"{exc} Paste the whole ID, or the 8 characters the inbox shows.")
