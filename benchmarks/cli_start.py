"""Start-up of the shell commands: whole processes, next to a bare `python -c pass` measured in the same run.

- `stablepay-console --version` and `--help` (targets: at most 4x `python -c pass`; `--help` under 0.2 s);
- `stablepay-console rfis due` on the embedded sandbox, process start to exit (target: under 0.6 s).

Runs are interleaved so load on the machine hits every command alike; each figure is the median of
`runs`, and each ratio is taken within this one run. `main()` returns the rows (benchmarks/run.py
prints them in its table); run this file on its own to print them here:

    .venv/bin/python benchmarks/cli_start.py [RUNS]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, bench_env, median, ms, times

RATIO_TARGET = 4.0
HELP_TARGET = 0.2
DUE_TARGET = 0.6


def console_argv() -> list[str]:
    script = shutil.which("stablepay-console", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "stablepay_console"]


def wall(argv: Sequence[str], env: dict[str, str]) -> float:
    """Seconds from spawning `argv` to its exit (its output thrown away; any exit code).

    A blocking wait, killed by a timer if it hangs: `subprocess.run(timeout=...)` polls with growing
    sleeps (0.5, 1, 2, 4 … ms), which rounded every figure up to 15.5 or 63.5 ms."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    guard = threading.Timer(120, proc.kill)
    guard.start()
    try:
        proc.wait()
    finally:
        guard.cancel()
    return time.perf_counter() - start


def main(runs: int = 9, warm: bool = True) -> list[Row]:
    """`warm`: one unmeasured run of each first (a smoke run goes without: its figures mean nothing)."""
    console = console_argv()
    commands = {
        "--version": [*console, "--version"],
        "--help": [*console, "--help"],
        "usage error": [*console, "rfis", "due", "--within", "soon"],
        "rfis due (embedded sandbox)": [*console, "rfis", "due"],
    }
    bare = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        env = bench_env(STABLEPAY_CONFIG_DIR=tmp, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
        env.pop("NO_COLOR", None)
        # As installed from a wheel: bytecode cached (in a throwaway folder, not the source tree).
        # With bytecode, as an install runs (bench_env): the installed libraries' own, and the console's written
        # beside its sources by the first run. A cache of its own (PYTHONPYCACHEPREFIX) compiled every library again
        # on each program's first run: most of a smoke run's minute.
        for argv in (bare, *commands.values()) if warm else ():  # warm the file and bytecode caches
            wall(argv, env)
        baseline: list[float] = []
        taken: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            baseline.append(wall(bare, env))
            for name, argv in commands.items():
                taken[name].append(wall(argv, env))
    base = median(baseline)
    rows = []
    for name, samples in taken.items():
        measured = median(samples)
        ratio = measured / base
        if name == "rfis due (embedded sandbox)":
            target, met = f"< {DUE_TARGET} s", measured < DUE_TARGET
        elif name == "--help":
            target = f"< {HELP_TARGET} s and <= {RATIO_TARGET:g}x python -c pass"
            met = measured < HELP_TARGET and ratio <= RATIO_TARGET
        else:
            target, met = f"<= {RATIO_TARGET:g}x python -c pass", ratio <= RATIO_TARGET
        note = f"{runs} interleaved runs, whole process, median; baseline python -c pass (min {ms(min(baseline))})"
        rows.append(Row(f"stablepay-console {name}", ms(measured), ms(base), times(ratio), target, met,
                        note if name == "--version" else f"min {ms(min(samples))}"))
    return rows


if __name__ == "__main__":
    from common import render

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    print(render(main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)))
