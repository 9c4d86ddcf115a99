"""What each start-time trick of `stablepay_console.cli.startup` saves: every trick on, against each one left out.

Each trick is measured on the command it is for, whole processes, in turns in one run (every trick on, then
the same with one trick left out, `startup.skip`), median of `runs`:

- `no-last-collection`: `rfis due --within 24h` against `sandbox serve --rfis N --latency 0.05`
  (a walk of every issued request, as `benchmarks/due_speed.py` runs it), spawn to exit;
- `gc-off-while-starting`: the console's first frame on a 120x40 pty (as `benchmarks/cold_start.py` times it).

    .venv/bin/python benchmarks/tricks.py [--runs N] [--rfis N] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cli_start import wall  # noqa: E402
from cold_start import FRAME_MARKERS, time_to_text  # noqa: E402
from common import Row, bench_env, ms, render, write_readme  # noqa: E402
from due_speed import _Url  # noqa: E402
from scale import Tree  # noqa: E402
from served import served_sandbox  # noqa: E402

LAUNCH = ("import sys; from stablepay_console.cli import startup; left_out = sys.argv.pop(1); "
          "left_out and startup.skip(left_out); from stablepay_console.cli.main import run; sys.exit(run())")
"""The console's own entry (`cli.main.run`), with one trick left out (none for "")."""
FOR = {
    "no-last-collection": "walk",
    "gc-off-while-starting": "frame",
}
"""Which measurement each trick is for."""


def argv(left_out: str, *args: str) -> list[str]:
    return [sys.executable, "-c", LAUNCH, left_out, *args]


def measure(runs: int = 7, rfis: int = 100_000) -> list[Row]:
    found: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp, served_sandbox(rfis, 0.05) as (url, key):
        start_env = bench_env(STABLEPAY_CONFIG_DIR=str(Path(tmp) / "start"), TERM="xterm-256color",
                              PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring", COLUMNS="120", LINES="40")
        walk = Tree("walk", Path(tmp) / "walk", _Url(url), key)  # type: ignore[arg-type]
        ways: dict[str, Callable[[str], float]] = {
            "walk": lambda left_out: wall(argv(left_out, "rfis", "due", "--within", "24h"), walk.env),
            "frame": lambda left_out: time_to_text(argv(left_out), FRAME_MARKERS, start_env),
        }
        variants = [(what, "") for what in ways] + [(what, trick) for trick, what in FOR.items()]
        for n in range(runs + 1):  # the first round warms the caches and fills the walk's record
            for what, left_out in variants if n % 2 else reversed(variants):
                taken = ways[what](left_out)
                if n:
                    found.setdefault((what, left_out), []).append(taken)
    rows = []
    said = {"walk": f"rfis due, {rfis:,} requests served at 50 ms",
            "frame": "console first frame"}
    for trick, what in FOR.items():
        on, off = statistics.median(found[(what, "")]), statistics.median(found[(what, trick)])
        rows.append(Row(f"{trick} ({said[what]})", ms(on), ms(off), f"{(off - on) * 1000:+.0f} ms saved", "-", None,
                        f"measured: every trick on; baseline: without {trick}; median of {runs} in turns; every run "
                        f"on {_list(found[(what, '')])}, without {_list(found[(what, trick)])}"))
    return rows


def _list(values: Sequence[float]) -> str:
    return " ".join(f"{v * 1000:.0f}" for v in values) + " ms"


def main(argv_: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted runs of each (default 7)")
    parser.add_argument("--rfis", type=int, default=100_000, help="requests of the walk's account (default 100,000)")
    parser.add_argument("--quick", action="store_true", help="200 requests, one run (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv_)
    runs, rfis = (1, 200) if args.quick else (args.runs, args.rfis)
    table = render(measure(runs, rfis))
    print(table)
    if args.write_readme:
        write_readme("tricks", table, "python benchmarks/tricks.py " + " ".join(argv_ or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
