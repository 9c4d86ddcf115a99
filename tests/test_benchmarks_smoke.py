"""The benchmark entry point runs end to end and prints a row for every figure (no timings asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.bench

ROOT = Path(__file__).resolve().parent.parent
FIGURES = {
    "cli": ("stablepay-console --version", "stablepay-console --help"),
    "startup": ("console first frame (median)", "console first rows (median)"),
    "page": ("page switch p50", "page switch p95", "responsiveness p95"),
    "served": ("page switch p95, served 200 ms",),
    "parse": ("parse: RfiPage.model_validate_json", "parse: client decode() (actual path)"),
    "export": ("export (iter_rfis, CSV)",),
    "memory": ("memory (peak RSS)", "memory: gzip bomb, 1 GiB inflated"),
    "hangup": ("terminal closed: time to end, max",),
    "scale": ("watch --once, nothing changed", "watch --once, one sweep", "radar, per minute",
              "rfis due --within 24h, wall", "rfis due --within 24h, peak RSS", "needs action, first rows"),
    "due": ("rfis due vs landed, wall", "rfis due vs landed, peak RSS", "rfis due floor: bare httpx paging"),
}
"""The rows each of `run.py`'s benchmarks prints (`--only NAME`)."""
MEASURED_BASELINE = {
    "stablepay-console --version": "python -c pass",
    "stablepay-console --help": "python -c pass",
    "console first frame (median)": "bare Textual app",
    "console first rows (median)": "bare Textual app",
    "export (iter_rfis, CSV)": "sequential",
}
"""Figures whose baseline is measured in the same run, and the baseline their target names."""


def test_every_benchmark_of_the_run_is_smoke_tested() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import run
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert tuple(FIGURES) == run.FIGURES


@pytest.mark.parametrize("name", list(FIGURES))
def test_quick_run_prints_every_figure(name: str) -> None:
    """One benchmark of `run.py --quick` each (they run side by side, none the whole run's minutes alone)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--only", name],
        capture_output=True,
        text=True,
        timeout=280,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if line.startswith("figure"))
    assert header.split() == ["figure", "measured", "baseline", "ratio", "target", "met?"]
    for figure in FIGURES[name]:
        rows = [line for line in lines if line.startswith(figure + "  ")]
        assert len(rows) == 1, f"no row for {figure!r} in:\n{done.stdout}"
        assert rows[0].rstrip().endswith(("yes", "NO", "-")), rows[0]
        cells = re.split(r"\s{2,}", rows[0].strip())
        assert len(cells) == 6, rows[0]
        if figure in MEASURED_BASELINE:
            assert re.fullmatch(r"[\d.]+ (ms|s)", cells[2]), f"{figure}: no baseline measured: {rows[0]}"
            assert MEASURED_BASELINE[figure] in cells[4], rows[0]


def _quick(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_memory_benchmark_prints_one_persons_peak_through_a_proxy() -> None:
    out = _quick("due_memory.py", "--quick")
    for shape in ("terminal", "pipe", "json"):
        assert re.search(rf"^rfis due, one person via an HTTP proxy \({shape}\), peak RSS\s+\d+ MB", out, re.MULTILINE)


@pytest.mark.postgres
def test_the_team_due_benchmark_prints_its_end_to_end_figures() -> None:
    from tests.postgres import bin_dir, unavailable

    if bin_dir() is None:
        unavailable("no /usr/lib/postgresql/*/bin/initdb")
    out = _quick("team_due.py", "--quick", "--views")
    assert re.search(r"^rfis due from the team watcher \(text\), wall\s+[\d.]+ s", out, re.MULTILINE), out
    assert "from the team watcher (walt), swept" in out, "the watcher answered, not the API"
    assert re.search(r"^needs action from the team record: first rows\s+[\d.]+ ms", out, re.MULTILINE), out


def test_a_benchmark_writes_its_own_section_of_the_readme_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import common
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n\nprose\n<!-- figures:x -->\nold table\n<!-- /figures:x -->\nmore prose\n")
    monkeypatch.setattr(common, "README", readme)
    common.write_readme("x", "figure  measured\n------  --------\na       1.0 ms", "python benchmarks/x.py")
    text = readme.read_text()
    assert "old table" not in text and "a       1.0 ms" in text and "`python benchmarks/x.py`" in text
    assert text.startswith("# Benchmarks\n\nprose\n<!-- figures:x -->\n")
    assert text.endswith("<!-- /figures:x -->\nmore prose\n")
    assert "Measured at commit " in text
    with pytest.raises(SystemExit):
        common.write_readme("nowhere", "table", "python benchmarks/x.py")


@pytest.mark.postgres
def test_the_webhook_benchmark_prints_delivery_to_colleague_beside_the_poll() -> None:
    from tests.postgres import bin_dir, unavailable

    if bin_dir() is None:
        unavailable("no /usr/lib/postgresql/*/bin/initdb")
    out = _quick("webhook_latency.py", "--quick")
    assert re.search(r"^webhook: raised to a colleague's team view, p95\s+[\d.]+ s\s+150 s avg", out, re.MULTILINE), out
    assert re.search(r"^webhook: API requests a delivery costs\s+[\d.]+ avg", out, re.MULTILINE), out
