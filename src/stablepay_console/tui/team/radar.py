"""The deadline radar in team mode: from the team watcher while it is fresh, else the console's own poll.

Which one counts is said when it changes ("Deadline radar from the team watcher (alice), 40 s ago" /
"… polls the API on its own"), and kept in `app.radar_source` for the command palette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablepay_console.services.team.needs_action import team_reader
from stablepay_console.services.team.radar import from_team

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.services.team.needs_action import TeamRead
    from stablepay_console.tui.console import Console

OWN_POLL = "the console polls the API on its own (no team watcher swept within two of its intervals)"


async def team_radar_used(app: Console, profile: Profile | None) -> bool:
    """Set the banner's count from a fresh team watcher and say so; False: poll as without a team."""
    if profile is None or app.services.team is None:
        return False
    found = await from_team(app.services.team_record, profile, app.now())
    if app.profile is not profile:
        return True  # the profile changed meanwhile: nothing of this count belongs to the new one
    said = found.said if found is not None else OWN_POLL
    if getattr(app, "radar_source", "") != said.split(",")[0]:
        app.notify(f"Deadline {said}." if found else f"Deadline radar: {said}.", title="Team record", timeout=6,
                   markup=False)
    app.radar_source = said.split(",")[0]
    if found is None:
        return False
    from stablepay_console.tui.team.breach_count import with_breaches

    label = await with_breaches(app, profile, found.update.label)
    if app.profile is profile:
        app.radar_label = label
    return True


def needs_action_team(app: Console) -> TeamRead | None:
    """What the needs-action view asks first in team mode: a fresh team watcher's rows (None: read the API)."""
    return team_reader(app.services.team_record, app.profile)
