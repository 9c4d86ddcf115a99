"""`record init|status|use|import`: which record this machine uses, and the team record's setup.

Import-light: building the parser loads nothing but argparse; psycopg is loaded only by a command
that talks to the team's database. Exit codes: 0 done; 1 failed (the database cannot be reached,
refused, the record cannot be used; the message says which database and what failed); 2 bad usage.
"""

from __future__ import annotations

import argparse
from datetime import timezone
from typing import TYPE_CHECKING, Any

from stablepay_console.cli import arguments as a
from stablepay_console.cli.guard import record_run

if TYPE_CHECKING:
    from stablepay_console.services.team.scope import Team
    from stablepay_console.storage.record_types import Claim
    from stablepay_console.wiring import Services

OK, FAILED, USAGE = 0, 1, 2
EXIT_CODES = "exit codes: 0 done; 1 failed (which database, what failed); 2 bad usage."
GRANT_HINT = ("An admin gives each login its role: GRANT stablepay_analyst TO alice; (a lead: stablepay_lead; "
              "the login that runs `rfis watch`: stablepay_watcher).")


RECORD = "which record this machine uses (local file or the team's PostgreSQL)"
"""The `record` group's help."""


def add_init(sub: a.Commands, common: a.Parser) -> a.Parser:
    init = sub.add_parser(
        "init", epilog=EXIT_CODES, help="create or migrate the team record and its roles (the database owner, once)",
        description="Create or migrate the team record's schema in the database of URL (default: the one in use), "
        "the group roles stablepay_analyst, stablepay_lead and stablepay_watcher (with CREATEROLE; else a DBA "
        "runs `--print-sql`'s first part), and allow only those roles to connect. Run it as the database's owner "
        "role, which must not itself be one of them.",
    )
    init.add_argument("url", nargs="?", metavar="URL", help="postgresql://OWNER@HOST:PORT/DB (no password in it)")
    init.add_argument("--print-sql", action="store_true",
                      help="print the SQL of the whole set-up (the DBA's roles first) instead of running it")
    return init


def add_status(sub: a.Commands, common: a.Parser) -> a.Parser:
    status = sub.add_parser("status", epilog="exit codes: 0 the record can be used; 1 it cannot.",
                            help="which record is in use, who you are in it, and whether it is reachable")
    status.add_argument("--json", dest="format", action="store_const", const="json", default="text",
                        help="print JSON")
    return status


def add_use(sub: a.Commands, common: a.Parser) -> a.Parser:
    use = sub.add_parser(
        "use", epilog=EXIT_CODES, help="use the team record at URL from now on (--local: this machine's file)",
        description="Save the team record's URL for every console and command of this user. The password is "
        "never part of it: libpq reads PGPASSWORD, ~/.pgpass or a service file. STABLEPAY_RECORD_URL overrides.",
    )
    where = use.add_mutually_exclusive_group(required=True)
    where.add_argument("url", nargs="?", metavar="URL", help="postgresql://ROLE@HOST:PORT/DB[?sslmode=require]")
    where.add_argument("--local", action="store_true", help="go back to this machine's record file")
    return use


def add_import(sub: a.Commands, common: a.Parser) -> a.Parser:
    imports = sub.add_parser(
        "import", epilog=EXIT_CODES, help="copy this machine's record into the team record (once; again: no repeat)",
    )
    imports.add_argument("--json", dest="format", action="store_const", const="json", default="text",
                         help="print JSON")
    return imports


def refused_team(args: argparse.Namespace, services: Services) -> str | None:
    """What `rfis note|claim|release` refuse before writing: `--as` with the team record (the database role
    is who did it), `--for` without it (only the team record keeps claims that lapse)."""
    team = services.team
    if team is not None and getattr(args, "author", None):
        return (f"--as is refused with the team record: notes, claims and audit entries name your database role "
                f"({team.actor()}), never a typed name.")
    if getattr(args, "lapse", None) is not None and team is None:
        return ("--for needs the team record (STABLEPAY_RECORD_URL or `record use`): the local record keeps a "
                "claim until it is released.")
    return None


