"""Who may have a console in a browser: each rule the web server's login checks of a name, in the test process.

`tests/test_web_team.py` proves the same refusals through the running server and a browser's page; here each
rule is asked of the catalogue directly, with the words an operator reads, so that a rule broken shows here.
"""

from __future__ import annotations

import uuid

import pytest

from stablepay_console.storage.postgres.signin_roles import (
    check_record,
    check_someone_granted,
    role_facts,
    signin_refusal,
)
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record import RecordError
from tests.postgres import TeamDb, authenticator, free_port

pytestmark = pytest.mark.postgres


def test_each_name_that_is_no_person_of_the_team_is_refused_with_the_rule_it_breaks(team_db: TeamDb) -> None:
    from psycopg import sql

    nobody, middle = f"nologin_{uuid.uuid4().hex[:8]}", f"middle_{uuid.uuid4().hex[:8]}"
    with team_db.connect() as conn:
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN IN ROLE stablepay_analyst").format(sql.Identifier(nobody)))
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(middle)))
        conn.execute(sql.SQL("GRANT bob TO {}").format(sql.Identifier(middle)))
    auth = authenticator(team_db, "alice", "carol", "stablepay_analyst", "stablepay_owner", "postgres", nobody,
                         middle, "mallory")
    url = parse(team_db.url(auth))
    where = url.where
    group = ("{} is one of the team's group roles, not a person: a console acts as someone's own login role, so "
             "that every note, claim and step is theirs.")
    assert {user: signin_refusal(url, user) for user in (
        "alice", "carol", "stablepay_analyst", "stablepay_lead", auth, "stablepay_owner", "postgres", nobody, "bob",
        "mallory", "nosuchrole")} == {
        "alice": None,
        "carol": None,
        "stablepay_analyst": group.format("stablepay_analyst"),
        "stablepay_lead": group.format("stablepay_lead"),
        auth: f"{auth} is the web server's own login; a console acts as a person, never as the server.",
        "stablepay_owner": "stablepay_owner owns the team record; a console never runs as its owner.",
        "postgres": "postgres is a superuser in the team record; a console never runs as one.",
        nobody: f"{nobody} is a role that cannot log in (NOLOGIN), not a person; a console acts as a login role.",
        "bob": f"The web server's login ({auth}) is not granted bob directly: the DBA runs GRANT bob TO {auth}.",
        "mallory": ("mallory is not a member of the team's roles (stablepay_analyst, stablepay_lead, "
                    "stablepay_watcher)."),
        "nosuchrole": f"nosuchrole has no role in the team record at {where}.",
    }


def test_what_the_catalogue_says_of_a_person_is_read_from_the_servers_login(team_db: TeamDb) -> None:
    from stablepay_console.storage.postgres.signin_roles import RoleFacts

    auth = authenticator(team_db, "alice")
    url = parse(team_db.url(auth))
    assert role_facts(url, "alice") == RoleFacts(can_login=True, superuser=False, is_authenticator=False,
                                                 owns_record=False, granted_directly=True, in_team=True,
                                                 authenticator=auth)
    assert role_facts(url, auth) == RoleFacts(can_login=True, superuser=False, is_authenticator=True,
                                              owns_record=False, granted_directly=False, in_team=True,
                                              authenticator=auth), "a member of alice's, so of the team's roles"
    owner = role_facts(url, "stablepay_owner")
    assert owner is not None and owner.owns_record and owner.can_login and not owner.superuser
    root = role_facts(url, "postgres")
    assert root is not None and root.superuser
    assert role_facts(url, "nosuchrole") is None


def test_a_record_that_cannot_be_asked_refuses_every_name_saying_why() -> None:
    url = parse(f"postgresql://web@127.0.0.1:{free_port()}/team")
    said = signin_refusal(url, "alice")
    assert said is not None and said.startswith(f"The team record at {url.where} cannot be reached: "), said
    with pytest.raises(RecordError) as unreachable:
        check_record(url)
    assert str(unreachable.value).startswith(f"The team record at {url.where} cannot be reached: ")


def test_before_it_starts_the_server_checks_the_record_is_there_and_someone_may_sign_in(
        team_db: TeamDb, bare_db: TeamDb) -> None:
    granted = parse(team_db.url(authenticator(team_db, "alice")))
    check_record(granted)
    check_someone_granted(granted)
    bare = parse(bare_db.url("mallory"))
    with pytest.raises(RecordError) as empty:
        check_record(bare)
    assert str(empty.value) == (f"The database {bare.where} holds no team record yet: its owner runs "
                                "`stablepay-console record init` once.")
    auth = authenticator(team_db, "mallory", "stablepay_analyst", "stablepay_owner", "postgres")
    with pytest.raises(RecordError) as nobody:
        check_someone_granted(parse(team_db.url(auth)))
    assert str(nobody.value) == (
        f"No one could get a console here: the web server's login ({auth}) is granted no person of the team "
        f"(stablepay_analyst, stablepay_lead, stablepay_watcher). The DBA runs GRANT alice TO {auth} for each "
        "analyst who may use the browser.")


def test_a_name_the_catalogue_cannot_be_asked_about_is_refused_shown_safe_and_short(team_db: TeamDb) -> None:
    url = parse(team_db.url(authenticator(team_db, "alice")))
    said = signin_refusal(url, "al\x00ice" + "x" * 100)
    shown = "al\\x00ice" + "x" * 70 + "…"
    assert said == (f"The team record at {url.where} could not be asked who {shown} is: PostgreSQL text fields "
                    "cannot contain NUL (0x00) bytes"), said
