"""The team record's schema in PostgreSQL: numbered SQL files, the group roles, and the version check.

The migrations are `team/migrations/NNNN_name.sql`, shipped in the package and run in order by
`record init` (the database owner), all in one transaction under an advisory lock, so two owners
running it at once migrate once. `stablepay.schema_version` says which ran. A database at a newer
version than this console knows is refused and left untouched; one at an older version is used by
nobody until its owner runs `record init` again.

The group roles are `stablepay_analyst`, `stablepay_lead` (an analyst who may also release anyone's
claim) and `stablepay_watcher` (`rfis watch`: the only role that writes what the API said). `record
init` creates the missing ones when its role has CREATEROLE; without it, it says what a DBA runs
(`record init --print-sql`, roles first). CONNECT on the database is revoked from PUBLIC and granted
to the three roles, so no other login of the server can read the record or LISTEN to it. The owner
must not be one of them: an owner bypasses row security and can drop triggers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from stablepay_console.storage.record import RecordError, RecordTooNew

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

ANALYST, LEAD, WATCHER = "stablepay_analyst", "stablepay_lead", "stablepay_watcher"
GROUP_ROLES = (ANALYST, LEAD, WATCHER)
SCHEMA = "stablepay"
MIGRATION_LOCK = 0x53504D47  # "SPMG": one `record init` at a time per database
_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every shipped migration, in order; versions run 1, 2, 3… without gaps."""
    folder = resources.files("stablepay_console.storage.postgres") / "migrations"
    found = sorted((int(m.group(1)), entry.name) for entry in folder.iterdir() if (m := _FILE.match(entry.name)))
    if [v for v, _ in found] != list(range(1, len(found) + 1)):
        raise RecordError(f"The team record's migrations are not numbered 1, 2, 3…: {[n for _, n in found]}.")
    return [(v, name, (folder / name).read_text(encoding="utf-8")) for v, name in found]


LATEST = len(migrations())


def installed_version(conn: psycopg.Connection) -> int:
    """The schema version of the database; 0 when `record init` never ran there."""
    row = conn.execute("SELECT to_regclass('stablepay.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT version FROM stablepay.schema_version WHERE single").fetchone()
    return int(found[0]) if found else 0


def check_version(conn: psycopg.Connection, where: str) -> int:
    """For every console: the schema must be exactly the one this console knows."""
    version = installed_version(conn)
    if version > LATEST:
        raise RecordTooNew(
            f"The team record at {where} has schema version {version}; this stablepay-console knows up to "
            f"{LATEST}. It was left as it is: use a newer console."
        )
    if version == 0:
        raise RecordError(
            f"The database {where} holds no team record yet: its owner runs `stablepay-console record init` once."
        )
    if version < LATEST:
        raise RecordError(
            f"The team record at {where} is at schema version {version}; this console needs {LATEST}. "
            "Its owner runs `stablepay-console record init` to bring it up to date."
        )
    return version


@dataclass(frozen=True)
class InitReport:
    before: int
    after: int
    roles_created: tuple[str, ...]


def _role_exists(conn: psycopg.Connection, role: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None


def role_sql() -> list[sql.Composed]:
    """What a DBA (a role with CREATEROLE) runs once before `record init`: the group roles, a lead an analyst."""
    from psycopg import sql

    return [
        sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(ANALYST)),
        sql.SQL("CREATE ROLE {} NOLOGIN IN ROLE {}").format(sql.Identifier(LEAD), sql.Identifier(ANALYST)),
        sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(WATCHER)),
    ]


def connect_sql(database: str) -> list[sql.Composed]:
    """Only the team's roles may connect to its database (and so LISTEN to it)."""
    from psycopg import sql

    db = sql.Identifier(database)
    roles = sql.SQL(", ").join(sql.Identifier(r) for r in GROUP_ROLES)
    return [sql.SQL("REVOKE CONNECT ON DATABASE {} FROM PUBLIC").format(db),
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, roles)]


