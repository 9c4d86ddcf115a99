"""The web server with a team record on a real PostgreSQL: it logs in as one NOINHERIT authenticator, each
browser's console `SET ROLE`s to its signed-in user (notes and audit entries are theirs), and a name that
is not a member of the team's roles gets a page that says so, and no console."""

from __future__ import annotations

import html
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.postgres import TeamDb, authenticator
from tests.web_harness import Terminal, console_refusal, pump, send_keys, wait_until, web_server, ws_session

pytestmark = pytest.mark.postgres

PROXY = ("--trusted-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1")


def page_for(base: str, user: str) -> tuple[int, str]:
    request = urllib.request.Request(f"{base}/", headers={"X-Forwarded-User": user})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def write_a_note(server, user: str, text: str) -> str:  # type: ignore[no-untyped-def]
    session, ws = await ws_session(server, headers={"X-Forwarded-User": user}, columns=100, lines=60)
    terminal = Terminal(100, 60)
    try:
        def ready(t: Terminal) -> bool:  # the server's page, not the record's greyed one
            return " issued " in t.text and f" {user} " in t.text and "refreshing" not in t.text

        assert await pump(ws, terminal, ready, 60), terminal.text
        await ws.send_str('["focus", null]')  # the browser tab has the focus: the table takes the keys
        assert await pump(ws, terminal, lambda t: "n Next" in t.text, 30), terminal.text
        await send_keys(ws, "\r")  # the first request's detail
        assert await pump(ws, terminal, lambda t: "Claim and notes" in t.text, 30), terminal.text
        await send_keys(ws, "n")
        assert await pump(ws, terminal, lambda t: "^c Quit" in t.text, 30), terminal.text  # the field has the keys
        await send_keys(ws, text)
        assert await pump(ws, terminal, lambda t: f"▊  {text}" in t.text, 30), terminal.text
        await send_keys(ws, "\r")
        assert await pump(ws, terminal, lambda t: f"{user}: {text}" in t.text, 30), terminal.text
        return terminal.text
    finally:
        await ws.close()
        await session.close()


async def test_each_analysts_notes_are_under_their_own_role(isolated_config: Path, team_db: TeamDb) -> None:
    auth = authenticator(team_db, "alice", "bob", "mallory")
    env = {"STABLEPAY_RECORD_URL": team_db.url(auth)}
    with web_server(isolated_config, *PROXY, env=env) as server:
        await write_a_note(server, "alice", "bank letter asked")
        await write_a_note(server, "bob", "bank letter checked")
        assert wait_until(lambda: not server.consoles(), 15)
    with team_db.connect() as conn:
        notes = conn.execute("SELECT author, text FROM stablepay.notes ORDER BY id").fetchall()
        actors = conn.execute("SELECT DISTINCT actor FROM stablepay.audit WHERE action = 'note.add'").fetchall()
    assert notes == [("alice", "bank letter asked"), ("bob", "bank letter checked")]
    assert sorted(a for (a,) in actors) == ["alice", "bob"]


async def test_a_name_outside_the_team_gets_a_page_and_no_console(isolated_config: Path, team_db: TeamDb) -> None:
    auth = authenticator(team_db, "alice", "mallory")
    env = {"STABLEPAY_RECORD_URL": team_db.url(auth)}
    with web_server(isolated_config, *PROXY, env=env) as server:
        status, page = page_for(server.base, "mallory")  # a role, but in none of the team's roles
        assert status == 403 and "not a member of the team" in page
        status, page = page_for(server.base, f"nobody{uuid.uuid4().hex[:6]}")
        assert status == 403 and "has no role" in page
        status, page = page_for(server.base, "bob")  # a member, but the authenticator may not act as bob
        assert status == 403 and "GRANT bob TO" in page
        assert not server.consoles(), "a refused name's page started a console"
        status, page = page_for(server.base, "alice")
        assert status == 200 and 'class="textual-terminal"' in page
        for user, why in (("mallory", "not a member of the team"), ("bob", "GRANT bob TO")):
            assert why in await console_refusal(server, headers={"X-Forwarded-User": user})
        assert len(server.consoles()) <= 1, "only alice's page may have started one (for her tab)"


async def test_only_a_person_granted_directly_gets_a_console(isolated_config: Path, team_db: TeamDb) -> None:
    """Each name the authenticator may SET ROLE to but that is no one in particular, or that would act with
    more than a person's rights, gets the refusal page naming the rule it breaks; a granted analyst gets a
    console."""
    from psycopg import sql

    nobody, middle = f"nologin_{uuid.uuid4().hex[:8]}", f"middle_{uuid.uuid4().hex[:8]}"
    with team_db.connect() as conn:
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN IN ROLE stablepay_analyst").format(sql.Identifier(nobody)))
        conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(middle)))
        conn.execute(sql.SQL("GRANT bob TO {}").format(sql.Identifier(middle)))
    auth = authenticator(team_db, "alice", "stablepay_analyst", "stablepay_lead", "stablepay_watcher",
                         "stablepay_owner", "postgres", nobody, middle)
    refused = {
        "stablepay_analyst": "group roles, not a person",
        "stablepay_lead": "group roles, not a person",
        "stablepay_watcher": "group roles, not a person",
        auth: "the web server's own login",
        "stablepay_owner": "owns the team record",
        "postgres": "is a superuser",
        nobody: "cannot log in (NOLOGIN)",
        "bob": f"not granted bob directly: the DBA runs GRANT bob TO {auth}",  # only through {middle}
        "mallory": "not a member of the team's roles",
    }
    env = {"STABLEPAY_RECORD_URL": team_db.url(auth)}
    with web_server(isolated_config, *PROXY, env=env) as server:
        for user, why in refused.items():
            status, page = page_for(server.base, user)
            assert status == 403 and "No console for you here" in page, (user, status, page)
            assert html.escape(why) in page, (user, page)
            assert why in await console_refusal(server, headers={"X-Forwarded-User": user}), user
        assert not server.consoles(), "a refused name got a console"
        status, page = page_for(server.base, "alice")
        assert status == 200 and 'class="textual-terminal"' in page
        assert len(server.consoles()) <= 1, "only alice's page may have started one (for her tab)"


def test_a_database_without_a_team_record_is_refused_before_the_address(isolated_config: Path, bare_db: TeamDb) -> None:
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "stablepay_console", "web", *PROXY], capture_output=True, text=True,
                          timeout=60, check=False, env={**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config),
                                                        "STABLEPAY_RECORD_URL": bare_db.url("mallory")})
    assert done.returncode == 2 and done.stdout == "", done
    assert f"The database 127.0.0.1:{bare_db.server.port}/{bare_db.name} holds no team record yet" in done.stderr


def test_a_server_whose_login_may_act_as_no_person_is_refused_before_the_address(  # type: ignore[no-untyped-def]
    isolated_config: Path, team_db: TeamDb
) -> None:
    """The authenticator is granted only roles no console may act as (a name outside the team, a group role):
    every sign-in would be refused, so the server does not start."""
    import os
    import subprocess
    import sys

    auth = authenticator(team_db, "mallory", "stablepay_analyst")
    done = subprocess.run([sys.executable, "-m", "stablepay_console", "web", *PROXY], capture_output=True, text=True,
                          timeout=60, check=False, env={**os.environ, "STABLEPAY_CONFIG_DIR": str(isolated_config),
                                                        "STABLEPAY_RECORD_URL": team_db.url(auth)})
    assert done.returncode == 2 and done.stdout == "", done
    assert "is granted no person of the team" in done.stderr and f"GRANT alice TO {auth}" in done.stderr
