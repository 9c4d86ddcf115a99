"""The process's start-time (and end-time) tricks, in one place: what each does, what it saves, as measured.

Each trick below has a name; `benchmarks/tricks.py` runs the command each is for with every trick, and with that
one left out (`skip`), in turns in one run, and prints the difference (its table is in benchmarks/README.md). On
the shared 2-core development machine the runs spread wider than the walk's tricks save, so each figure is quoted
with its run's spread; the first is the run in benchmarks/README.md (load 5 to 10), the second an earlier one.

- `switch-1ms`: a shell command's threads switch every 1 ms (Python's 5 ms). The record's thread gives up the
  interpreter's lock for every SQLite statement and, while the event loop was busy with pages, waited 5 ms to
  take it back each time: its writes fell behind the walk and the command waited for them at its end.
  `rfis due` at 100,000 requests: 6.06 s with it, 7.43 s without (runs 5.6-8.2 s against 4.5-9.6 s); earlier
  4.90 s against 4.86 s (4.6-5.5 s against 3.9-5.4 s): within the noise both times.
- `no-last-collection`: a whole command (`rfis due`) pauses the garbage collector and, since the process ends
  with it, freezes what it made instead of collecting it; the process freezes everything again before it ends.
  The interpreter's last collection at exit walked all of it to free it anyway (35 ms when it came in).
  `rfis due` at 100,000 requests: 6.06 s with it, 8.07 s without (5.6-8.2 s against 5.9-9.6 s); earlier
  4.90 s against 5.05 s.
- `gc-off-while-starting`: the console starts with the collector off (its passes over what the imports make
  cost 45-80 ms of the start when it came in); `tui.app.started_memory` turns it on once the inbox shows, with
  everything made until then frozen out of later passes. The console's first frame: 553 ms with it, 600 ms
  without (356-897 ms against 420-808 ms); earlier 405 ms against 533 ms.

Tricks that live in the layer they speed up, each with its comment there:

- httpx's own command line (click, rich, pygments) left out: httpx loads it whenever click is installed, and
  uvicorn installs click (about 60 ms of every command's start). `stablepay_console.api` does it on import, for
  the library too; the entry did it again because `wiring` imported httpx before the api package, which it no
  longer does: `tricks.py` then measured no difference, and the entry's copy is gone
  (`tests/test_startup.py` holds that a command loads no click, rich or pygments);

- names loaded on first use: `stablepay_console.api` and `stablepay_console.sandbox` (a module `__getattr__`),
  and `cli.commands` (a runner is imported when its command runs): `--help` and a usage error load no httpx,
  pydantic, Textual or Starlette (`tests/test_cli_terminal.py` holds this);
- pydantic models built on first use (`defer_build`, `api/wire.py`), a page's while the first page is on its
  way (`api.client._build_page_models`);
- the collector paused during a bulk read (`services/gc_pause.py`), the embedded sandbox's data frozen out of
  it (`wiring.py`), the console's full passes made rarer once it runs (`tui.app.started_memory`);
- imports inside functions, where a module sits on the path of `--help` or of the console's first frame.

No bytecode trick: an install compiles the sources (pip does), and a source checkout writes its bytecode on
its first run; the benchmarks measure with bytecode cached, as an install runs.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

SWITCH_SECONDS = 0.001
"""The interpreter's switch interval while a shell command runs (`sys.setswitchinterval`; Python's is 5 ms)."""
TRICKS = ("switch-1ms", "no-last-collection", "gc-off-while-starting")

_skipped: set[str] = set()


def skip(*names: str) -> None:
    """Leave these tricks out (`benchmarks/tricks.py` measures what each saves); an unknown name is an error."""
    unknown = set(names) - set(TRICKS)
    if unknown:
        raise ValueError(f"no such trick: {', '.join(sorted(unknown))} (tricks: {', '.join(TRICKS)})")
    _skipped.update(names)


def on(name: str) -> bool:
    return name not in _skipped


def process_starts() -> None:
    """At the process's entry."""
    if on("no-last-collection"):
        from stablepay_console.services.gc_pause import process_ends_after_command

        process_ends_after_command()


def process_ends() -> None:
    """The command is done and the process ends next: nothing it made is worth a last collection."""
    if on("no-last-collection"):
        gc.freeze()


@contextmanager
def command_running() -> Iterator[None]:
    """While a shell command (not the console, not a server) runs: its threads switch every 1 ms."""
    if not on("switch-1ms"):
        yield
        return
    switch = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        yield
    finally:
        sys.setswitchinterval(switch)


def console_starts() -> None:
    """The console is about to start: no collection until its inbox shows (`tui.app.started_memory`)."""
    if on("gc-off-while-starting"):
        gc.disable()
