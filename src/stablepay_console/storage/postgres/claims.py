"""Claims in the team record: one holder per request, lapsing where asked, released by their holder or a lead.

Row security decides who may take over or release (migration 1), the database sets who holds it and when, and
writes each claim's log row and audit entry (migration 4); an assignment names its lead (migration 5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from stablepay_console.storage.postgres.schema import LEAD
from stablepay_console.storage.postgres.url import TeamUrl
from stablepay_console.storage.record import RecordError
from stablepay_console.storage.record_types import Claim, ClaimOutcome

if TYPE_CHECKING:
    import psycopg

CLAIM_COLUMNS = "claimant, at, until, (until IS NOT NULL AND until <= now()), assigned_by"
LEAD_ONLY = f"only a member of {LEAD} may release someone else's claim"


def _claim(profile: str, rfi_id: str, row: Sequence[Any]) -> Claim:
    """A claim from a row of `CLAIM_COLUMNS`."""
    return Claim(profile, rfi_id, str(row[0]), row[1], row[2], str(row[4]) if row[4] else None)



class PgClaims:
    """Mixed into `PgRecord`: the claim methods."""

    scope_of: Callable[[str], str]
    role: str
    url: TeamUrl

    def _tx(self, doing: str) -> AbstractContextManager[psycopg.Connection]:
        raise NotImplementedError

    def _held(self, conn: psycopg.Connection, server: str, profile: str, rfi_id: str) -> tuple[Claim, bool] | None:
        row = conn.execute(
            f"SELECT {CLAIM_COLUMNS} FROM stablepay.claims WHERE server = %s AND rfi_id = %s", (server, rfi_id)
        ).fetchone()
        return (_claim(profile, rfi_id, row), bool(row[3])) if row else None

    def claim(
        self, profile: str, rfi_id: str, claimant: str, at: datetime, lapse: timedelta | None = None
    ) -> ClaimOutcome:
        """Claim for the role logged in; `lapse` makes it end by itself. Exactly one holder, however many try."""
        server = self.scope_of(profile)
        with self._tx("save the claim") as conn:
            for _ in range(5):  # another console may take or drop it between two statements
                held = self._held(conn, server, profile, rfi_id)
                if held is None:
                    row = conn.execute(
                        "INSERT INTO stablepay.claims (server, rfi_id, profile, until) "
                        "VALUES (%s, %s, %s, clock_timestamp() + %s::interval) ON CONFLICT (server, rfi_id) DO NOTHING "
                        f"RETURNING {CLAIM_COLUMNS}",
                        (server, rfi_id, profile, lapse),
                    ).fetchone()
                    if row is not None:
                        return ClaimOutcome(True, _claim(profile, rfi_id, row))
                    continue
                claim, lapsed = held
                if claim.claimant == self.role and not lapsed:
                    if lapse is not None:
                        claim = self._take(conn, server, profile, rfi_id, lapse) or claim
                    return ClaimOutcome(True, claim, held[0])
                if not lapsed:
                    return ClaimOutcome(False, claim, claim)
                taken = self._take(conn, server, profile, rfi_id, lapse)
                if taken is not None:
                    return ClaimOutcome(True, taken, claim)
        raise RecordError(f"The team record at {self.url.where} could not settle the claim on {rfi_id}; try again.")

    def _take(
        self, conn: psycopg.Connection, server: str, profile: str, rfi_id: str, lapse: timedelta | None
    ) -> Claim | None:
        """Take over a lapsed claim, or extend your own (row security allows nothing else)."""
        row = conn.execute(
            "UPDATE stablepay.claims SET profile = %s, until = clock_timestamp() + %s::interval "
            "WHERE server = %s AND rfi_id = %s AND (claimant = current_user OR until <= now()) "
            f"RETURNING {CLAIM_COLUMNS}",
            (profile, lapse, server, rfi_id),
        ).fetchone()
        return _claim(profile, rfi_id, row) if row else None

    def release(self, profile: str, rfi_id: str, claimant: str, *, force: bool = False) -> ClaimOutcome:
        """Release the role's own claim; `force` asks the database to release anyone's (a lead's right)."""
        server = self.scope_of(profile)
        with self._tx("release the claim") as conn:
            found = self._held(conn, server, profile, rfi_id)
            held = found[0] if found else None
            if held is None:
                return ClaimOutcome(False, None, None)
            mine = held.claimant == self.role
            if not mine and not force:
                return ClaimOutcome(False, held, held)
            gone = conn.execute(  # the claim read, and no other: one taken over meanwhile stays
                "DELETE FROM stablepay.claims WHERE server = %s AND rfi_id = %s AND claimant = %s AND at = %s "
                "RETURNING claimant",
                (server, rfi_id, held.claimant, held.at),
            ).fetchone()
            if gone is None:
                now = self._held(conn, server, profile, rfi_id)
                if now is not None and (now[0].claimant, now[0].at) != (held.claimant, held.at):
                    return ClaimOutcome(False, now[0], now[0], refusal=f"{now[0].claimant} took it over meanwhile")
        if gone is None:  # row security kept it: not ours, not lapsed, and we are no lead
            return ClaimOutcome(False, held, held, refusal=f"the database refused: {LEAD_ONLY}")
        return ClaimOutcome(True, None, held)

    def claim_of(self, profile: str, rfi_id: str) -> Claim | None:
        with self._tx("read the claim") as conn:
            found = self._held(conn, self.scope_of(profile), profile, rfi_id)
        return found[0] if found and not found[1] else None

    def claims(self, profile: str) -> dict[str, Claim]:
        """The claims in force on the profile's server (lapsed ones are not claims any more)."""
        with self._tx("read the claims") as conn:
            rows = conn.execute(
                "SELECT rfi_id, claimant, at, until, assigned_by FROM stablepay.claims "
                "WHERE server = %s AND (until IS NULL OR until > now())",
                (self.scope_of(profile),),
            ).fetchall()
        return {str(r): Claim(profile, str(r), str(c), a, u, str(b) if b else None) for r, c, a, u, b in rows}
