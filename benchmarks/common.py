"""What every benchmark shares: a result row, percentiles and the printed table."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
"""The repository root (benchmarks/ lives directly under it)."""


@dataclass(frozen=True)
class Row:
    """One line of the table. `ratio` is measured / baseline where a baseline exists."""

    figure: str
    measured: str
    baseline: str
    ratio: str
    target: str
    met: bool | None
    note: str = ""


def percentile(values: Sequence[float], pct: float) -> float:
    """The pct-th percentile (nearest rank on the sorted values)."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def secs(seconds: float) -> str:
    return f"{seconds:.2f} s"


def times(ratio: float) -> str:
    return f"{ratio:.2f}x"


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("VmHWM not found in /proc/self/status")


def bench_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: this interpreter's env, a throwaway config dir."""
    env = dict(os.environ)
    env.pop("STABLEPAY_API_KEY", None)
    env.pop("STABLEPAY_PROFILE", None)
    # As an install runs: with bytecode. A code tree read with `git archive` has none, and without this every
    # run of it compiled its sources again (each program's first run, a warm-up, writes them).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    return env


def render(rows: Sequence[Row]) -> str:
    """The table, as fixed-width text."""
    header = ("figure", "measured", "baseline", "ratio", "target", "met?")
    lines = [
        (r.figure, r.measured, r.baseline, r.ratio, r.target, "-" if r.met is None else ("yes" if r.met else "NO"))
        for r in rows
    ]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out.extend("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines)
    notes = [f"  {r.figure}: {r.note}" for r in rows if r.note]
    if notes:
        out.append("")
        out.append("notes:")
        out.extend(notes)
    return "\n".join(out)


README = Path(__file__).resolve().parent / "README.md"


def run_facts() -> str:
    """Which code, when, and how busy the machine was: the line above every table a benchmark writes."""
    import subprocess
    from datetime import datetime, timezone

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"], capture_output=True,
                               text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", ""
    load = os.getloadavg()
    return (f"Measured at commit {commit or '(no git)'}{' with src changed' if dirty else ''} on "
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, load average "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min) at the end.")


def write_readme(section: str, table: str, command: str) -> None:
    """Put `table` (a benchmark's printed output) into benchmarks/README.md between the section's markers
    (`<!-- figures:NAME -->` … `<!-- /figures:NAME -->`), with the command that made it and the run's facts:
    the figures in the README are written by the benchmarks, never by hand."""
    start, end = f"<!-- figures:{section} -->", f"<!-- /figures:{section} -->"
    text = README.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"benchmarks/README.md has no {start} … {end} section to write")
    block = f"{start}\n`{command}`. {run_facts()}\n\n```\n{table}\n```\n{end}"
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    README.write_text(before + block + after, encoding="utf-8")


def pg_module(name: str) -> Any:
    """`stablepay_console.storage.postgres.<name>` of the tree on the path; a baseline from before the store's
    rename (it was `storage.team`) has it there."""
    import importlib

    try:
        return importlib.import_module(f"stablepay_console.storage.postgres.{name}")
    except ModuleNotFoundError:
        return importlib.import_module(f"stablepay_console.storage.team.{name}")
