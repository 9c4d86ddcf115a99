"""Why the record cannot be used, in the words a detail or a notification shows."""

from __future__ import annotations

from typing import Any


def record_problem(app: Any, exc: BaseException) -> str:
    """The team's message already names its database; the local file's is prefixed to say which record."""
    services = getattr(app, "services", None)
    if getattr(services, "team", None) is not None:
        return str(exc)
    return f"The local record cannot be used: {exc}"
