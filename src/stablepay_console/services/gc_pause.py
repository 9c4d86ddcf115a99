"""The cyclic garbage collector paused while a bulk read runs (UI-free).

Reading every issued request builds tens of thousands of small objects, and a command that keeps what
is due holds thousands of them: each full pass of the collector rescans all that is held, which slowed
paging (benchmarks/README.md, `due_speed.py`). The requests hold no reference cycles (reference counting
frees them), so the collector waits until the read ends. Reads may overlap: it resumes when the last one
ends, and only if it was running before the first.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_paused = 0
_was_enabled = False
_process_ends = False


def process_ends_after_command() -> None:
    """The process ends once its command does (`cli.main.run`): a pause that says it is the whole command
    (`gc_paused(whole_command=True)`) then ends by freezing what it leaves instead of collecting it. The
    first collection after a pause walked the read's leftovers, all freed a moment later by the exit anyway
    (`no-last-collection` in benchmarks/README.md). A caller in the same process (a test) is left
    as it was: it gets its collections."""
    global _process_ends
    _process_ends = True


@contextmanager
def gc_paused(whole_command: bool = False) -> Iterator[None]:
    global _paused, _was_enabled
    if _paused == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _paused += 1
    try:
        yield
    finally:
        _paused -= 1
        if _paused == 0 and _was_enabled:
            if whole_command and _process_ends:
                gc.freeze()
            gc.enable()
