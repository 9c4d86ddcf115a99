"""Assignment in the team record: a lead gives a request to an analyst (migration `0005_assignment.sql`).

The database decides everything: `stablepay.assign()` allows a member of stablepay_lead only, takes an analyst of
the team only (`stablepay.team_analysts()`), writes the claim under the analyst's name with the lead's in
`assigned_by`, logs it and writes its audit entry `triage.assign`. This only calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from stablepay_console.storage.record_types import Claim, ClaimOutcome, TeamMember

if TYPE_CHECKING:
    import psycopg


def team_analysts(conn: psycopg.Connection) -> list[TeamMember]:
    return [TeamMember(str(name), bool(lead)) for name, lead in
            conn.execute("SELECT analyst, is_lead FROM stablepay.team_analysts()").fetchall()]


def assign(conn: psycopg.Connection, server: str, profile: str, rfi_id: str, analyst: str) -> ClaimOutcome:
    row = conn.execute("SELECT claimant, at, assigned_by, previous FROM stablepay.assign(%s, %s, %s, %s)",
                       (server, profile, rfi_id, analyst)).fetchone()
    assert row is not None
    claimant, at, by, previous = row
    before = Claim(profile, rfi_id, str(previous), at) if previous else None
    return ClaimOutcome(True, Claim(profile, rfi_id, str(claimant), at, None, str(by) if by else None), before)


class PgAssignment:
    """Mixed into `PgRecord`: the `Assignments` methods."""

    scope_of: Callable[[str], str]

    def _tx(self, doing: str) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def team_analysts(self) -> list[TeamMember]:
        with self._tx("read the team's analysts") as conn:
            return team_analysts(conn)

    def assign(self, profile: str, rfi_id: str, analyst: str) -> ClaimOutcome:
        with self._tx(f"assign {rfi_id} to {analyst}") as conn:
            return assign(conn, self.scope_of(profile), profile, rfi_id, analyst)
