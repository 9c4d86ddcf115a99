"""The banner's breach count: the open requests whose next service level is breached, beside due and overdue.

Worked out from the record (`services.triage_due.open_breaches`: the rounds last seen open, their claims
and steps, the team's policy) after each radar count, on the record's thread; a record that cannot be
read leaves the count as the radar made it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stablepay_console.services.triage.due import open_breaches
from stablepay_console.storage.record import RecordError

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.tui.console import Console


async def with_breaches(app: Console, profile: Profile, label: str) -> str:
    """`label` (`2 due < 24h · 1 overdue`) with ` · 3 breached` when service levels are breached."""
    now = app.now()
    try:
        found = await asyncio.wrap_future(app.services.record.submit_after_held(
            lambda record: open_breaches(record.triage_facts(profile.name, now), now)))
    except RecordError:
        return label
    if not found:
        return label
    return " · ".join(part for part in (label, f"{len(found)} breached") if part)
