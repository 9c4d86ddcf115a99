"""The benchmark entry point runs end to end and prints a row for every figure (no timings asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = (
    "stablepay-console --version",
    "stablepay-console --help",
    "console first frame (median)",
    "console first rows (median)",
    "page switch p50",
    "page switch p95",
    "responsiveness p95",
    "page switch p95, served 200 ms",
    "parse: RfiPage.model_validate_json",
    "parse: client decode() (actual path)",
    "export (iter_rfis, CSV)",
    "memory (peak RSS)",
    "memory: gzip bomb, 1 GiB inflated",
    "terminal closed: time to end, max",
    "watch --once, nothing changed",
    "watch --once, one sweep",
    "radar, per minute",
    "rfis due --within 24h, wall",
    "rfis due --within 24h, peak RSS",
    "needs action, first rows",
    "rfis due vs landed, wall",
    "rfis due vs landed, peak RSS",
    "rfis due floor: bare httpx paging",
)
MEASURED_BASELINE = {
    "stablepay-console --version": "python -c pass",
    "stablepay-console --help": "python -c pass",
    "console first frame (median)": "bare Textual app",
    "console first rows (median)": "bare Textual app",
    "export (iter_rfis, CSV)": "sequential",
}
"""Figures whose baseline is measured in the same run, and the baseline their target names."""


def test_quick_run_prints_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("figure"))
    assert header.split() == ["figure", "measured", "baseline", "ratio", "target", "met?"]
    for figure in FIGURES:
        rows = [line for line in lines if line.startswith(figure + "  ")]
        assert len(rows) == 1, f"no row for {figure!r} in:\n{done.stdout}"
        assert rows[0].rstrip().endswith(("yes", "NO", "-")), rows[0]
        cells = re.split(r"\s{2,}", rows[0].strip())
        assert len(cells) == 6, rows[0]
        if figure in MEASURED_BASELINE:
            assert re.fullmatch(r"[\d.]+ (ms|s)", cells[2]), f"{figure}: no baseline measured: {rows[0]}"
            assert MEASURED_BASELINE[figure] in cells[4], rows[0]
