"""Run every benchmark and print one table: `python benchmarks/run.py [--quick] [--only NAME ...]`.

Each figure is a ratio against a baseline measured in the same run where one exists. The targets
are for reading this output; nothing here is a timed assertion in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, render, write_readme

FIGURES = ("cli", "startup", "page", "served", "parse", "export", "memory", "hangup", "scale", "due")
"""`cli`: --version and --help; `startup`: the console's first frame and first rows; `page`: page switch and
responsiveness on the embedded sandbox; `served`: page switch against `sandbox serve --latency 0.2`; `hangup`: how
long the console takes to end when its terminal is closed (benchmarks/hangup.py); `scale`: requests per poll and
`rfis due` on a 100,000-request account through a counting proxy, next to a baseline commit (benchmarks/scale.py);
`due`: `rfis due` at 100,000 requests and 50 ms next to the landed code and a bare httpx paging floor
(benchmarks/due_speed.py)."""


def plan(quick: bool) -> dict[str, Callable[[], list[Row]]]:
    import cold_start
    import due_speed
    import export_speed
    import hangup
    import in_process
    import memory
    import parse
    import scale
    import served_paging

    # The smoke run (`--quick`): the smallest sizes that still take every path once: pages enough for the presses
    # after the first, one trial, one run, no warm-up pass where the figure only exists to be printed.
    rfis = 200 if quick else 50000
    presses = 2 if quick else 60
    return {
        "cli": lambda: cli_rows(runs=1 if quick else 15, warm=not quick),
        "startup": lambda: cold_start.measure(runs=1 if quick else 9),
        "page": lambda: in_process.measure(rfis, presses=presses, reloads=1 if quick else 5),
        "served": lambda: served_paging.measure(rfis, presses=presses, latency=0.2),
        "parse": lambda: parse.measure(repeat=1 if quick else 7, number=1 if quick else 200),
        "export": lambda: export_speed.measure(rfis),
        "memory": lambda: memory.measure(rfis),
        "hangup": lambda: hangup.measure(trials=1 if quick else 40),
        "scale": lambda: scale.measure(rfis=200 if quick else 100_000, runs=1 if quick else 3, baseline=not quick),
        "due": lambda: due_speed.measure(rfis=200 if quick else 100_000, runs=1 if quick else 5, landed=not quick),
    }


def cli_rows(runs: int, warm: bool = True) -> list[Row]:
    """--version, --help, a usage error and a headless command against `python -c pass` (benchmarks/cli_start.py)."""
    import cli_start

    with contextlib.redirect_stdout(sys.stderr):  # anything it prints is not this table
        return cli_start.main(runs, warm=warm)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repetitions (a smoke run, not figures)")
    parser.add_argument("--only", nargs="+", choices=FIGURES, metavar="NAME", help=f"run only these: {FIGURES}")
    parser.add_argument("--write-readme", action="store_true",
                        help="write the table into benchmarks/README.md (not with --quick: its figures mean nothing)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as config:
        os.environ["STABLEPAY_CONFIG_DIR"] = config  # never the user's own profiles or logs
        for name, run in plan(args.quick).items():
            if args.only and name not in args.only:
                continue
            print(f"running {name}…", file=sys.stderr, flush=True)
            started = time.perf_counter()
            rows.extend(run())
            print(f"  done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    if args.quick:
        print("QUICK RUN: small sizes and few repetitions; the figures are not meaningful.")
    table = render(rows)
    print(table)
    if args.write_readme and not args.quick and not args.only:
        write_readme("run", table, "python benchmarks/run.py " + " ".join(argv or sys.argv[1:]))
    elif args.write_readme:
        print("benchmarks/README.md is written by a whole run only (no --quick, no --only).", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
