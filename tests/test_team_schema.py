"""`record init` and the schema check, in an owner's and a DBA's words: what each is told and what each may run.

The SQL that `record init --print-sql` prints is what a DBA and an owner run by hand where the console may not: its
owner's part, run as printed, must make the same record `record init` makes. Each refusal names what to do next.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from stablepay_console.storage.postgres.schema import (
    LATEST,
    InitReport,
    RolesMissing,
    check_version,
    init_schema,
    installed_version,
    migrations,
    print_sql,
)
from stablepay_console.storage.record import RecordError, RecordTooNew
from tests.postgres import OWNER, TeamDb

pytestmark = pytest.mark.postgres


def test_the_printed_sql_is_the_dbas_part_then_the_owners_part_in_the_order_init_runs_it(bare_db: TeamDb) -> None:
    with bare_db.connect(OWNER) as conn:
        printed = print_sql(bare_db.name, lambda statement: statement.as_string(conn))
    dba, owner = printed.split("\n\n", 1)
    assert dba.splitlines() == [
        "-- 1. As the DBA (a role with CREATEROLE), once:",
        'CREATE ROLE "stablepay_analyst" NOLOGIN;',
        'CREATE ROLE "stablepay_lead" NOLOGIN IN ROLE "stablepay_analyst";',
        'CREATE ROLE "stablepay_watcher" NOLOGIN;',
    ]
    lines = owner.splitlines()
    assert lines[:4] == [
        f"-- 2. As the owner of the database {bare_db.name}: `stablepay-console record init`, which runs:",
        f'REVOKE CONNECT ON DATABASE "{bare_db.name}" FROM PUBLIC;',
        f'GRANT CONNECT ON DATABASE "{bare_db.name}" TO "stablepay_analyst", "stablepay_lead", "stablepay_watcher";',
        "BEGIN;",
    ]
    assert printed.endswith("\nCOMMIT;\n") and not printed.endswith("\n\n")
    for version, name, _ in migrations():
        assert f"\n\n-- {name}\n" in printed
        assert f"\nUPDATE stablepay.schema_version SET version = {version} WHERE single;\n" in printed
    assert printed.index("-- 0001_") < printed.index("-- 0002_") < printed.index(f"-- {migrations()[-1][1]}")

    with bare_db.connect(OWNER) as conn:  # the owner runs their part by hand, as printed: the record init makes
        conn.execute(owner.split("\n", 1)[1].encode())
        assert installed_version(conn) == LATEST
        assert check_version(conn, "here") == LATEST
        assert init_schema(conn) == InitReport(LATEST, LATEST, ()), "nothing left for record init to do"


def test_a_record_of_an_older_schema_or_none_or_a_newer_one_says_what_to_run(bare_db: TeamDb) -> None:
    with bare_db.connect(OWNER) as conn:
        with pytest.raises(RecordError) as none:
            check_version(conn, "db.example/team")
        assert str(none.value) == ("The database db.example/team holds no team record yet: its owner runs "
                                   "`stablepay-console record init` once.")
        assert init_schema(conn) == InitReport(0, LATEST, ())
        for older in (1, LATEST - 1):
            conn.execute("UPDATE stablepay.schema_version SET version = %s", (older,))
            with pytest.raises(RecordError) as behind:
                check_version(conn, "db.example/team")
            assert str(behind.value) == (
                f"The team record at db.example/team is at schema version {older}; this console needs {LATEST}. "
                "Its owner runs `stablepay-console record init` to bring it up to date.")
        conn.execute("UPDATE stablepay.schema_version SET version = %s", (LATEST + 1,))
        with pytest.raises(RecordTooNew) as newer:
            init_schema(conn)
        assert str(newer.value) == (
            f"This database has team record schema version {LATEST + 1}; this console knows up to {LATEST}. "
            "Nothing was changed: run `record init` with the newer console.")


def test_an_owner_who_is_an_analyst_is_told_to_use_a_separate_owner(bare_db: TeamDb) -> None:
    with bare_db.connect("alice") as conn, pytest.raises(RecordError) as refused:
        init_schema(conn)
    assert str(refused.value) == (
        "The role alice is a member of stablepay_analyst: the record's owner must not be one of the application's "
        "roles (an owner bypasses row security and can drop triggers). Run `record init` as a separate owner role.")


@pytest.fixture
def lead_not_analyst(pg_server) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """The cluster's lead role no longer a member of the analysts' role, as a DBA's slip could leave it."""
    with pg_server.connect() as conn:
        conn.execute("REVOKE stablepay_analyst FROM stablepay_lead")
    yield
    with pg_server.connect() as conn:
        conn.execute("GRANT stablepay_analyst TO stablepay_lead")
        conn.execute(f'ALTER ROLE "{OWNER}" CREATEROLE')


def lead_is_analyst(conn) -> bool:  # type: ignore[no-untyped-def]
    return bool(conn.execute("SELECT pg_has_role('stablepay_lead', 'stablepay_analyst', 'MEMBER')").fetchone()[0])


@pytest.mark.usefixtures("lead_not_analyst")
def test_a_lead_who_is_no_analyst_is_made_one_by_an_owner_who_may_and_named_to_one_who_may_not(
        bare_db: TeamDb, pg_server) -> None:  # type: ignore[no-untyped-def]
    with pg_server.connect() as conn:
        conn.execute(f'ALTER ROLE "{OWNER}" NOCREATEROLE')
    with bare_db.connect(OWNER) as conn:
        with pytest.raises(RolesMissing) as refused:
            init_schema(conn)
        assert str(refused.value) == (
            f"The role {OWNER} may not create roles (it lacks the CREATEROLE privilege), and the team record at "
            "this database needs the group roles stablepay_analyst, stablepay_lead, stablepay_watcher "
            "(stablepay_lead must be a member of stablepay_analyst). Nothing was changed. Ask your DBA to run the "
            "first part of `stablepay-console record init --print-sql` (the roles), then run `record init` again "
            "as the owner.")
        assert installed_version(conn) == 0 and not lead_is_analyst(conn)
    with pg_server.connect() as conn:
        conn.execute(f'ALTER ROLE "{OWNER}" CREATEROLE')
    with bare_db.connect(OWNER) as conn:
        assert init_schema(conn, "db.example/team") == InitReport(0, LATEST, ()), "no role was missing: none made"
        assert lead_is_analyst(conn) and installed_version(conn) == LATEST


def test_on_a_cluster_without_the_group_roles_init_names_them_and_an_owner_who_may_makes_them() -> None:
    """On a server of its own: the group roles are the cluster's, and none exists yet."""
    import shutil

    from tests.postgres import start_server

    server, root = start_server()
    try:
        with server.connect() as conn:
            conn.execute("CREATE ROLE plain_owner LOGIN")
            conn.execute("CREATE DATABASE team OWNER plain_owner")
        with server.connect("team", "plain_owner") as conn:
            with pytest.raises(RolesMissing) as refused:
                init_schema(conn, "db.example/team")
            assert "needs the group roles stablepay_analyst, stablepay_lead, stablepay_watcher (missing: " \
                   "stablepay_analyst, stablepay_lead, stablepay_watcher). Nothing was changed." in str(refused.value)
        with server.connect() as conn:
            conn.execute("ALTER ROLE plain_owner CREATEROLE")
        with server.connect("team", "plain_owner") as conn:
            made = init_schema(conn, "db.example/team")
            assert made == InitReport(0, LATEST, ("stablepay_analyst", "stablepay_lead", "stablepay_watcher"))
            assert lead_is_analyst(conn)
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)
