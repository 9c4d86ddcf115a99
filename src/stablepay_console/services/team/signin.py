"""Who may have a console in a browser, with a team record: the web server asks here, never the store itself.

The rule (a LOGIN role of the team, granted directly to the web server's authenticator; never a group role, the
authenticator, the owner or a superuser) is the database's to answer: `storage/postgres/signin_roles.py` asks it."""

from __future__ import annotations

from stablepay_console.storage.postgres.signin_roles import signin_refusal
from stablepay_console.storage.postgres.url import TeamUrl


def refusal(url: TeamUrl, user: str) -> str | None:
    """None when `user` may have a console on the team record at `url`; else why not, in words."""
    return signin_refusal(url, user)
