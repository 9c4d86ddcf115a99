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


@contextmanager
def gc_paused() -> Iterator[None]:
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
            gc.enable()
