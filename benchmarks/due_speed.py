"""`rfis due` on a 100,000-request account at 50 ms a request: this tree, the landed code and the network floor.

One `sandbox serve --rfis 100000 --latency 0.05` serves three programs, run in turns (floor, landed, this
tree, then the other way round), each a whole process timed from start to exit, with its peak RSS:

- **this tree**: `stablepay-console rfis due --within 24h`;
- **landed**: the same command from the code of `LANDED` (read with `git archive`; skipped when git or the
  commit is missing), with its own config folder and record;
- **floor**: a bare httpx loop in a fresh interpreter that reads the same issued pages with the same 9 in
  flight (`api.gate.PER_SERVER`) and `json.loads` each page: no models, no record, nothing printed.

Each program's first run is a warm-up (not counted): it fills its record with the 35,000 issued requests, as
the first run from cron does; the counted runs are the hourly ones, where most requests are unchanged.

    .venv/bin/python benchmarks/due_speed.py [RFIS] [RUNS] [COMMIT] [--write-readme]

COMMIT (default `LANDED`) is the baseline's code: the landed main to compare with.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common import Row, bench_env, secs
from scale import Tree, baseline_src
from served import served_sandbox

LANDED = "451aeac2f6d34c7027b354069840d71154f0d2b9"
"""The landed main this speed work started from."""
GOAL_S = 3.0
GOAL_MB = 120.0
PLACES = 9
"""Pages in flight, as the server's gate allows a shell command's walk (`api.gate.PER_SERVER`; 8 before fa929b0,
when a command's walk also kept a place for a person)."""

FLOOR = """
import asyncio, json, sys
import httpx

async def main(base_url, key, places):
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": "Bearer " + key}) as http:
        async def page(offset):
            r = await http.get("/v2/rfis", params={"status": "issued", "limit": 100, "offset": offset})
            return json.loads(r.content)
        first = await page(0)
        total, rows = first["pagination"]["total"], len(first["data"])
        gate = asyncio.Semaphore(places)
        async def one(offset):
            async with gate:
                return len((await page(offset))["data"])
        rows += sum(await asyncio.gather(*(one(o) for o in range(100, total, 100))))
    print(rows)

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


@dataclass
class Figures:
    walls: list[float]
    peaks: list[float]
    code: int = 0

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def peak(self) -> float:
        return statistics.median(self.peaks)


class _Url:
    """What `scale.Tree` reads of its proxy: the base URL (here the sandbox itself, nothing counted)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


def timed(argv: list[str], env: dict[str, str]) -> tuple[int, float, float]:
    """(exit code, wall seconds, peak RSS in MB) of one process, its output dropped."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, wall, usage.ru_maxrss / 1024


def due(tree: Tree) -> tuple[int, float, float]:
    return timed(tree.argv("rfis", "due", "--within", "24h"), tree.env)


def measure(rfis: int = 100_000, latency: float = 0.05, runs: int = 5, landed: bool = True,
            commit: str = LANDED) -> list[Row]:
    """`landed`: also run `commit`'s code (skipped, and said, when it cannot be read)."""
    with served_sandbox(rfis, latency) as (base_url, key), \
            tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        old_src = baseline_src(Path(tmp), commit) if landed else None
        new = Tree("this tree", Path(tmp) / "new", _Url(base_url), key)  # type: ignore[arg-type]
        old = Tree("landed", Path(tmp) / "old", _Url(base_url), key, old_src) if old_src else None  # type: ignore[arg-type]
        floor_argv = [sys.executable, "-c", FLOOR, base_url, key, str(PLACES)]
        contenders: dict[str, tuple[list[str], dict[str, str]]] = {"floor": (floor_argv, bench_env())}
        if old is not None:
            contenders["landed"] = (old.argv("rfis", "due", "--within", "24h"), old.env)
        contenders["this tree"] = (new.argv("rfis", "due", "--within", "24h"), new.env)
        found = {name: Figures([], []) for name in contenders}
        for n in range(runs + 1):  # in turns, so a busy moment of the machine falls on all of them alike;
            order = list(contenders.items())  # every other round backwards, so none always goes first
            for name, (argv, env) in order if n % 2 else reversed(order):
                code, wall, peak = timed(argv, env)
                if n:  # the first run of each is its warm-up
                    found[name].walls.append(wall)
                    found[name].peaks.append(peak)
                    found[name].code = code

    this, floor = found["this tree"], found["floor"]
    before = found.get("landed")
    where = (f"sandbox serve --rfis {rfis} --latency {latency}; median of {runs} runs each, in turns after a "
             f"warm-up each; load average {os.getloadavg()[0]:.1f} at the end on {os.cpu_count()} CPUs")
    why = "not asked for" if not landed else "no git, or no such commit"
    said = f"landed: commit {commit[:7]}" if before else f"landed code not run ({why})"
    return [
        Row("rfis due vs landed, wall", secs(this.wall), secs(before.wall) if before else "-",
            f"{this.wall / before.wall:.2f}x" if before else "-", f"<= {GOAL_S:.0f} s", this.wall <= GOAL_S,
            f"{where}; baseline column: {said}; exit code {this.code}; every run {_list(this.walls)}"
            + (f", landed {_list(before.walls)}" if before else "")),
        Row("rfis due vs landed, peak RSS", f"{this.peak:.0f} MB", f"{before.peak:.0f} MB" if before else "-",
            f"{this.peak / before.peak:.2f}x" if before else "-", f"<= {GOAL_MB:.0f} MB", this.peak <= GOAL_MB,
            f"VmHWM of the whole process; every run {_list(this.peaks, 'MB')}"),
        Row("rfis due floor: bare httpx paging", secs(floor.wall), "-", f"{this.wall / floor.wall:.2f}x", "-", None,
            f"the same issued pages, {PLACES} in flight, json.loads only, in a fresh interpreter (ratio: this tree "
            f"over the floor); peak {floor.peak:.0f} MB; every run {_list(floor.walls)}"),
    ]


def _list(values: Sequence[float], unit: str = "s") -> str:
    return " ".join(f"{v:.2f}" if unit == "s" else f"{v:.0f}" for v in values) + f" {unit}"


def main(argv: Sequence[str]) -> None:
    from common import render, write_readme

    given = [a for a in argv if a != "--write-readme"]
    rfis = int(given[0]) if given else 100_000
    runs = int(given[1]) if len(given) > 1 else 5
    commit = given[2] if len(given) > 2 else LANDED
    table = render(measure(rfis, runs=runs, commit=commit))
    print(table)
    if "--write-readme" in argv:
        write_readme("due", table, "python benchmarks/due_speed.py " + " ".join(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
