"""`rfis due` from the team watcher's sweep, end to end: a whole process, start to exit, at 100,000 requests.

The team watcher (`walt`) has seen every request of a 100,000-request account (35,000-odd issued) and marked a
fresh sweep; an analyst's `stablepay-console rfis due --within 24h` then answers from the team record without
asking the API. Each run is a whole process (interpreter start, imports, the profile, the connection, the read,
the rows printed to a pipe, the exit), timed from spawn to exit with its peak RSS, text and `--json` alike.

With a COMMIT, the same commands of that commit's code (its `src` read with `git archive`) run in turns with
this tree's, in the same run: the figures side by side. Each tree reads a database of its own schema (a console
refuses any other version), made by its own `record init` and filled by its own code with the same requests.

It starts its own PostgreSQL from Debian's `postgresql` package (as the test suite does) and removes it at the
end:

    .venv/bin/python benchmarks/team_due.py [--rfis N] [--runs N] [--baseline COMMIT] [--quick]
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
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import Row, bench_env, pg_module, render, secs, write_readme  # noqa: E402
from due_speed import timed  # noqa: E402
from scale import baseline_src  # noqa: E402

if TYPE_CHECKING:
    from tests.postgres import TeamDb

GOAL_S = 1.0
SERVER = "production https://api.stablepay.example"
"""What the team record files the profile's requests under (`services.team.scope.server_key`)."""
PROFILE = "prod"
SWEEP_SECONDS = 3600
"""The watcher's interval as marked: its sweep stays fresh for two of them, the whole benchmark."""


def fill(url: str, rfis: int) -> int:
    """The team watcher sees every request of a `rfis`-request account and marks its sweep; the issued count."""
    from stablepay_console.sandbox.data import SandboxData
    from stablepay_console.services.history import sighting
    PgRecord, parse = pg_module("store").PgRecord, pg_module("url").parse
    from stablepay_console.storage.record_types import SeenPage

    data = SandboxData(seed=7, rfi_count=rfis, now=datetime.now(timezone.utc)).rfis
    walt = PgRecord(parse(url), lambda name: SERVER if name else "")
    for i in range(0, len(data), 1000):
        walt.observe([SeenPage(PROFILE, "production", datetime.now(timezone.utc),
                               tuple(sighting(r) for r in data[i:i + 1000]))])
    assert walt.mark_sweep(PROFILE, SWEEP_SECONDS, json.dumps({"issued": []})), "walt is the team watcher"
    walt.close()
    return sum(1 for r in data if r.status == "issued")


def _on(src: Path | None) -> dict[str, str]:
    """The environment of a child that runs `src`'s code (None: this tree's)."""
    return bench_env(**({"PYTHONPATH": str(src)} if src is not None else {}))


def _filled(db: TeamDb, rfis: int, src: Path | None = None) -> int:
    """`db` filled by `src`'s code (the watcher's sweep of `rfis` requests); the issued count. In a child: this
    process stays small, so the commands it starts do not begin as copies of 100,000 requests (a forked child's
    peak RSS counts the parent's pages it shared before it ran the command)."""
    filled = subprocess.run([sys.executable, __file__, "--fill", db.url("walt"), str(rfis)], capture_output=True,
                            env=_on(src), text=True, timeout=3600, check=True)
    return int(filled.stdout.strip().splitlines()[-1])


def init(url: str) -> None:
    """`record init` of the code on the path, as the owner (the baseline's schema for the baseline's database)."""
    import psycopg

    init_schema = pg_module("schema").init_schema

    with psycopg.connect(url) as conn:
        init_schema(conn)


class Contender:
    """One code tree's `rfis due` with its own config folder: the profile, the team record's URL."""

    def __init__(self, name: str, config: Path, url: str, src: Path | None = None) -> None:
        self.name = name
        self.env = bench_env(STABLEPAY_CONFIG_DIR=str(config), PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring",
                             STABLEPAY_RECORD_URL=url)
        if src is not None:
            self.env["PYTHONPATH"] = str(src)
        subprocess.run(self.argv("profile", "add", PROFILE, "--environment", "production", "--base-url",
                                 "https://api.stablepay.example", "--no-key"),
                       env=self.env, check=True, capture_output=True, timeout=120)
        self.env.update(STABLEPAY_PROFILE=PROFILE, STABLEPAY_API_KEY="sk_bench_not_sent")

    @staticmethod
    def argv(*args: str) -> list[str]:
        return [sys.executable, "-m", "stablepay_console", *args]

    def said(self, *args: str) -> str:
        """What a run says on standard error (the line that names its source)."""
        done = subprocess.run(self.argv(*args), env=self.env, capture_output=True, text=True, timeout=300)
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"


