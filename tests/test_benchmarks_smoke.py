"""The benchmark entry point runs end to end and prints a row for every figure (no timings asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIGURES = (
    "startup (median)",
    "page switch p50",
    "page switch p95",
    "responsiveness p95",
    "parse: RfiPage.model_validate_json",
    "parse: client decode() (actual path)",
    "export (iter_rfis, CSV)",
    "memory (peak RSS)",
)


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
