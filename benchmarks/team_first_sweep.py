"""A team's first sweep at scale: the team watcher's first `rfis watch --once` of a 100,000-request account served
at 50 ms a request, and what an analyst reads right after it, this tree beside a baseline commit in one run.

For each tree, on a database of its own (the same migrated template) and the same served sandbox:

- the watcher (`walt`): one whole `rfis watch --once` process, start to exit;
- an analyst (`alice`), right after it: `rfis due --within 24h` as whole processes (median of `runs`), and the
  line that names its source (the team watcher's sweep, or the API);
- the needs-action view in a headless console of that analyst: seconds from the key to its first rows painted
  (`scale_probe.py needs-action`), beside the same view read from the API by one person without a team record.

It starts its own PostgreSQL from Debian's `postgresql` package (as the test suite does) and removes it at the end:

    .venv/bin/python benchmarks/team_first_sweep.py [--rfis N] [--latency S] [--runs N] [--baseline COMMIT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import Row, bench_env, render, secs, write_readme  # noqa: E402
from due_speed import timed  # noqa: E402
from scale import baseline_src  # noqa: E402
from served import served_sandbox  # noqa: E402

PROFILE = "scale"
DUE_GOAL_S = 1.0
FIRST_ROWS_GOAL_S = 0.2


@dataclass
class Tree:
    """One code tree's commands, with its own config folder, profile and team database."""

    name: str
    env: dict[str, str]
    db_url: str  # the database's URL for a role, with `{role}` in it

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "stablepay_console", *args]

    def as_role(self, role: str) -> dict[str, str]:
        return {**self.env, "STABLEPAY_RECORD_URL": self.db_url.format(role=role)}

    def run(self, role: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*args), env=self.as_role(role), capture_output=True, text=True, timeout=3600)


def make_tree(name: str, config: Path, base_url: str, key: str, db_url: str, src: Path | None) -> Tree:
    env = bench_env(STABLEPAY_CONFIG_DIR=str(config), PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    if src is not None:
        env["PYTHONPATH"] = str(src)
    tree = Tree(name, env, db_url)
    subprocess.run(tree.argv("profile", "add", PROFILE, "--environment", "sandbox", "--base-url", base_url, "--no-key"),
                   env=env, check=True, capture_output=True, timeout=120)
    env.update(STABLEPAY_PROFILE=PROFILE, STABLEPAY_API_KEY=key)
    return tree


def first_rows(env: dict[str, str], base_url: str, key: str) -> float:
    """Seconds from the needs-action key to its first rows painted, in a console of its own."""
    done = subprocess.run([sys.executable, str(HERE / "scale_probe.py"), "needs-action", base_url, key], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"scale_probe.py failed: {done.stderr[-2000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["first_rows"])


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(nothing said)"


def measure(rfis: int, latency: float, runs: int, baseline: str | None) -> list[Row]:
    from psycopg import sql
    from tests.postgres import OWNER, TEMPLATE, prepare, start_server

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the server is stopped and removed on the way out
    server, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="stablepay-bench-"))
    found: dict[str, dict[str, object]] = {}
    try:
        prepare(server)
        with served_sandbox(rfis, latency) as (base_url, key):
            srcs: dict[str, Path | None] = {"this tree": None}
            if baseline:
                old = baseline_src(tmp, baseline)
                if old is not None:
                    srcs["baseline"] = old
            for n, (name, src) in enumerate(srcs.items()):
                database = f"first_sweep_{n}"
                with server.connect() as conn:
                    conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {} OWNER {}").format(
                        sql.Identifier(database), sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
                db_url = server.url("{role}", database)
                tree = make_tree(name, tmp / f"config-{n}", base_url, key, db_url, src)
                code, watch_wall, _ = timed(tree.argv("rfis", "watch", "--once"), tree.as_role("walt"))
                said = last_line(tree.run("alice", "rfis", "due", "--within", "24h").stderr)
                walls = [timed(tree.argv("rfis", "due", "--within", "24h"), tree.as_role("alice"))[1]
                         for _ in range(runs)]
                with server.connect(database) as conn:
                    marked = conn.execute("SELECT count(*) FROM stablepay.sweeps").fetchone()
                found[name] = {"watch_code": code, "watch": watch_wall, "said": said, "due": statistics.median(walls),
                               "due_runs": walls, "marked": bool(marked and marked[0]),
                               "first_rows": first_rows(tree.as_role("alice"), base_url, key)}
            alone = bench_env(STABLEPAY_CONFIG_DIR=str(tmp / "alone"))
            alone.pop("STABLEPAY_RECORD_URL", None)
            api_first_rows = first_rows(alone, base_url, key)
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)

    where = f"{rfis:,} requests served at {latency * 1000:.0f} ms a request"
    this, before = found["this tree"], found.get("baseline")

    def column(tree: dict[str, object] | None, key: str) -> str:
        return secs(float(tree[key])) if tree else "-"  # type: ignore[arg-type]

    def ratio(key: str) -> str:
        return f"{float(this[key]) / float(before[key]):.2f}x" if before else "-"  # type: ignore[arg-type]

    base = f"baseline column: commit {baseline[:7]}" if before and baseline else "baseline column: not run"
    return [
        Row("team watcher's first rfis watch --once, wall", column(this, "watch"), column(before, "watch"),
            ratio("watch"), "-", None,
            f"{where}; whole process; exit {this['watch_code']}, sweep marked: {this['marked']}"
            + (f"; baseline exit {before['watch_code']}, sweep marked: {before['marked']}" if before else "")
            + f"; {base}"),
        Row("rfis due right after it, wall", column(this, "due"), column(before, "due"), ratio("due"),
            f"< {DUE_GOAL_S:.0f} s", float(this["due"]) < DUE_GOAL_S and "team watcher" in str(this["said"]),  # type: ignore[arg-type]
            f"median of {runs} whole processes; it said: {this['said']}"
            + (f"; baseline said: {before['said']}" if before else "")),
        Row("needs action from the team record: first rows on screen", column(this, "first_rows"),
            column(before, "first_rows"), ratio("first_rows"), f"< {FIRST_ROWS_GOAL_S * 1000:.0f} ms",
            float(this["first_rows"]) < FIRST_ROWS_GOAL_S,  # type: ignore[arg-type]
            f"key to first rows painted, a headless console at 120x40 (scale_probe.py); one person on the API, no "
            f"team record: {secs(api_first_rows)}"),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rfis", type=int, default=100_000, help="requests on the account (default 100,000)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds added to each request (default 0.05)")
    parser.add_argument("--runs", type=int, default=5, help="counted runs of rfis due (default 5)")
    parser.add_argument("--baseline", metavar="COMMIT", help="also run this commit's code, on a database of its own")
    parser.add_argument("--quick", action="store_true", help="2,000 requests, no latency, one run (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv)
    rfis, latency, runs = (2_000, 0.0, 1) if args.quick else (args.rfis, args.latency, args.runs)
    table = render(measure(rfis, latency, runs, args.baseline))
    print(table)
    if args.write_readme:
        command = "python benchmarks/team_first_sweep.py " + " ".join(argv or sys.argv[1:])
        write_readme("team-first-sweep", table, command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