def print_sql(database: str, as_string: Callable[[sql.Composed], str]) -> str:
    """The whole set-up as SQL, in the order it runs: the DBA's part first, then what `record init` runs."""
    lines = ["-- 1. As the DBA (a role with CREATEROLE), once:"]
    lines += [f"{as_string(statement)};" for statement in role_sql()]
    lines += ["", f"-- 2. As the owner of the database {database}: `stablepay-console record init`, which runs:"]
    lines += [f"{as_string(statement)};" for statement in connect_sql(database)]
    lines.append("BEGIN;")
    for version, name, script in migrations():
        bump = f"UPDATE stablepay.schema_version SET version = {version} WHERE single;"
        lines += ["", f"-- {name}", script.strip(), bump]
    lines.append("COMMIT;")
    return "\n".join(lines) + "\n"


class RolesMissing(RecordError):
    """The group roles are missing and this role may not create them (no CREATEROLE)."""


def _missing_roles(conn: psycopg.Connection) -> list[str]:
    return [role for role in GROUP_ROLES if not _role_exists(conn, role)]


def ensure_roles(conn: psycopg.Connection, where: str) -> tuple[str, ...]:
    """Create the group roles that are missing (NOLOGIN); a lead is a member of the analysts' role.

    Without CREATEROLE, RolesMissing says exactly what a DBA must run (nothing was changed)."""
    from psycopg import sql

    missing = _missing_roles(conn)
    row = conn.execute("SELECT rolcreaterole OR rolsuper, current_user FROM pg_roles WHERE rolname = current_user"
                       ).fetchone()
    may_create, me = (bool(row[0]), str(row[1])) if row else (False, "?")
    lead_is_analyst = not missing and bool(
        (conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", (LEAD, ANALYST)).fetchone() or [False])[0])
    if (missing or not lead_is_analyst) and not may_create:
        raise RolesMissing(
            f"The role {me} may not create roles (it lacks the CREATEROLE privilege), and the team record at "
            f"{where} needs the group roles {', '.join(GROUP_ROLES)} "
            f"({'missing: ' + ', '.join(missing) if missing else f'{LEAD} must be a member of {ANALYST}'}). Nothing "
            "was changed. Ask your DBA to run the first part of `stablepay-console record init --print-sql` (the "
            "roles), then run `record init` again as the owner."
        )
    made = []
    for statement, role in zip(role_sql(), (ANALYST, LEAD, WATCHER), strict=True):
        if role in missing:
            conn.execute(statement)
            made.append(role)
    if not lead_is_analyst and LEAD not in made:
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(ANALYST), sql.Identifier(LEAD)))
    return tuple(made)


def init_schema(conn: psycopg.Connection, where: str = "this database") -> InitReport:
    """`record init`: create or migrate the schema and the roles, in one transaction. Raises RecordError."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        before = installed_version(conn)
        if before > LATEST:
            raise RecordTooNew(
                f"This database has team record schema version {before}; this console knows up to {LATEST}. "
                "Nothing was changed: run `record init` with the newer console."
            )
        me = conn.execute("SELECT current_user").fetchone()
        member = [role for role in GROUP_ROLES if _role_exists(conn, role) and bool(
            (conn.execute("SELECT pg_has_role(current_user, %s, 'MEMBER')", (role,)).fetchone() or [False])[0])]
        if me and member:
            raise RecordError(
                f"The role {me[0]} is a member of {member[0]}: the record's owner must not be one of the "
                "application's roles (an owner bypasses row security and can drop triggers). Run `record init` "
                "as a separate owner role."
            )
        made = ensure_roles(conn, where)
        database = conn.execute("SELECT current_database()").fetchone()
        for statement in connect_sql(str(database[0]) if database else ""):
            conn.execute(statement)
        for version, _name, script in migrations():
            if version <= before:
                continue
            conn.execute(script.encode("utf-8"))
            conn.execute("UPDATE stablepay.schema_version SET version = %s WHERE single", (version,))
    return InitReport(before, LATEST, made)
