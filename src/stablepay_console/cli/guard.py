"""A command that uses the record: a record that cannot be used, or does not answer in time, is exit 1 with its
message. The command table names each command's runner itself (`cli.commands`); this only wraps it. Import-light:
`cli.commands` reaches it through the parsers of `record_team`, on the path of `--help` and `--version`."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable


def record_run(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """`run`, with a record that cannot be used or does not answer in time said in one line (exit 1)."""

    @functools.wraps(run)
    def guarded(args: argparse.Namespace) -> int:
        from stablepay_console.cli.output import fail
        from stablepay_console.cli.session import FAILED
        from stablepay_console.storage.record import RecordError

        try:
            return run(args)
        except RecordError as exc:
            fail(str(exc))
            return FAILED
        except TimeoutError:
            fail("the record did not answer in time (another program may hold it locked).")
            return FAILED

    return guarded
