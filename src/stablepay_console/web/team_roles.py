"""With a team record, who may have a console: a role the authenticator can `SET ROLE` to, a member of one
of the team's group roles, and not a superuser. Asked over the web server's own (authenticator) login.
"""

from __future__ import annotations

from stablepay_console.storage.record import RecordError
from stablepay_console.storage.team.url import TeamUrl

TEAM_ROLES = ("stablepay_analyst", "stablepay_lead", "stablepay_watcher")

MEMBERSHIP = """
SELECT r.rolsuper,
       pg_has_role(current_user, r.oid, 'MEMBER'),
       coalesce((SELECT bool_or(pg_has_role(r.oid, g.oid, 'MEMBER'))
                   FROM pg_roles g WHERE g.rolname = ANY(%(groups)s)), false)
  FROM pg_roles r WHERE r.rolname = %(user)s
"""


def team_refusal(url: TeamUrl, user: str) -> str | None:
    """None when `user` may have a console on the team record at `url`; else why not, in words."""
    from stablepay_console.storage.team.connection import connect, reason

    try:
        conn = connect(url, autocommit=True)
    except RecordError as exc:
        return str(exc)
    try:
        row = conn.execute(MEMBERSHIP, {"user": user, "groups": list(TEAM_ROLES)}).fetchone()
    except Exception as exc:
        return f"The team record at {url.where} could not be asked who {user} is: {reason(exc)}"
    finally:
        conn.close()
    if row is None:
        return f"{user} has no role in the team record at {url.where}."
    superuser, reachable, member = (bool(v) for v in row)
    if superuser:
        return f"{user} is a superuser in the team record; a console never runs as one."
    if not member:
        return f"{user} is not a member of the team's roles ({', '.join(TEAM_ROLES)})."
    if not reachable:
        return f"The web server's login ({url.role}) may not act as {user}: the DBA must GRANT {user} TO {url.role}."
    return None
