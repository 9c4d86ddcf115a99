"""Command line: the console (default), `sandbox serve`, and headless helpers."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence

from stablepay_console import __version__
from stablepay_console.cli import parsers
from stablepay_console.cli.arguments import Parser, positive
from stablepay_console.cli.commands import add_commands, entry_of
from stablepay_console.storage import variables


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
    add_commands(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from stablepay_console.cli.blocking_output import block_while_running

    block_while_running()
    parser = build_parser()
    args = parser.parse_args(argv)
    parsers.check_combinations(parser, args)
    command = entry_of(args)
    if command is None:
        from stablepay_console.cli.console import run_console

        return run_console(args)
    run_command = command.runner()
    if command.serves:
        return run_command(args)
    from stablepay_console.cli.output import fail
    from stablepay_console.storage.writing import NOT_WRITTEN

    NOT_WRITTEN.listen(fail)  # from the record's writer thread too: one whole line each
    made = sys.modules.get("stablepay_console.storage.record_worker")
    before = made.made_so_far() if made is not None else 0  # a console's own record, in a test's process
    return finished(run_command(args), before)


def finished(code: int, since: int = 0) -> int:
    """A command's exit code once the record's queued writes are done: 1 when a write the disk refused
    (a full or read-only disk) was said on standard error, whatever the command itself returned 0 for."""
    from stablepay_console.storage.writing import NOT_WRITTEN

    worker = sys.modules.get("stablepay_console.storage.record_worker")
    left = worker.flush_all(FLUSH_SECONDS, since) if worker is not None else 0
    if left:
        from stablepay_console.cli.output import fail

        fail(f"the record was still busy after {FLUSH_SECONDS:.0f} s; {left} queued write{'s' if left != 1 else ''} "
             "(the requests received, notes or audit entries) may not be saved.")
    return 1 if code == 0 and (NOT_WRITTEN.lines or left) else code


FLUSH_SECONDS = 30.0
"""How long a command waits at its end for the record's queued writes."""


READER_GONE = 141
"""The exit code when the reader of standard output went away (`| head`): 128 + SIGPIPE, as a shell reports it."""


def run() -> int:
    """The process's entry (`stablepay-console`, `python -m stablepay_console`): `main`, then its exit code.

    The process ends with its command, so nothing it made is worth the interpreter's last garbage collection:
    a whole command's pause of the collector ends by freezing what it made (`services.gc_pause`), and so does
    the process (`no-last-collection` in benchmarks/README.md)."""
    from stablepay_console.services.gc_pause import process_ends_after_command

    process_ends_after_command()
    if os.environ.get(variables.WEB_HAND_OVER):  # started by `stablepay-console web`: whom it serves comes on stdin
        from stablepay_console.cli.spare import wait_for_hand_over

        wait_for_hand_over()
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
