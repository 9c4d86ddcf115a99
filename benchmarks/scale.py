"""Scale: a 100,000-request account through a request-counting proxy, this code next to a baseline commit's.

`sandbox serve --rfis 100000 --latency 0.05` runs in one process and `counting_proxy.py` in front of it
in another; every figure counts what reached the server through the proxy, or times a whole command.
Each figure is measured for this tree and, in the same run, for the code of `BASELINE` (the commit
before the incremental watch, read with `git archive` into a temporary folder; when git or that commit
is missing the issue's figures are quoted instead):

- requests per steady-state `rfis watch --once` (nothing changed since the last run), per sweep (a
  run after the sweep interval, one request answered since), per minute of the console's radar;
- `rfis due --within 24h`: wall time and peak RSS of the whole process (median of `runs`);
- the needs-action view: seconds from the key to its first rows, and to every issued request read.

    .venv/bin/python benchmarks/scale.py [RFIS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import httpx
from common import ROOT, Row, bench_env, secs
from counting_proxy import ProxyCounter, counting_proxy
from served import served_sandbox

HERE = Path(__file__).resolve().parent
BASELINE = "0e82885be44ea424701c883c387acc6c9d9c53e7"
ISSUE = {"watch": "1000", "due": "6.2 s", "due_mb": "287 MB", "radar": "353"}
"""The issue's own figures for the same account ("now"), used when the baseline cannot be run."""
PROFILE = "scale"
WATCH_GOAL = 5
DUE_GOAL_S = 3.0
DUE_GOAL_MB = 120.0


def baseline_src(into: Path, commit: str = BASELINE) -> Path | None:
    """`commit`'s `src` folder, or None when git or the commit is not there."""
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True,
                                 check=True, timeout=60).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return into / "src"