def views(url: str, src: Path | None, runs: int) -> dict[str, float]:
    """The needs-action view's figures (`team_views.py`) with one tree's code, in a child process."""
    env = bench_env(**({"PYTHONPATH": str(src)} if src is not None else {}))
    done = subprocess.run([sys.executable, str(HERE / "team_views.py"), url, PROFILE, SERVER, str(runs)], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"team_views.py failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def measure(rfis: int = 100_000, runs: int = 5, baseline: str | None = None, views_too: bool = False) -> list[Row]:
    from psycopg import sql
    from tests.postgres import OWNER, TEMPLATE, TeamDb, prepare, start_server

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the server is stopped and removed on the way out
    server, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="stablepay-bench-"))
    try:
        prepare(server)
        with server.connect() as conn:
            conn.execute(sql.SQL("CREATE DATABASE bench_due TEMPLATE {} OWNER {}").format(
                sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
        db = TeamDb(server, "bench_due")
        issued = _filled(db, rfis)
        trees = {"this tree": Contender("this tree", tmp / "new", db.url("alice"))}
        old_src = baseline_src(tmp, baseline) if baseline else None
        old_db = db
        if old_src is not None:
            # The baseline's own database, at the baseline's own schema (a console refuses any other version),
            # made by its own `record init` and filled by its own code with the same requests.
            with server.connect() as conn:
                conn.execute(sql.SQL("CREATE DATABASE bench_due_baseline OWNER {}").format(sql.Identifier(OWNER)))
            old_db = TeamDb(server, "bench_due_baseline")
            subprocess.run([sys.executable, __file__, "--init", old_db.url(OWNER)], env=_on(old_src), check=True,
                           capture_output=True, timeout=600)
            _filled(old_db, rfis, old_src)
            trees["baseline"] = Contender("baseline", tmp / "old", old_db.url("alice"), old_src)
        shapes = {"text": ("rfis", "due", "--within", "24h"), "json": ("rfis", "due", "--within", "24h", "--json")}
        source = trees["this tree"].said(*shapes["text"])
        found: dict[tuple[str, str], list[tuple[float, float]]] = {(t, s): [] for t in trees for s in shapes}
        for n in range(runs + 1):  # in turns; every other round backwards; the first round is a warm-up
            order = [(t, s) for t in trees for s in shapes]
            for tree, shape in order if n % 2 else reversed(order):
                _, wall, peak = timed(trees[tree].argv(*shapes[shape]), trees[tree].env)
                if n:
                    found[(tree, shape)].append((wall, peak))
        seen: dict[str, dict[str, float]] = {}
        if views_too:
            for tree in reversed(trees) if runs % 2 else trees:
                at = old_db if tree == "baseline" else db  # each tree's own database, at its own schema
                seen[tree] = views(at.url("alice"), old_src if tree == "baseline" else None, 3 if runs > 1 else 1)
    finally:
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)

    where = (f"{rfis:,} requests ({issued:,} issued) seen by the team watcher; whole process, median of {runs} "
             f"after a warm-up, in turns; it said: {source}")
    rows = []
    for shape in shapes:
        this = found[("this tree", shape)]
        before = found.get(("baseline", shape))
        wall, peak = _median(this, 0), _median(this, 1)
        old_wall = _median(before, 0) if before else None
        rows.append(Row(f"rfis due from the team watcher ({shape}), wall", secs(wall),
                        secs(old_wall) if old_wall else "-", f"{wall / old_wall:.2f}x" if old_wall else "-",
                        f"< {GOAL_S:.0f} s", wall < GOAL_S,
                        f"{where if shape == 'text' else 'the same, --json'}; baseline column: "
                        f"{'commit ' + baseline[:7] if before and baseline else 'not run'}; every run "
                        + " ".join(f"{w:.2f}" for w, _ in this)
                        + (" s; baseline " + " ".join(f"{w:.2f}" for w, _ in before) if before else " s")))
        rows.append(Row(f"rfis due from the team watcher ({shape}), peak RSS", f"{peak:.0f} MB",
                        f"{_median(before, 1):.0f} MB" if before else "-",
                        f"{peak / _median(before, 1):.2f}x" if before else "-", "-", None))
    for figure, key in (("needs action from the team record: first rows", "first_rows"),
                        ("needs action from the team record: the whole view", "whole_view")):
        if "this tree" in seen:
            now, then = seen["this tree"][key], seen.get("baseline", {}).get(key)
            rows.append(Row(figure, _ms(now), _ms(then) if then else "-", f"{now / then:.2f}x" if then else "-",
                            "-", None, f"{issued:,} issued; in-process (team_views.py), median of 3, each tree's code "
                            "against its own database of the same requests"))
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _median(pairs: Sequence[tuple[float, float]] | None, index: int) -> float:
    return statistics.median(p[index] for p in pairs or [(0.0, 0.0)])


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["--fill"]:  # the child that fills the database (see `measure`)
        print(fill(given[1], int(given[2])))
        return 0
    if given[:1] == ["--init"]:  # the child that makes the baseline's database (see `measure`)
        init(given[1])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rfis", type=int, default=100_000, help="requests on the account (default 100,000)")
    parser.add_argument("--runs", type=int, default=5, help="counted runs of each (default 5)")
    parser.add_argument("--baseline", metavar="COMMIT", help="also run this commit's code, in turns")
    parser.add_argument("--views", action="store_true", help="also the needs-action view (team_views.py)")
    parser.add_argument("--quick", action="store_true", help="500 requests, one run (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args(argv)
    rfis, runs = (500, 1) if args.quick else (args.rfis, args.runs)
    table = render(measure(rfis, runs, args.baseline, args.views))
    print(table)
    if args.write_readme:
        write_readme("team-due", table, "python benchmarks/team_due.py " + " ".join(argv or sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
