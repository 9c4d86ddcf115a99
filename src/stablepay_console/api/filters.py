"""The filters of the RFI list query (spec 4.1), as one value the screens, exports and commands share."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class RfiFilters:
    """The filters of the RFI list (spec 4.1); None means "any"."""

    status: str | None = None
    kind: str | None = None
    user_id: str | None = None

    @property
    def is_empty(self) -> bool:
        return self.status is None and self.kind is None and self.user_id is None

    def describe(self) -> str:
        """`status issued · kind any · user any`"""
        return " · ".join(
            (
                f"status {self.status or 'any'}",
                f"kind {self.kind or 'any'}",
                f"user {self.user_id or 'any'}",
            )
        )

    def slug(self) -> str:
        """A file-name-safe summary: `issued-transaction-user1a2b3c4d`, or `all`."""
        parts = [p for p in (self.status, self.kind) if p]
        if self.user_id:
            parts.append("user" + self.user_id[:8])
        text = "-".join(parts) or "all"
        return re.sub(r"[^A-Za-z0-9_-]", "_", text)


ANY = RfiFilters()
"""No filter: every request."""
