"""Command line: the console (default), `sandbox serve`, and headless helpers."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence

from stablepay_console import __version__
from stablepay_console.api.vocabulary import RFI_KINDS, RFI_STATUSES
from stablepay_console.cli import parsers
from stablepay_console.cli.arguments import Parser, positive, quoted, say, uuid_of
from stablepay_console.cli.export_flags import add_range_flags, range_of
from stablepay_console.cli.record_commands import TEAM_KEYS, add_audit_commands
from stablepay_console.cli.triage_commands import STEP_KEYS
from stablepay_console.services.gc_pause import process_ends_after_command

SWITCH_SECONDS = 0.001
"""The interpreter's switch interval while a shell command runs (`sys.setswitchinterval`; Python's is 5 ms)."""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="stablepay-console",
        description="A terminal console for a stablecoin payments integration. "
        "With no arguments it opens on the embedded sandbox.",
        epilog=parsers.EXIT_CODES + " `rfis due` and `profile status` also exit 3 and 4 (see their --help).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--sandbox-rfis", type=positive, default=240, metavar="N",
                        help="number of RFIs in the embedded sandbox (default 240)")
    parser.add_argument("--sandbox-seed", type=positive, default=7, metavar="N",
                        help="seed of the embedded sandbox data (default 7)")
    sub = parser.add_subparsers(dest="command")
    common = parsers.profile_option()
    parsers.add_sandbox_command(sub)
    parsers.add_web_command(sub)
    add_profile_commands(sub, common)
    parsers.add_headless_commands(sub, common)
    add_audit_commands(sub)
    keys = sub.add_parser("keys", help="every key binding: its id, screen, default and current keys (keymap.toml)")
    keys.add_argument("--json", action="store_true", help="print JSON")

    export = sub.add_parser(
        "export",
        parents=[common],
        help="export every RFI matching the filters to CSV or JSON (all pages), without the console",
    )
    export.add_argument("--status", choices=RFI_STATUSES, help="only requests in this status")
    export.add_argument("--kind", choices=RFI_KINDS, help="only requests of this kind")
    export.add_argument("--user-id", type=uuid_of("user ID"), metavar="UUID", help="only requests of this user")
    export.add_argument("--format", choices=("csv", "json"), default="csv", help="file format (default csv)")
    export.add_argument("--output", "-o", default="", metavar="PATH",
                        help="file or folder to write (default: a dated name in the current folder); "
                        "an existing file is never overwritten")
    add_range_flags(export)
    return parser


def add_profile_commands(sub: argparse._SubParsersAction[Parser], common: Parser) -> None:
    profile = sub.add_parser("profile", help="profiles and their keys (keys go to the OS keyring)")
    profile_sub = profile.add_subparsers(dest="profile_command", required=True)
    profile_sub.add_parser("list", help="list profiles, their keys (masked) and key ages")
    add = profile_sub.add_parser(
        "add",
        help="add a profile; the key is read from a hidden prompt, or from standard input when it is not a terminal",
        description="Add a profile. No option takes the key (command lines are visible to other users): "
        "it is typed into a hidden prompt, or read from standard input when that is not a terminal.",
    )
    add.add_argument("name", help="profile name (letters, digits, '_', '.', '-')")
    add.add_argument("--environment", required=True, choices=["sandbox", "production"])
    add.add_argument("--base-url", required=True, help="the environment's base URL (https://…)")
    add.add_argument("--default", action="store_true", help="start the console on this profile")
    add.add_argument("--no-key", action="store_true", help="keep no key (use STABLEPAY_API_KEY instead)")
    add.add_argument("--key-created", metavar="YYYY-MM-DD",
                     help="when the key was created in the dashboard (default: a JWT key's own date, else today)")
    add.add_argument("--no-verify", action="store_true",
                     help="save the key without checking it with /ping against the base URL first")
    edit = profile_sub.add_parser(
        "edit", help="change a profile's environment, base URL, key (--new-key) or the key's creation date",
        description="Change a profile. --new-key reads the new key from a hidden prompt or standard input.",
    )
    edit.add_argument("name")
    edit.add_argument("--environment", choices=["sandbox", "production"])
    edit.add_argument("--base-url", help="the environment's base URL (https://…)")
    edit.add_argument("--new-key", action="store_true", help="replace the key (read from a prompt or standard input)")
    edit.add_argument("--key-created", metavar="YYYY-MM-DD", help="when the key was created in the dashboard")
    edit.add_argument("--no-verify", action="store_true", help="save a new key without checking it with /ping")
    remove = profile_sub.add_parser("remove", help="remove a profile and forget its keys")
    remove.add_argument("name")
    use = profile_sub.add_parser("use", help="make a profile the default one")
    use.add_argument("name")
    status = profile_sub.add_parser(
        "status", parents=[common], help="every profile: environment, key age, rotation due, ping",
        epilog="exit codes: 0 every key fine; 3 a key is due for rotation; 4 a key is past 12 months or fails "
        "its ping; 1 and 2 as usual.",
    )
    parsers.add_format(status)


def run_keys(args: argparse.Namespace) -> int:
    from stablepay_console.cli.keys import run_keys as listed

    return listed(args)


def run_export(args: argparse.Namespace) -> int:
    import asyncio
    from datetime import datetime, timezone

    from stablepay_console.api import APIError
    from stablepay_console.api.error_text import error_text
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.api.sanitize import has_control
    from stablepay_console.cli.console import start_profile
    from stablepay_console.cli.session import setup_logging
    from stablepay_console.services.export.requests import (
        ExportResult,
        default_export_name,
        export_rfis,
        resolve_export_path,
    )

    setup_logging()
    started = start_profile(args)
    if started is None:
        return 2
    profile, services = started
    filters = RfiFilters(status=args.status, kind=args.kind, user_id=args.user_id)
    created_after, created_before = range_of(args)
    name = default_export_name(filters, args.format, datetime.now(timezone.utc))
    try:
        if has_control(args.output):
            raise ValueError(f"The output path holds control characters or escape sequences: {quoted(args.output)}.")
        path = resolve_export_path(args.output, args.format, name)
    except ValueError as exc:
        print(f"stablepay-console: {say(str(exc))}", file=sys.stderr)
        return 2

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\rExported {done} of {total}", end="", file=sys.stderr, flush=True)

    async def export() -> ExportResult:
        async with services.client_for(profile) as client:
            return await export_rfis(client, path, args.format, filters, progress, created_after=created_after,
                                     created_before=created_before, stop_on_sigterm=True)

    print(f"Exporting RFIs ({filters.describe()}) from profile {profile.name} ({profile.environment})…",
          file=sys.stderr)
    try:
        result = asyncio.run(export())
    except APIError as exc:
        print(f"\nstablepay-console: export failed, nothing was written. {say(error_text(exc, status=True))}",
              file=sys.stderr)
        services.audit.exported(profile, filters, path, None, f"failed: {exc.kind}")
        return 1
    except KeyboardInterrupt:
        print("\nstablepay-console: export cancelled, nothing was written.", file=sys.stderr)
        return 130
    except OSError as exc:  # NotWritten: a full, read-only or forbidden disk; no partial file is left
        print(f"\nstablepay-console: export failed, nothing was written. {say(str(exc))}", file=sys.stderr)
        services.audit.exported(profile, filters, path, None, "failed: not written")
        return 1
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(result.summary(), file=sys.stderr)
    if result.warning() is not None:
        print(f"Warning: {result.warning()}", file=sys.stderr)
    print(f"Exported {result.count} requests to {path}")
    services.audit.exported(profile, filters, path, result.count)
    return 0


def run_profile(args: argparse.Namespace) -> int:
    if args.profile_command == "status":
        from stablepay_console.cli.profile_status import run_status

        return run_status(args)
    from stablepay_console.profiles.commands import run

    return run(args)


def run_sandbox(args: argparse.Namespace) -> int:
    from stablepay_console.sandbox.faults import Faults
    from stablepay_console.sandbox.serve import serve

    faults = Faults(
        latency=args.latency,
        error_rate=args.error_rate,
        rate_limit_rate=args.rate_limit_rate,
        malformed_rate=args.malformed_rate,
    )
    return serve(host=args.host, port=args.port, seed=args.seed, rfis=args.rfis, faults=faults,
                 ping_path=args.ping_path)


HEADLESS: dict[tuple[str, str], tuple[str, str]] = {
    ("rfis", "list"): ("rfis", "run_list"),
    ("rfis", "due"): ("rfis", "run_due"),
    ("rfis", "watch"): ("watch", "run_watch"),
    ("batch", "get"): ("lookups", "run_batch"),
    ("quote", "refresh"): ("lookups", "run_quote"),
    ("metrics", "run"): ("lookups", "run_metric"),
    ("ping", ""): ("lookups", "run_ping"),
    **{key: ("record_runs", "run") for key in (("rfis", "history"), ("rfis", "note"), ("rfis", "claim"),
                                              ("rfis", "release"), ("rfis", "evidence"), ("audit", "verify"),
                                              ("audit", "log"), *TEAM_KEYS)},
    **{key: ("triage_runs", "run") for key in (*STEP_KEYS, ("record", "record.policy"))},
}
"""(command, sub-command) -> (module of stablepay_console.cli, function): imported only when run."""


def headless(args: argparse.Namespace) -> Callable[[argparse.Namespace], int] | None:
    import importlib

    action = getattr(args, f"{args.command}_command", "") or ""
    found = HEADLESS.get((args.command, action))
    if found is None:
        return None
    return getattr(importlib.import_module(f"stablepay_console.cli.{found[0]}"), found[1])  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    from stablepay_console.cli.blocking_output import block_while_running

    block_while_running()
    parser = build_parser()
    args = parser.parse_args(argv)
    parsers.check_combinations(parser, args)
    if args.command == "sandbox":
        return run_sandbox(args)
    if args.command == "web":
        from stablepay_console.cli.web import run_web

        return run_web(args)
    from stablepay_console.cli.console import run_console

    if args.command is None:
        return run_console(args)
    from stablepay_console.storage.writing import NOT_WRITTEN

    NOT_WRITTEN.listen(lambda line: print(f"stablepay-console: {say(line)}", file=sys.stderr, flush=True))
    command = {"export": run_export, "profile": run_profile, "keys": run_keys}.get(args.command) or headless(args)
    if command is None:
        return finished(run_console(args))
    # The record's thread gives up the interpreter's lock for every SQLite statement and, while the event loop
    # is busy with pages, waited the whole default 5 ms to take it back each time: its writes fell behind the
    # walk and the command waited for them at its end. 1 ms lets them keep pace.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        return finished(command(args))
    finally:
        sys.setswitchinterval(switch)


def finished(code: int) -> int:
    """A command's exit code once the record's queued writes are done: 1 when a write the disk refused
    (a full or read-only disk) was said on standard error, whatever the command itself returned 0 for."""
    from stablepay_console.storage.writing import NOT_WRITTEN

    worker = sys.modules.get("stablepay_console.storage.record_worker")
    if worker is not None:
        worker.flush_all(30.0)
    return 1 if code == 0 and NOT_WRITTEN.lines else code


READER_GONE = 141
"""The exit code when the reader of standard output went away (`| head`): 128 + SIGPIPE, as a shell reports it."""


def run() -> int:
    """The process's entry (`stablepay-console`, `python -m stablepay_console`): `main`, then its exit code.

    Whatever the command made is frozen out of the garbage collector first: the interpreter's last collection
    at exit would otherwise walk all of it (tens of ms after `rfis due` at 100,000 requests) to free it anyway."""
    # httpx's own command line (rich, click) is left out, as `stablepay_console.api` leaves it out for the
    # library; here before anything imports httpx, since a command's modules (`wiring`) import httpx before
    # that package: it was 60 ms of every command's start. A module set to None in `sys.modules` fails to
    # import, and httpx then leaves its `main` out.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    process_ends_after_command()
    try:
        code = main()
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's own flush at exit
    except BrokenPipeError:
        code = reader_gone()
    gc.freeze()
    return code


def reader_gone() -> int:
    """The reader of standard output went away (`rfis due | head`): nothing more goes there, and no traceback.
    The record's writes still finish at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # what is still buffered goes nowhere, quietly
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return READER_GONE


if __name__ == "__main__":
    sys.exit(run())
