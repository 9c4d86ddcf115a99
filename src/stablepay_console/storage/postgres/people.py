"""Who the team record's rows name: a person (a login role), or, in rows stamped before schema version 4, possibly
a group role or another role that cannot log in. Version 4 refuses such acts; older rows are kept as they were and
counted here for `record status`, never rewritten."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psycopg


def every_analyst(conn: psycopg.Connection) -> tuple[str, ...]:
    """Every person of the team (`stablepay.team_analysts()`: a login, member of stablepay_analyst, leads included),
    by name: the Team screen lists each, with zeros where they did nothing yet."""
    return tuple(str(name) for (name,) in conn.execute("SELECT analyst FROM stablepay.team_analysts()").fetchall())


def stamped_by_nobody(conn: psycopg.Connection) -> dict[str, int]:
    """How many rows of each kind name a role that cannot log in (a group role, say): acts nobody answers for.

    Counted by the database's own function (`stablepay.stamped_by_nobody`, schema 8), so every role may ask, the
    watcher too (it may not read the triage tables themselves)."""
    rows = conn.execute("SELECT kind, found FROM stablepay.stamped_by_nobody()").fetchall()
    return {str(name): int(count) for name, count in rows if count}
