"""Standard output and error that wait for their reader instead of dropping what does not fit.

A parent can hand the console a non-blocking pipe or terminal (some process managers and CI runners do, and
so does a program that left the terminal that way). Python's text streams then drop whatever the pipe cannot
take at once, and say nothing: `rfis list --all --csv` into a reader that was busy for a moment came out cut
at 64 KiB, with exit code 0. Every command makes both streams blocking for its run, and gives back at exit
what it found, once what it wrote has gone (the parent may rely on it).
"""

from __future__ import annotations

import atexit
import os
import sys

STREAMS = (1, 2)
"""The file descriptors of standard output and standard error."""


def block_while_running(fds: tuple[int, ...] = STREAMS) -> list[int]:
    """Make each non-blocking `fd` blocking until the process exits; the descriptors changed."""
    changed = []
    for fd in fds:
        try:
            if os.get_blocking(fd):
                continue
            os.set_blocking(fd, True)
        except OSError:  # closed, or not something with such a flag
            continue
        changed.append(fd)
    if changed:
        atexit.register(_give_back, changed)
    return changed


def _give_back(fds: list[int]) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()  # while still blocking: nothing written is left behind
        except (OSError, ValueError):
            pass
    for fd in fds:
        try:
            os.set_blocking(fd, False)
        except OSError:
            pass
