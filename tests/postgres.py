"""A real PostgreSQL for the team record's tests: one server per test process, one database per test.

The server comes from Debian's `postgresql` package (binaries in /usr/lib/postgresql/<version>/bin).
`initdb` and `pg_ctl` refuse to run as root, as CI runs: as root they run as the `postgres` OS user,
with the data and socket folders owned by it. The server listens on a free loopback port only.

Once per process the admin role `stablepay_owner` runs `record init` in a template database; each
test gets its own database cloned from it (`CREATE DATABASE ... TEMPLATE`), so xdist workers and
tests never share state. Roles are the cluster's: alice and bob are analysts, carol a lead, walt the
team watcher (`rfis watch`), mallory a login with no team role.

Under CI (CI set to anything but empty, `0` or `false`) a server that cannot start fails the tests;
elsewhere they are skipped, with the reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from tests.ci import missing

OWNER, ANALYSTS, LEAD, WATCHER = "stablepay_owner", ("alice", "bob"), "carol", "walt"
TEMPLATE = "stablepay_template"


def unavailable(reason: str) -> NoReturn:
    """Under CI a failure (CI installs postgresql); elsewhere a skip that says why."""
    missing(f"no PostgreSQL for the team record's tests: {reason}", "apt-get install postgresql")


def bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(found[-1]).parent if found else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    port: int
    data: Path
    bin: Path
    as_user: list[str]

    def url(self, role: str, database: str) -> str:
        return f"postgresql://{role}@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres", role: str = "postgres", **kwargs: object):  # type: ignore[no-untyped-def]
        import psycopg

        return psycopg.connect(self.url(role, database), autocommit=True, **kwargs)

    def ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.as_user, str(self.bin / "pg_ctl"), "-D", str(self.data), *args],
                              capture_output=True, text=True, timeout=60, check=False)

    def stop(self) -> None:
        self.ctl("stop", "-m", "fast", "-w")

    def start(self) -> None:
        done = self.ctl("start", "-w", "-t", "30", "-l", str(self.data / "server.log"))
        if done.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip() or done.stdout.strip()}")


def start_server() -> tuple[PgServer, Path]:
    binaries = bin_dir()
    if binaries is None:
        raise FileNotFoundError("no /usr/lib/postgresql/*/bin/initdb")
    root = Path(tempfile.mkdtemp(prefix="stablepay-pg-"))
    data, sockets = root / "data", root / "sockets"
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb and pg_ctl refuse root: run them as the package's postgres user
        user = pwd.getpwnam("postgres")
        for folder in (root, sockets):
            folder.mkdir(exist_ok=True)
            os.chown(folder, user.pw_uid, user.pw_gid)
        root.chmod(0o700)
        as_user = ["runuser", "-u", "postgres", "--"]
    else:
        sockets.mkdir()
    done = subprocess.run(
        [*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
         "--locale=C", "--no-sync"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed: {done.stderr.strip()[-400:]}")
    port = free_port()
    settings = (f"port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{sockets}'\n"
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n")
    conf = data / "postgresql.conf"
    with open(conf, "a", encoding="utf-8") as f:
        f.write(settings)
    server = PgServer(port, data, binaries, as_user)
    server.start()
    return server, root


def prepare(server: PgServer) -> None:
    """The roles (the cluster's) and the migrated template database, made by the owner with `record init`."""
    from psycopg import sql

    from stablepay_console.storage.postgres.schema import init_schema

    with server.connect() as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEROLE").format(sql.Identifier(OWNER)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
    with server.connect(TEMPLATE, OWNER) as conn:
        init_schema(conn)
    with server.connect() as conn:
        for role in (*ANALYSTS, LEAD, WATCHER, "mallory"):
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        for role in ANALYSTS:
            conn.execute(sql.SQL("GRANT stablepay_analyst TO {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("GRANT stablepay_lead TO {}").format(sql.Identifier(LEAD)))
        conn.execute(sql.SQL("GRANT stablepay_watcher TO {}").format(sql.Identifier(WATCHER)))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One PostgreSQL per test process, stopped and removed at the end."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("psycopg is not installed (pip install -e \".[test]\")")
    try:
        server, root = start_server()
    except (OSError, RuntimeError, subprocess.SubprocessError, KeyError) as exc:
        unavailable(str(exc))
    try:
        prepare(server)
        yield server
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class TeamDb:
    server: PgServer
    name: str

    def url(self, role: str = "alice") -> str:
        return self.server.url(role, self.name)

    def connect(self, role: str = "postgres", **kwargs: object):  # type: ignore[no-untyped-def]
        return self.server.connect(self.name, role, **kwargs)


@pytest.fixture
def team_db(pg_server: PgServer) -> Iterator[TeamDb]:
    """A database of this test's own, cloned from the migrated template."""
    from psycopg import sql

    name = f"t_{uuid.uuid4().hex[:16]}"
    from stablepay_console.storage.postgres.schema import connect_sql

    with pg_server.connect() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {} OWNER {}").format(
            sql.Identifier(name), sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
    with pg_server.connect(name, OWNER) as conn:  # a clone does not copy who may connect: as `record init` says
        for statement in connect_sql(name):
            conn.execute(statement)
    yield TeamDb(pg_server, name)
    with pg_server.connect() as conn, contextlib.suppress(Exception):
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def as_role(monkeypatch: pytest.MonkeyPatch, team_db: TeamDb):  # type: ignore[no-untyped-def]
    """Run the next commands as a database role: `as_role("bob")` (alice to begin with)."""

    def use(role: str) -> None:
        monkeypatch.setenv("STABLEPAY_RECORD_URL", team_db.url(role))

    use("alice")
    return use


@pytest.fixture
def bare_db(pg_server: PgServer) -> Iterator[TeamDb]:
    """An empty database owned by the admin role, for `record init` and the migrations themselves."""
    from psycopg import sql

    name = f"b_{uuid.uuid4().hex[:16]}"
    with pg_server.connect() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(name), sql.Identifier(OWNER)))
    yield TeamDb(pg_server, name)
    with pg_server.connect() as conn, contextlib.suppress(Exception):
        conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def wait_for(check, seconds: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())


def authenticator(team_db: TeamDb, *members: str) -> str:
    """A login with no privileges of its own (NOINHERIT) that may SET ROLE to each of `members`."""
    from psycopg import sql

    name = f"web_auth_{uuid.uuid4().hex[:10]}"
    with team_db.connect() as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOINHERIT").format(sql.Identifier(name)))
        for member in members:
            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(member), sql.Identifier(name)))
        # NOINHERIT: it has not the team roles' CONNECT either (record init revokes it from PUBLIC)
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(team_db.name),
                                                                        sql.Identifier(name)))
    return name
