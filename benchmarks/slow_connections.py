"""The web server beside 1,000 slow connections: how soon `/healthz` answers from another address.

Runs the suite's own test of the limit (`tests/test_web_limits.py`: 1,000 sockets from 50 loopback addresses,
each sending its request head a byte at a time; the test checks they are all cut off and that standard error
stays small) and reads the time it prints. Goal: under 1 s.

    .venv/bin/python benchmarks/slow_connections.py [--runs N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/test_web_limits.py::test_a_thousand_slow_connections_leave_healthz_answering_and_the_error_output_small"
SAID = re.compile(r"/healthz answered in ([0-9.]+) s")
GOAL_S = 1.0


def once() -> float:
    done = subprocess.run([sys.executable, "-m", "pytest", TEST, "-s", "-q", "-n", "0", "-p", "no:randomly"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    found = SAID.search(done.stdout)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"the test failed:\n{done.stdout[-3000:]}")
    return float(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times = [once() for _ in range(args.runs)]
    median = statistics.median(times)
    print(f"/healthz beside 1,000 slow connections: median {median:.2f} s of {args.runs} "
          f"({' '.join(f'{t:.2f}' for t in times)}); goal < {GOAL_S:.0f} s: {'met' if median < GOAL_S else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
