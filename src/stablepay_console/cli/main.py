"""Command line: the console (default), `sandbox serve`, and headless helpers."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from stablepay_console import __version__
from stablepay_console.api.models import RFI_KINDS, RFI_STATUSES

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.wiring import Services


def printable(message: str) -> str:
    """A message safe for the terminal: control characters (escape sequences start with one) shown escaped."""
    return "".join(
        ch if ch.isprintable() or ch == "\n" else ch.encode("unicode_escape").decode("ascii") for ch in message
    )


def _q(text: str) -> str:
    """An argument quoted for a message: escaped, and cut when long."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


class _Parser(argparse.ArgumentParser):
    """argparse echoes what it could not parse: keep the user's escape sequences off the terminal."""

    def error(self, message: str) -> NoReturn:
        super().error(printable(message))


def _host(text: str) -> str:
    from stablepay_console.api.urls import is_loopback

    if not is_loopback(text):
        raise argparse.ArgumentTypeError(f"{_q(text)}: loopback addresses only (127.0.0.1, ::1, localhost)")
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_q(text)} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{_q(text)} must not be negative")
    return value


def _port(text: str) -> int:
    value = _positive(text)
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{_q(text)} is not a port (1-65535)")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_q(text)} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{_q(text)} must be between 0 and 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_q(text)} is not a number of seconds") from None
    if not 0.0 <= value <= 60.0:
        raise argparse.ArgumentTypeError(f"{_q(text)} must be between 0 and 60 seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="stablepay-console",
        description="A terminal console for a stablecoin payments integration. "
        "With no arguments it opens on the embedded sandbox.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--sandbox-rfis", type=_positive, default=240, metavar="N",
                        help="number of RFIs in the embedded sandbox (default 240)")
    parser.add_argument("--sandbox-seed", type=_positive, default=7, metavar="N",
                        help="seed of the embedded sandbox data (default 7)")
    sub = parser.add_subparsers(dest="command")

    sandbox = sub.add_parser("sandbox", help="the local API simulator")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", required=True)
    serve = sandbox_sub.add_parser("serve", help="serve the sandbox over HTTP on loopback")
    serve.add_argument("--host", type=_host, default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8787, help="port (default 8787)")
    serve.add_argument("--seed", type=_positive, default=7, help="data seed (default 7)")
    serve.add_argument("--rfis", type=_positive, default=240, help="number of RFIs (default 240)")
    serve.add_argument("--latency", type=_seconds, default=0.0, help="added latency per request, seconds")
    serve.add_argument("--error-rate", type=_rate, default=0.0, help="share of requests answered 500")
    serve.add_argument("--rate-limit-rate", type=_rate, default=0.0, help="share of requests answered 429")
    serve.add_argument("--malformed-rate", type=_rate, default=0.0, help="share of requests given a broken body")
    add_profile_commands(sub)

    export = sub.add_parser(
        "export",
        help="export every RFI matching the filters to CSV or JSON (all pages), without the console",
    )
    export.add_argument("--status", choices=RFI_STATUSES, help="only requests in this status")
    export.add_argument("--kind", choices=RFI_KINDS, help="only requests of this kind")
    export.add_argument("--user-id", type=_uuid_arg, metavar="UUID", help="only requests of this user")
    export.add_argument("--format", choices=("csv", "json"), default="csv", help="file format (default csv)")
    export.add_argument("--output", "-o", default="", metavar="PATH",
                        help="file or folder to write (default: a dated name in the current folder); "
                        "an existing file is never overwritten")
    return parser


def _uuid_arg(text: str) -> str:
    from stablepay_console.api.validation import parse_uuid

    try:
        return parse_uuid(text, "user ID")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_profile_commands(sub: argparse._SubParsersAction[_Parser]) -> None:
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
    remove = profile_sub.add_parser("remove", help="remove a profile and forget its keys")
    remove.add_argument("name")
    use = profile_sub.add_parser("use", help="make a profile the default one")
    use.add_argument("name")


def setup_logging() -> None:
    """Log to the console's log file (never a key: the client logs method, path and status only)."""
    from stablepay_console.storage import locations

    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "stablepay_console", False)]:
        root.removeHandler(old)
        old.close()
    try:
        path = locations.ensure(locations.log_file())
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.stablepay_console = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def start_profile(args: argparse.Namespace) -> tuple[Profile, Services] | None:
    """The profile to start on (STABLEPAY_PROFILE, the default one, or the built-in sandbox) and its wiring.

    None, after a plain message on stderr, when that profile has no usable key.
    """
    from stablepay_console.profiles.keys import KeyStoreError
    from stablepay_console.profiles.store import ProfileStoreError
    from stablepay_console.wiring import Services

    services = Services(sandbox_rfis=args.sandbox_rfis, sandbox_seed=args.sandbox_seed)
    book = services.book
    try:
        profile = book.start_profile()
        status = book.key_status(profile)
        if not status.usable:
            raise KeyStoreError(f"Profile {profile.name!r} has no usable key. {status.note}")
    except (ProfileStoreError, KeyStoreError) as exc:
        print(f"stablepay-console: {exc}", file=sys.stderr)
        return None
    return profile, services


def run_console(args: argparse.Namespace) -> int:
    from stablepay_console.tui.app import ConsoleApp

    setup_logging()
    started = start_profile(args)
    if started is None:
        return 2
    app = ConsoleApp(*started)
    app.run()
    return app.return_code or 0


def run_export(args: argparse.Namespace) -> int:
    import asyncio
    from datetime import datetime, timezone

    from stablepay_console.api import APIError
    from stablepay_console.api.filters import RfiFilters
    from stablepay_console.services.export import default_export_name, export_rfis, resolve_export_path

    setup_logging()
    started = start_profile(args)
    if started is None:
        return 2
    profile, services = started
    filters = RfiFilters(status=args.status, kind=args.kind, user_id=args.user_id)
    name = default_export_name(filters, args.format, datetime.now(timezone.utc))
    try:
        if args.output != printable(args.output):
            raise ValueError(f"The output path holds control characters or escape sequences: {_q(args.output)}.")
        path = resolve_export_path(args.output, args.format, name)
    except ValueError as exc:
        print(f"stablepay-console: {printable(str(exc))}", file=sys.stderr)
        return 2

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\rExported {done} of {total}", end="", file=sys.stderr, flush=True)

    async def export() -> int:
        async with services.client_for(profile) as client:
            result = await export_rfis(client, path, args.format, filters, progress)
        return result.count

    print(f"Exporting RFIs ({filters.describe()}) from profile {profile.name} ({profile.environment})…",
          file=sys.stderr)
    try:
        count = asyncio.run(export())
    except APIError as exc:
        print(f"\nstablepay-console: export failed, nothing was written. {exc.kind}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nstablepay-console: export cancelled, nothing was written.", file=sys.stderr)
        return 130
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"Exported {count} requests to {path}")
    return 0


def run_profile(args: argparse.Namespace) -> int:
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
    return serve(host=args.host, port=args.port, seed=args.seed, rfis=args.rfis, faults=faults)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "sandbox":
        return run_sandbox(args)
    if args.command == "export":
        return run_export(args)
    if args.command == "profile":
        return run_profile(args)
    return run_console(args)


if __name__ == "__main__":
    sys.exit(main())
