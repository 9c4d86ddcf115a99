"""The team record's schema in PostgreSQL: numbered SQL files, the group roles, and the version check.

The migrations are `migrations/pg/NNNN_name.sql`, shipped in the package and run in order by
`record init` (the database owner), all in one transaction under an advisory lock, so two owners
running it at once migrate once. `stablepay.schema_version` says which ran. A database at a newer
version than this console knows is refused and left untouched; one at an older version is used by
nobody until its owner runs `record init` again.

The group roles `stablepay_analyst` and `stablepay_lead` (a lead is an analyst too) are created when
missing; the files grant them what they may do. The owner must not be an analyst: an owner bypasses
row security and can drop triggers, so the application roles never own the tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from stablepay_console.storage.record import RecordError, RecordTooNew

if TYPE_CHECKING:
    import psycopg

ANALYST, LEAD = "stablepay_analyst", "stablepay_lead"
SCHEMA = "stablepay"
MIGRATION_LOCK = 0x53504D47  # "SPMG": one `record init` at a time per database
_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """(version, file name, SQL) of every shipped migration, in order; versions run 1, 2, 3… without gaps."""
    folder = resources.files("stablepay_console.storage") / "migrations" / "pg"
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


def ensure_roles(conn: psycopg.Connection) -> tuple[str, ...]:
    """Create the group roles that are missing (NOLOGIN); a lead is a member of the analysts' role."""
    from psycopg import sql

    made = []
    for role in (ANALYST, LEAD):
        if not _role_exists(conn, role):
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
            made.append(role)
    member = conn.execute(
        "SELECT pg_has_role(%s, %s, 'MEMBER')", (LEAD, ANALYST)
    ).fetchone()
    if not (member and member[0]):
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(ANALYST), sql.Identifier(LEAD)))
    return tuple(made)


def init_schema(conn: psycopg.Connection) -> InitReport:
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
        member = _role_exists(conn, ANALYST) and conn.execute(
            "SELECT pg_has_role(current_user, %s, 'MEMBER')", (ANALYST,)).fetchone()
        if me and member and member[0]:
            raise RecordError(
                f"The role {me[0]} is a member of {ANALYST}: the record's owner must not be one of the "
                "application's roles (an owner bypasses row security and can drop triggers). Run `record init` "
                "as a separate owner role."
            )
        made = ensure_roles(conn)
        for version, _name, script in migrations():
            if version <= before:
                continue
            conn.execute(script.encode("utf-8"))
            conn.execute("UPDATE stablepay.schema_version SET version = %s WHERE single", (version,))
    return InitReport(before, LATEST, made)
