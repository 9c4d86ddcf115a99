"""Who may have a console in a browser, asked of the team record over the web server's own login.

The web server logs in as one NOINHERIT authenticator and each browser's console `SET ROLE`s to its
signed-in name, as PostgREST does. A name gets a console only if it is a person of the team:

- a LOGIN role (a group role, or any role that cannot log in, is nobody in particular);
- granted to the authenticator directly (a row in pg_auth_members, not a chain of grants: the DBA names
  each person the browser may act as);
- a member of one of the team's group roles;
- and none of the authenticator itself, the owner of the record's schema, or a superuser.

Each refusal says which rule the name broke, in words an operator can act on.
"""

from __future__ import annotations

from dataclasses import dataclass

from stablepay_console.api.sanitize import clean
from stablepay_console.storage.postgres.schema import GROUP_ROLES, SCHEMA
from stablepay_console.storage.postgres.url import TeamUrl
from stablepay_console.storage.record import RecordError

ROLE_FACTS = """
WITH me AS (SELECT oid FROM pg_roles WHERE rolname = session_user)
SELECT r.rolcanlogin,
       r.rolsuper,
       r.oid = (SELECT oid FROM me),
       r.oid = (SELECT nspowner FROM pg_namespace WHERE nspname = %(schema)s),
       EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = (SELECT oid FROM me) AND m.roleid = r.oid),
       coalesce((SELECT bool_or(pg_has_role(r.oid, g.oid, 'MEMBER'))
                   FROM pg_roles g WHERE g.rolname = ANY(%(groups)s)), false),
       session_user
  FROM pg_roles r WHERE r.rolname = %(user)s
"""


@dataclass(frozen=True)
class RoleFacts:
    """What the catalogue says of one name, seen from the authenticator's login."""

    can_login: bool
    superuser: bool
    is_authenticator: bool
    owns_record: bool
    granted_directly: bool
    in_team: bool
    authenticator: str


def role_facts(url: TeamUrl, user: str) -> RoleFacts | None:
    """The catalogue's facts about `user` (None: no such role). Raises RecordError when it cannot be asked."""
    from stablepay_console.storage.postgres.connection import connect, reason

    conn = connect(url, autocommit=True)
    try:
        row = conn.execute(ROLE_FACTS, {"user": user, "groups": list(GROUP_ROLES), "schema": SCHEMA}).fetchone()
    except Exception as exc:
        raise RecordError(f"The team record at {url.where} could not be asked who {clean(user, 80)} is: "
                          f"{reason(exc)}") from None
    finally:
        conn.close()
    if row is None:
        return None
    can_login, superuser, is_authenticator, owns_record, granted_directly, in_team, authenticator = row
    return RoleFacts(can_login=bool(can_login), superuser=bool(superuser), is_authenticator=bool(is_authenticator),
                     owns_record=bool(owns_record), granted_directly=bool(granted_directly), in_team=bool(in_team),
                     authenticator=str(authenticator))


def refusal(facts: RoleFacts | None, user: str, where: str) -> str | None:
    """None when these facts make `user` a person who may have a console; else why not, in words."""
    if facts is None:
        return f"{user} has no role in the team record at {where}."
    if user in GROUP_ROLES:
        return (f"{user} is one of the team's group roles, not a person: a console acts as someone's own login "
                "role, so that every note, claim and step is theirs.")
    if facts.is_authenticator:
        return f"{user} is the web server's own login; a console acts as a person, never as the server."
    if facts.owns_record:
        return f"{user} owns the team record; a console never runs as its owner."
    if facts.superuser:
        return f"{user} is a superuser in the team record; a console never runs as one."
    if not facts.can_login:
        return f"{user} is a role that cannot log in (NOLOGIN), not a person; a console acts as a login role."
    if not facts.in_team:
        return f"{user} is not a member of the team's roles ({', '.join(GROUP_ROLES)})."
    if not facts.granted_directly:
        return (f"The web server's login ({facts.authenticator}) is not granted {user} directly: the DBA runs "
                f"GRANT {user} TO {facts.authenticator}.")
    return None


def signin_refusal(url: TeamUrl, user: str) -> str | None:
    """None when `user` may have a console on the team record at `url`; else why not (the record being
    unreachable is a refusal too: no console starts without knowing who it acts as)."""
    try:
        facts = role_facts(url, user)
    except RecordError as exc:
        return str(exc)
    return refusal(facts, user, url.where)


def check_record(url: TeamUrl) -> None:
    """Before a web server starts: its login reaches the database, and the database holds a team record.
    (The authenticator may read nothing of the record itself: each console checks its schema as its user.)
    Raises RecordError with the words a shell command would say."""
    from stablepay_console.storage.postgres.connection import connect, reason

    conn = connect(url, autocommit=True)
    try:
        found = conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (SCHEMA,)).fetchone()
    except Exception as exc:
        raise RecordError(f"The team record at {url.where} cannot be used: {reason(exc)}") from None
    finally:
        conn.close()
    if found is None:
        raise RecordError(
            f"The database {url.where} holds no team record yet: its owner runs `stablepay-console record init` once."
        )


PEOPLE_GRANTED = """
WITH me AS (SELECT oid FROM pg_roles WHERE rolname = session_user)
SELECT r.rolname
  FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
 WHERE m.member = (SELECT oid FROM me)
   AND r.rolcanlogin AND NOT r.rolsuper AND r.oid <> (SELECT oid FROM me)
   AND r.rolname <> ALL(%(groups)s)
   AND r.oid IS DISTINCT FROM (SELECT nspowner FROM pg_namespace WHERE nspname = %(schema)s)
   AND EXISTS (SELECT 1 FROM pg_roles g WHERE g.rolname = ANY(%(groups)s) AND pg_has_role(r.oid, g.oid, 'MEMBER'))
 ORDER BY r.rolname
"""


def check_someone_granted(url: TeamUrl) -> None:
    """Before a web server starts: at least one person passes every rule above, or no sign-in could ever get a
    console. Raises RecordError saying what the DBA runs."""
    from stablepay_console.storage.postgres.connection import connect, reason

    conn = connect(url, autocommit=True)
    try:
        found = conn.execute(PEOPLE_GRANTED, {"groups": list(GROUP_ROLES), "schema": SCHEMA}).fetchall()
        login = conn.execute("SELECT session_user").fetchone()
    except Exception as exc:
        raise RecordError(f"The team record at {url.where} could not be asked who may sign in: {reason(exc)}") from None
    finally:
        conn.close()
    if not found:
        me = clean(str(login[0]) if login else "the web server's login", 63)
        raise RecordError(
            f"No one could get a console here: the web server's login ({me}) is granted no person of the team "
            f"({', '.join(GROUP_ROLES)}). The DBA runs GRANT alice TO {me} for each analyst who may use the browser."
        )
