"""The process's start-time (and end-time) tricks, in one place: what each does and why.

Each trick below has a name; `benchmarks/tricks.py` runs the command each is for with every trick, and with that
one left out (`skip`), in turns in one run, and prints the difference. What each saves is in benchmarks/README.md
("The start-time tricks"), not here: a trick stays only while that table shows it worth more than the noise.

- `no-last-collection`: a whole command (`rfis due`) pauses the garbage collector and, since the process ends
  with it, freezes what it made instead of collecting it; the process freezes everything again before it ends.
  The interpreter's last collection at exit would walk all of it only to free it.
- `gc-off-while-starting`: the console starts with the collector off (its passes over what the imports make
  are most of the start's garbage work); `tui.app.started_memory` turns it on once the inbox shows, with
  everything made until then frozen out of later passes.

Tricks that live in the layer they speed up, each with its comment there:

- httpx's own command line (click, rich, pygments) left out: httpx loads it whenever click is installed, and
  uvicorn installs click. `stablepay_console.api` does it on import, for the library too
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

TRICKS = ("no-last-collection", "gc-off-while-starting")

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


def console_starts() -> None:
    """The console is about to start: no collection until its inbox shows (`tui.app.started_memory`)."""
    if on("gc-off-while-starting"):
        gc.disable()