def until_text(claim: Claim) -> str:
    return f" until {claim.until.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC" if claim.until is not None else ""


def where_text(services: Services) -> str:
    """The record in use, for a line of output: the file's path, or the team database."""
    from stablepay_console.storage.local import record_file

    team = services.team
    return f"team record at {team.where}" if team is not None else str(record_file())


def _team_or_usage(services: Services) -> Team | None:
    from stablepay_console.cli.output import fail

    team = services.team
    if team is None:
        fail("No team record is set: set STABLEPAY_RECORD_URL or run `record use postgresql://ROLE@HOST:PORT/DB`.")
        return None
    if team.problem:
        fail(team.problem)
        return None
    return team


@record_run
def run_init(args: argparse.Namespace) -> int:
    from stablepay_console.cli.output import fail, note
    from stablepay_console.storage.postgres import url as record_url
    from stablepay_console.storage.postgres.connection import connect, need_psycopg, problem
    from stablepay_console.storage.postgres.schema import GROUP_ROLES, init_schema, print_sql
    from stablepay_console.storage.record import RecordError

    if args.url:
        try:
            url = record_url.parse(args.url)
        except record_url.RecordUrlError as exc:
            fail(str(exc))
            return USAGE
    else:
        team = _team_or_usage(_services(args))
        if team is None or team.url is None:
            return USAGE
        url = team.url
    if args.print_sql:
        print(print_sql(url.database or "DB", lambda statement: statement.as_string(None)), end="")
        return OK
    pg = need_psycopg()
    try:
        conn = connect(url, autocommit=True)
        try:
            report = init_schema(conn, url.where)
        finally:
            conn.close()
    except RecordError as exc:
        fail(str(exc))
        return FAILED
    except pg.Error as exc:
        fail(str(problem(exc, url, "set up the team record")) + " Nothing was changed. "
             "`record init --print-sql` shows the SQL it runs.")
        return FAILED
    made = f" (created: {', '.join(report.roles_created)})" if report.roles_created else ""
    if report.before == report.after:
        print(f"The team record at {url.where} is up to date: schema version {report.after}.")
    else:
        print(f"The team record at {url.where} is at schema version {report.after} (was {report.before or 'none'}).")
    note(f"Group roles: {', '.join(GROUP_ROLES)}{made}; only they may connect. {GRANT_HINT}")
    return OK


@record_run
def run_status(args: argparse.Namespace) -> int:
    from stablepay_console.cli.output import Output, fail
    from stablepay_console.storage.local import open_record, record_file
    from stablepay_console.storage.record import RecordError

    services = _services(args)
    team, out = services.team, Output(args.format)
    if team is None:
        path = record_file()
        who = services.audit.actor_for("")
        try:
            local = open_record(path)
            try:
                repairs = local.round_repairs()
            finally:
                local.close()
            fields: dict[str, Any] = {"record": "local", "path": str(path), "you": who, "reachable": True,
                                      "roundRepairs": repairs}
        except (RecordError, OSError) as exc:
            fields = {"record": "local", "path": str(path), "you": who, "reachable": False, "problem": str(exc)}
    else:
        fields = _team_status(services, team)
    if out.fmt == "json":
        out.json(fields)
    else:
        out.fields([(k, _field_text(k, v)) for k, v in fields.items() if k != "problem"])
    if not fields["reachable"]:
        fail(str(fields.get("problem", "the record cannot be used.")))
        return FAILED
    return OK


def _field_text(name: str, value: Any) -> Any:
    if name == "stampedByNobody":
        if not value:
            return "none (every row names a login)"
        counts = ", ".join(f"{kind} {count}" for kind, count in value.items())
        return f"{counts}: written before schema 4 under a role that cannot log in (kept as they were)"
    if name == "roundRepairs":
        return repairs_text(value)
    return ("yes" if value else "no") if isinstance(value, bool) else value  # words: "lead: no", "reachable: yes"


