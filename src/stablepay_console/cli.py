"""Command line: the console (default), `sandbox serve`, and headless helpers."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from stablepay_console import __version__


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _port(text: str) -> int:
    value = _positive(text)
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (1-65535)")
    return value


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.0 <= value <= 60.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 60 seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
    serve.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8787, help="port (default 8787)")
    serve.add_argument("--seed", type=_positive, default=7, help="data seed (default 7)")
    serve.add_argument("--rfis", type=_positive, default=240, help="number of RFIs (default 240)")
    serve.add_argument("--latency", type=_seconds, default=0.0, help="added latency per request, seconds")
    serve.add_argument("--error-rate", type=_rate, default=0.0, help="share of requests answered 500")
    serve.add_argument("--rate-limit-rate", type=_rate, default=0.0, help="share of requests answered 429")
    serve.add_argument("--malformed-rate", type=_rate, default=0.0, help="share of requests given a broken body")
    add_profile_commands(sub)
    return parser


def add_profile_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    from stablepay_console import locations

    try:
        path = locations.ensure(locations.log_file())
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def run_console(args: argparse.Namespace) -> int:
    from stablepay_console.connect import Connector
    from stablepay_console.profiles.book import ProfileBook
    from stablepay_console.profiles.keys import KeyStoreError
    from stablepay_console.profiles.store import ProfileStoreError
    from stablepay_console.tui.app import ConsoleApp

    setup_logging()
    connector = Connector(sandbox_rfis=args.sandbox_rfis, sandbox_seed=args.sandbox_seed)
    book = ProfileBook(embedded=connector.embedded_profiles, embedded_vault=connector.embedded_vault)
    connector.key_for = book.key_for
    try:
        profile = book.start_profile()
        status = book.key_status(profile)
        if not status.usable:
            raise KeyStoreError(f"Profile {profile.name!r} has no usable key. {status.note}")
    except (ProfileStoreError, KeyStoreError) as exc:
        print(f"stablepay-console: {exc}", file=sys.stderr)
        return 2
    app = ConsoleApp(profile, connector)
    app.run()
    return app.return_code or 0


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
    if args.command == "profile":
        return run_profile(args)
    return run_console(args)


if __name__ == "__main__":
    sys.exit(main())
