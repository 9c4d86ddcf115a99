"""One person's `rfis due` at 100,000 requests, as a user runs it: through an HTTP proxy, on a terminal.

`sandbox serve --rfis N --latency 0.05` behind `counting_proxy.py` (an HTTP proxy in a process of its own); each
tree's `stablepay-console rfis due --within 24h` goes through the proxy, with its own config folder and record,
as three programs a user runs: on a terminal (a 120x40 pty, its output read as a terminal would), into a pipe,
and `--json` into a pipe. Each is a whole process, timed from spawn to exit, with its peak RSS (VmHWM). With a
COMMIT, that commit's code (its `src` read with `git archive`) runs the same, in turns with this tree's.

Each tree's first run fills its record (the first run from cron) and is not counted.

    .venv/bin/python benchmarks/due_memory.py [--rfis N] [--runs N] [--baseline COMMIT]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Row, render, write_readme  # noqa: E402
from counting_proxy import counting_proxy  # noqa: E402
from due_speed import timed  # noqa: E402
from scale import Tree, baseline_src  # noqa: E402
from served import served_sandbox  # noqa: E402

GOAL_MB = 120.0
DUE = ("rfis", "due", "--within", "24h")


def on_terminal(argv: list[str], env: dict[str, str]) -> tuple[int, float, float]:
    """(exit code, wall seconds, peak RSS in MB) of a process writing to a 120x40 pty that is read as it comes."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env={**env, "TERM": "xterm-256color"}, stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, start_new_session=True)
    os.close(slave)

    def read() -> None:
        try:
            while os.read(master, 1 << 16):
                pass
        except OSError:  # the terminal's other side closed: the process is gone
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    reader.join(5)
    os.close(master)
    return os.waitstatus_to_exitcode(status), wall, usage.ru_maxrss / 1024


def measure(rfis: int = 100_000, runs: int = 3, baseline: str | None = None) -> list[Row]:
    shapes = {
        "terminal": lambda tree: on_terminal(tree.argv(*DUE), tree.env),
        "pipe": lambda tree: timed(tree.argv(*DUE), tree.env),
        "json": lambda tree: timed(tree.argv(*DUE, "--json"), tree.env),
    }
    with served_sandbox(rfis, 0.05) as (base_url, key), counting_proxy(base_url) as proxy, \
            tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        trees = {"this tree": Tree("this tree", Path(tmp) / "new", proxy, key)}
        old_src = baseline_src(Path(tmp), baseline) if baseline else None
        if old_src is not None:
            trees["baseline"] = Tree("baseline", Path(tmp) / "old", proxy, key, old_src)
        for tree in trees.values():  # each fills its record, as the first run from cron does
            shapes["pipe"](tree)
        found: dict[tuple[str, str], list[tuple[float, float]]] = {(t, s): [] for t in trees for s in shapes}
        for n in range(runs):  # in turns, every other round backwards
            order = [(t, s) for t in trees for s in shapes]
            for name, shape in order if n % 2 else reversed(order):
                _, wall, peak = shapes[shape](trees[name])
                found[(name, shape)].append((wall, peak))
    rows = []
    for shape in shapes:
        this, before = found[("this tree", shape)], found.get(("baseline", shape))
        peak, wall = _median(this, 1), _median(this, 0)
        old_peak = _median(before, 1) if before else None
        rows.append(Row(
            f"rfis due, one person via an HTTP proxy ({shape}), peak RSS", f"{peak:.0f} MB",
            f"{old_peak:.0f} MB" if old_peak else "-", f"{peak / old_peak:.2f}x" if old_peak else "-",
            f"<= {GOAL_MB:.0f} MB", peak <= GOAL_MB,
            f"{rfis:,} requests at 50 ms through counting_proxy.py; median of {runs} in turns after a first run "
            f"that fills the record; every run {_list(this, 1, 'MB')}"
            + (f"; baseline commit {baseline[:7]}: {_list(before, 1, 'MB')}" if before and baseline else "")))
        rows.append(Row(f"rfis due, one person via an HTTP proxy ({shape}), wall", f"{wall:.2f} s",
                        f"{_median(before, 0):.2f} s" if before else "-",
                        f"{wall / _median(before, 0):.2f}x" if before else "-", "-", None,
                        f"every run {_list(this, 0, 's')}" + (f"; baseline {_list(before, 0, 's')}" if before else "")))
    return rows


def _median(pairs: Sequence[tuple[float, float]] | None, index: int) -> float:
    return statistics.median(p[index] for p in pairs or [(0.0, 0.0)])


def _list(pairs: Sequence[tuple[float, float]] | None, index: int, unit: str) -> str:
    return " ".join(f"{p[index]:.0f}" if unit == "MB" else f"{p[index]:.2f}" for p in pairs or ()) + f" {unit}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rfis", type=int, default=100_000, help="requests on the account (default 100,000)")
    parser.add_argument("--runs", type=int, default=3, help="counted runs of each (default 3)")
    parser.add_argument("--baseline", metavar="COMMIT", help="also run this commit's code, in turns")
    parser.add_argument("--quick", action="store_true", help="200 requests, one run (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv)
    rfis, runs = (200, 1) if args.quick else (args.rfis, args.runs)
    table = render(measure(rfis, runs, args.baseline))
    print(table)
    if args.write_readme:
        write_readme("due-memory", table, "python benchmarks/due_memory.py " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
