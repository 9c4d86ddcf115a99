"""This tree beside a baseline commit, in one run: startup, paging, `rfis due` and the team views, no slower.

Each benchmark below runs in a child process whose `PYTHONPATH` puts one tree's `src` first (the baseline's is
read with `git archive`), the two trees in turns, `--rounds` rounds, every other round the other way round; a
figure is the median of its rounds. `rfis due` (`due_speed.py`) and the team's (`team_due.py`) take the
baseline themselves and run the two in turns within one serving of the account.

- `startup`: `--version`, `--help`, a usage error, `rfis due` on the embedded sandbox (`cli_start.py`), and the
  console's first frame, first rows and first server page on a pty (`cold_start.py`);
- `paging`: page switch and responsiveness on the embedded 50,000-request sandbox (`in_process.py`);
- `due`: `rfis due` at 100,000 requests and 50 ms, whole processes (`due_speed.py`);
- `team`: `rfis due` from the team watcher at 100,000 requests, end to end, text and `--json` (`team_due.py`),
  and the needs-action view from the team record (its first rows, the whole view; `team_views.py`, against the
  same database).

    .venv/bin/python benchmarks/versus.py [--baseline COMMIT] [--rounds N] [--only NAME ...] [--write-readme]

"No slower" is read with the noise of a shared machine in mind: the target is at most 1.1 times the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import ROOT, Row, render, write_readme  # noqa: E402
from scale import baseline_src  # noqa: E402

BASELINE = "09f819b"
"""The commit before the command table, the tricks module and the one `rfis due` pipeline."""
GROUPS = ("startup", "paging", "due", "team")
TARGET = 1.1
CHILD = """
import dataclasses, json, sys
sys.path.insert(0, {here!r})
import {module} as bench
rows = bench.{call}
print("ROWS " + json.dumps([dataclasses.asdict(r) for r in rows]))
"""
IN_CHILD = {
    "startup": [("cli_start", "main(15)"), ("cold_start", "measure(7)")],
    "paging": [("in_process", "measure(50000, presses=40, reloads=3)")],
}
"""What each group runs in a child process of each tree."""


def child_rows(module: str, call: str, src: Path) -> list[Row]:
    env = {**os.environ, "PYTHONPATH": str(src), "TEXTUAL_ANIMATIONS": "none"}
    done = subprocess.run([sys.executable, "-c", CHILD.format(here=str(HERE), module=module, call=call)], env=env,
                          capture_output=True, text=True, timeout=3600, cwd=ROOT)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("ROWS ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{module}.{call} failed with {src}: {done.stderr[-2000:]}")
    return [Row(**row) for row in json.loads(line.removeprefix("ROWS "))]


def value(text: str) -> float | None:
    """`44.9 ms`, `2.85 s`, `117 MB`, `642 us` as a number (times in ms); None for `-`."""
    found = re.match(r"^\+?([0-9.]+)\s*(ms|s|us|MB|requests)?", text.strip())
    if not found:
        return None
    number, unit = float(found.group(1)), found.group(2) or ""
    return number * {"s": 1000.0, "us": 0.001}.get(unit, 1.0)


def side_by_side(this: dict[str, list[str]], before: dict[str, list[str]], group: str) -> list[Row]:
    rows = []
    for figure, samples in this.items():
        numbers = [v for v in map(value, samples) if v is not None]
        old = [v for v in map(value, before.get(figure, [])) if v is not None]
        if not numbers:
            continue
        now, then = statistics.median(numbers), statistics.median(old) if old else None
        unit = _unit(samples[0])
        ratio = now / then if then else None
        rows.append(Row(figure, _shown(now, unit), _shown(then, unit) if then is not None else "-",
                        f"{ratio:.2f}x" if ratio is not None else "-", f"<= {TARGET}x baseline",
                        ratio <= TARGET if ratio is not None else None,
                        f"{group}; median of {len(numbers)} rounds; this tree {' '.join(samples)}; baseline "
                        f"{' '.join(before.get(figure, []))}"))
    return rows


def _unit(sample: str) -> str:
    found = re.search(r"(ms|s|us|MB|requests)\s*$", sample.strip())
    return found.group(1) if found else ""


def _shown(number: float, unit: str) -> str:
    if unit in ("ms", "s", "us"):
        return f"{number:.1f} ms" if number < 1000 else f"{number / 1000:.2f} s"
    return f"{number:.0f} {unit}".strip()


def in_children(group: str, src: Path, old: Path, rounds: int) -> list[Row]:
    this: dict[str, list[str]] = {}
    before: dict[str, list[str]] = {}
    for n in range(rounds):
        order = [("this", src), ("baseline", old)]
        for name, tree in order if n % 2 == 0 else reversed(order):
            for module, call in IN_CHILD[group]:
                for row in child_rows(module, call, tree):
                    (this if name == "this" else before).setdefault(row.figure, []).append(row.measured)
    return side_by_side(this, before, group)


def measure(baseline: str, rounds: int, only: Sequence[str]) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        old = baseline_src(Path(tmp), baseline)
        if old is None:
            raise SystemExit(f"the baseline commit {baseline} cannot be read (git archive)")
        for group in GROUPS:
            if only and group not in only:
                continue
            print(f"running {group}…", file=sys.stderr, flush=True)
            if group in IN_CHILD:
                rows.extend(in_children(group, ROOT / "src", old, rounds))
            elif group == "due":
                import due_speed

                rows.extend(r for r in due_speed.measure(100_000, runs=2 + 2 * rounds, commit=baseline)
                            if "floor" not in r.figure)
            else:
                import team_due

                rows.extend(team_due.measure(100_000, runs=2 + 2 * rounds, baseline=baseline, views_too=True))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, metavar="COMMIT", help=f"default {BASELINE}")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each tree in turns (default 3)")
    parser.add_argument("--only", nargs="+", choices=GROUPS, default=(), metavar="NAME", help=f"of {GROUPS}")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv)
    table = render(measure(args.baseline, args.rounds, args.only))
    print(table)
    if args.write_readme:
        write_readme("versus", table, "python benchmarks/versus.py " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