class Tree:
    """One code tree (this one, or the baseline's) with its own config folder and profile."""

    def __init__(self, name: str, config: Path, proxy: ProxyCounter, key: str, src: Path | None = None) -> None:
        self.name = name
        self.config = config
        self.env = bench_env(STABLEPAY_CONFIG_DIR=str(config), PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
        if src is not None:
            self.env["PYTHONPATH"] = str(src)
        self.run("profile", "add", PROFILE, "--environment", "sandbox", "--base-url", proxy.base_url, "--no-key")
        self.env.update(STABLEPAY_PROFILE=PROFILE, STABLEPAY_API_KEY=key)

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "stablepay_console", *args]

    def run(self, *args: str) -> tuple[int, str, float, float]:
        """(exit code, stdout, wall seconds, peak RSS in MB) of one command."""
        started = time.perf_counter()
        proc = subprocess.Popen(self.argv(*args), env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        return proc.returncode, out, wall, usage.ru_maxrss / 1024

    def probe(self, what: str, base_url: str, key: str) -> dict[str, float]:
        """A `scale_probe.py` figure, in a process of its own (a profile of its own: no key in the environment)."""
        env = {k: v for k, v in self.env.items() if k not in ("STABLEPAY_PROFILE", "STABLEPAY_API_KEY")}
        with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as config:
            env["STABLEPAY_CONFIG_DIR"] = config
            done = subprocess.run([sys.executable, str(HERE / "scale_probe.py"), what, base_url, key], env=env,
                                  capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"scale_probe.py {what} failed ({self.name}): {done.stderr[-2000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    def age_last_sweep(self, by: timedelta) -> None:
        """As if `by` had passed since the last sweep (the watch state file's `lastSweep`)."""
        path = self.config / "data" / f"watch-{PROFILE}.json"
        state = json.loads(path.read_text(encoding="utf-8"))
        swept = datetime.fromisoformat(state["memory"]["lastSweep"])
        state["memory"]["lastSweep"] = (swept - by).isoformat()
        path.write_text(json.dumps(state), encoding="utf-8")


def watch_costs(tree: Tree, proxy: ProxyCounter) -> dict[str, int]:
    """Requests of a first `rfis watch --once` (its baseline), and of a second with nothing changed."""
    costs = {}
    for run in ("first", "steady"):
        proxy.reset()
        tree.run("rfis", "watch", "--once", "--json")
        costs[run] = proxy.total()
    return costs


def due_figures(tree: Tree, runs: int) -> tuple[float, float, int]:
    """Median wall seconds and peak RSS (MB) of `rfis due --within 24h`, and its exit code."""
    walls, peaks, code = [], [], 0
    for _ in range(runs):
        code, _, wall, peak = tree.run("rfis", "due", "--within", "24h")
        walls.append(wall)
        peaks.append(peak)
    return statistics.median(walls), statistics.median(peaks), code


def answer_one(base_url: str, key: str) -> None:
    """Answer an issued request deep in the list (straight to the sandbox, not counted)."""
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as http:
        total = http.get("/v2/rfis", params={"status": "issued", "limit": 1}).json()["pagination"]["total"]
        target = http.get("/v2/rfis", params={"status": "issued", "limit": 1, "offset": total // 2}).json()
        http.post(f"/_sandbox/rfis/{target['data'][0]['id']}/answer").raise_for_status()


def measure(rfis: int = 100_000, latency: float = 0.05, runs: int = 3, baseline: bool = True) -> list[Row]:
    """`baseline`: also run the baseline commit's code (else the issue's figures are quoted)."""
    with served_sandbox(rfis, latency) as (base_url, key), counting_proxy(base_url) as proxy, \
            tempfile.TemporaryDirectory(prefix="stablepay-bench-") as tmp:
        old_src = baseline_src(Path(tmp)) if baseline else None
        new = Tree("this tree", Path(tmp) / "new", proxy, key)
        old = Tree("baseline", Path(tmp) / "old", proxy, key, old_src) if old_src is not None else None

        watch_new = watch_costs(new, proxy)
        answer_one(base_url, key)
        new.age_last_sweep(timedelta(minutes=16))
        proxy.reset()
        _, swept_out, _, _ = new.run("rfis", "watch", "--once", "--json")
        watch_new["sweep"] = proxy.total()
        reported = sum(1 for line in swept_out.splitlines() if '"status_changed"' in line)
        radar_new = new.probe("radar", proxy.base_url, key)
        due_new = due_figures(new, runs)
        action_new = new.probe("needs-action", proxy.base_url, key)

        if old is not None:
            watch_old = watch_costs(old, proxy)
            radar_old = old.probe("radar", proxy.base_url, key)
            due_old = due_figures(old, runs)
            action_old = old.probe("needs-action", proxy.base_url, key)
            before = {"watch": str(watch_old["steady"]), "radar": str(radar_old["minute"]),
                      "due": secs(due_old[0]), "due_mb": f"{due_old[1]:.0f} MB",
                      "action": secs(action_old["first_rows"])}
            said = f"baseline: commit {BASELINE[:7]}, measured in this run"
        else:
            before = {**ISSUE, "action": "-"}
            said = "baseline: the issue's figures (for 100,000 requests; the baseline commit was not run)"

    where = f"sandbox serve --rfis {rfis} --latency {latency} through a counting proxy; {said}"
    minute = radar_new["minute"]
    per_minute_amortized = minute + radar_new["first"] / 15
    return [
        Row("watch --once, nothing changed", f"{watch_new['steady']} requests", before["watch"], "-",
            f"<= {WATCH_GOAL}", watch_new["steady"] <= WATCH_GOAL,
            f"{where}; the first run (its baseline: newest page and every issued request) sent "
            f"{watch_new['first']}"),
        Row("watch --once, one sweep", f"{watch_new['sweep']} requests", before["watch"], "-",
            "every issued request, once per 15 min", None,
            f"the run after the sweep interval with one request answered: the newest page, every issued page and "
            f"the answered request's lookup; it reported {reported} status change(s)"),
        Row("radar, per minute", f"{minute} requests", before["radar"], "-", "a cheap probe", minute <= WATCH_GOAL,
            f"between sweeps; its first look (a sweep) sent {radar_new['first']} in "
            f"{radar_new['first_seconds']:.1f} s, so with a 15 min sweep about {per_minute_amortized:.0f} a minute "
            "on average"),
        Row("rfis due --within 24h, wall", secs(due_new[0]), before["due"], "-", f"<= {DUE_GOAL_S:.0f} s",
            due_new[0] <= DUE_GOAL_S, f"whole process, median of {runs}; exit code {due_new[2]}"),
        Row("rfis due --within 24h, peak RSS", f"{due_new[1]:.0f} MB", before["due_mb"], "-",
            f"<= {DUE_GOAL_MB:.0f} MB", due_new[1] <= DUE_GOAL_MB, f"VmHWM of the process, median of {runs}"),
        Row("needs action, first rows", secs(action_new["first_rows"]), before["action"], "-",
            "before the whole list is read", action_new["first_rows"] < action_new["complete"],
            f"headless console at 120x40, key `a` to its first rows painted; every one of the "
            f"{action_new['rows']:.0f} issued requests read after {action_new['complete']:.1f} s"),
    ]


def main(argv: Sequence[str]) -> None:
    from common import render

    os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
    print(render(measure(int(argv[0]) if argv else 100_000)))


if __name__ == "__main__":
    main(sys.argv[1:])
