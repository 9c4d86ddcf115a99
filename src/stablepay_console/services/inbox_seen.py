"""What the inbox has read, by request ID (UI-free): what "Go to request" opens without asking the server.

Every list of the profile's requests the inbox read (its page cache, the page shown, needs action, the queues)
holds requests as models or as kept JSON text (`services.kept`); IDs are read from the text without a model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablepay_console.services.kept import Kept

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi
    from stablepay_console.services.inbox_pager import InboxPager
    from stablepay_console.services.provenance import Provenance


def seen_ids(pager: InboxPager) -> set[str]:
    """The ID of every request of this profile on a list read."""
    found: set[str] = set()
    for rows, _ in pager.loaded():
        found.update(rows.ids() if isinstance(rows, Kept) else (rfi.id for rfi in rows))
    return found


def seen(pager: InboxPager, rfi_id: str) -> tuple[Rfi, Provenance] | None:
    """The request `rfi_id` as a list read had it, and where it was read."""
    for rows, provenance in pager.loaded():
        if isinstance(rows, Kept):
            ids = rows.ids()
            if rfi_id in ids:
                return rows[ids.index(rfi_id)], provenance
        else:
            match = next((rfi for rfi in rows if rfi.id == rfi_id), None)
            if match is not None:
                return match, provenance
    return None