def repairs_text(repairs: dict[str, int]) -> str:
    """`record status`'s words for the steps an update found kept with no round."""
    if not repairs:
        return "none (every step kept its round)"
    given, unknown = repairs.get("given", 0), repairs.get("unknown", 0)
    said = f"{given} step{'' if given == 1 else 's'} kept with no round given the round of their audit entry's time"
    if unknown:
        said += f"; {unknown} left without one (no round seen issued before them)"
    return said + " (audit entries unchanged)"


def _team_status(services: Services, team: Team) -> dict[str, Any]:
    from stablepay_console.services.team.scope import scope_for
    from stablepay_console.storage.record import RecordError

    fields: dict[str, Any] = {"record": "team", "from": team.source}
    if team.url is not None:
        fields.update(host=",".join(team.url.hosts) or "local socket", port=team.url.port or "default",
                      database=team.url.database or "(default)", tls=team.url.sslmode or "libpq default")
    fields["you"] = team.actor()
    if team.problem or team.url is None:
        return {**fields, "reachable": False, "problem": team.problem}
    from stablepay_console.storage.postgres.people import stamped_by_nobody
    from stablepay_console.storage.postgres.store import PgRecord

    record = PgRecord(team.url, scope_for(services.book.find))
    try:
        role, lead = record.whoami()
        fields.update(you=role, lead=lead, watcher=record.watcher, schemaVersion=record.version, reachable=True,
                      store=f"PostgreSQL {record.server_version} at {team.url.where}, schema {record.version}")
        fields["stampedByNobody"] = record.run("count the rows stamped with a group role", stamped_by_nobody)
        fields["roundRepairs"] = record.round_repairs()
    except RecordError as exc:
        fields.update(reachable=False, problem=str(exc))
    finally:
        record.close()
    return fields


@record_run
def run_use(args: argparse.Namespace) -> int:
    from stablepay_console.cli.output import fail, note
    from stablepay_console.storage.postgres import url as record_url

    if args.local:
        dropped = record_url.forget()
        print("This machine's record file is used from now on." if dropped else "The record file was already used.")
    else:
        try:
            url = record_url.save(args.url)
        except record_url.RecordUrlError as exc:
            fail(str(exc))
            return USAGE
        print(f"The team record at {url.where} is used from now on (as role {url.role}).")
        note("Check it with `stablepay-console record status`.")
    import os

    if os.environ.get(record_url.URL_VARIABLE):
        note(f"{record_url.URL_VARIABLE} is set in this environment and wins over the saved choice.")
    return OK


@record_run
def run_import(args: argparse.Namespace) -> int:
    from stablepay_console.cli.output import Output, note
    from stablepay_console.services.team.importing import IMPORT_SECONDS, import_local
    from stablepay_console.services.team.scope import scope_for
    from stablepay_console.storage.local import record_file
    from stablepay_console.storage.postgres.store import PgRecord

    services = _services(args)
    team = _team_or_usage(services)
    if team is None or team.url is None:
        return USAGE
    record = PgRecord(team.url, scope_for(services.book.find))
    try:
        with record.transaction(IMPORT_SECONDS):  # the rows and their audit entry, or nothing
            done = import_local(record, record_file())
            if done.report.copied:
                counts: dict[str, Any] = done.report.to_json()
                record.append_audit(services.audit.draft("record.import", None, target=done.source,
                                                         outcome="imported", **counts))
    finally:
        record.close()
    out = Output(args.format)
    if out.fmt == "json":
        out.json({"source": done.source, **done.report.to_json()})
    else:
        out.fields(list(done.report.to_json().items()), title=f"Imported from {done.source}")
    if not done.report.copied:
        note("Nothing new to import: everything in the local record is already in the team record.")
    return OK


def _services(args: argparse.Namespace) -> Services:
    from stablepay_console.cli.session import services_for

    return services_for(args)


