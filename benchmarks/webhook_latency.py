"""From the provider's delivery to a colleague's console: `rfis watch --webhooks` on the team record, end to end.

Real processes: `sandbox serve --webhook-url … --webhook-signing-key …` and the team watcher's
`rfis watch --json --webhooks … --webhook-key …` (as `walt`), on a PostgreSQL of its own. Each of the
deliveries raises a new transaction request in the sandbox (its delivery leaves at once); the time is taken
from that moment to:

- the watch's `--json` line for it (`"via": "webhook"`);
- the request in the team record's issued requests, as a colleague's console (`bob`) reads them for its
  needs-action view (`TeamFeed.issued`, polled every 10 ms here);
- and, once it is answered in the sandbox, the request gone from those issued requests.

Beside them, what the poll alone gives (no measurement needed: it is the interval): a new request at the
next newest-page poll (`--interval`, 5 minutes by default: 150 s on average, 300 s at worst), an answer at
the next sweep (15 minutes by default). And what a delivery costs the API: the requests each one read (the
team record keeps the count with each delivery taken).

    .venv/bin/python benchmarks/webhook_latency.py [--deliveries N] [--quick] [--write-readme]
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import Row, bench_env, percentile, pg_module, render, write_readme  # noqa: E402

TARGET_P95 = 2.0
PROFILE = "local"
POLL_INTERVAL_S = 300
SWEEP_S = 900
TEN_DAYS = 10 * 24 * 60


class WatchLines:
    """The watch's stdout lines as they come, each with the moment it was read (a thread of its own)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.seen: dict[str, float] = {}
        self.err: list[str] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        partial = {"out": b"", "err": b""}
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout.fileno(), selectors.EVENT_READ, "out")
            selector.register(self.process.stderr.fileno(), selectors.EVENT_READ, "err")
            while self.process.poll() is None:
                for key, _ in selector.select(timeout=0.2):
                    try:
                        chunk = os.read(key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno(), 65536)
                    except (OSError, ValueError):  # the pipes closed as the watch was stopped
                        return
                    now = time.perf_counter()
                    *whole, partial[key.data] = (partial[key.data] + chunk).split(b"\n")
                    for line in whole:
                        text = line.decode(errors="replace")
                        if key.data == "err":
                            self.err.append(text)
                            continue
                        doc = json.loads(text)
                        if doc.get("event") == "new_request" and doc.get("via") == "webhook":
                            self.seen.setdefault(doc["rfi"]["id"], now)


def wait(check, seconds: float, what: str):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.01)
    raise RuntimeError(what)


def measure(deliveries: int) -> list[Row]:
    import httpx
    from psycopg import sql
    from tests.cli_e2e import console, free_port, serve
    from tests.postgres import OWNER, TEMPLATE, TeamDb, prepare, start_server
    from tests.webhook_keys import write_keys

    from stablepay_console.profiles.store import make_profile
    from stablepay_console.services.team.scope import server_key
    PgRecord, parse = pg_module("store").PgRecord, pg_module("url").parse

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the server is stopped and removed on the way out
    server, root = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="stablepay-bench-"))
    watch: subprocess.Popen[bytes] | None = None
    to_line: list[float] = []
    to_console: list[float] = []
    to_answer: list[float] = []
    try:
        prepare(server)
        with server.connect() as conn:
            conn.execute(sql.SQL("CREATE DATABASE bench_hooks TEMPLATE {} OWNER {}").format(
                sql.Identifier(TEMPLATE), sql.Identifier(OWNER)))
        db = TeamDb(server, "bench_hooks")
        public, private = write_keys(tmp)
        port = free_port()
        hook = f"http://127.0.0.1:{port}/webhooks"
        with serve("--seed", "7", "--rfis", "240", "--webhook-url", hook, "--webhook-signing-key", str(private)) \
                as sandbox:
            env = bench_env(STABLEPAY_CONFIG_DIR=str(tmp / "config"),
                            PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring", STABLEPAY_RECORD_URL=db.url("walt"))
            subprocess.run([*console(), "profile", "add", PROFILE, "--environment", "sandbox", "--base-url",
                            sandbox.base_url, "--no-key"], env=env, check=True, capture_output=True, timeout=120)
            env.update(STABLEPAY_PROFILE=PROFILE, STABLEPAY_API_KEY=sandbox.key, PYTHONUNBUFFERED="1")
            watch = subprocess.Popen([*console(), "rfis", "watch", "--json", "--webhooks", f"127.0.0.1:{port}",
                                      "--webhook-key", str(public)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env)
            lines = WatchLines(watch)
            wait(lambda: any("First poll:" in line for line in lines.err), 120, f"the watch never polled: {lines.err}")
            profile = make_profile(PROFILE, "sandbox", sandbox.base_url)
            bob = PgRecord(parse(db.url("bob")), lambda name: server_key(profile))
            with httpx.Client(base_url=sandbox.base_url) as http:
                for n in range(deliveries + 1):  # the first is a warm-up
                    started = time.perf_counter()
                    raised = http.post("/_sandbox/rfis", json={"kind": "transaction", "expiresInMinutes": TEN_DAYS})
                    rfi_id = raised.json()["id"]
                    wait(lambda: any(rfi_id in wire for wire, _, _ in bob.issued(PROFILE)), 30,  # noqa: B023
                         "a colleague never saw the request")
                    shown = time.perf_counter()
                    line_at = wait(lambda: lines.seen.get(rfi_id), 30, "the watch never printed it")  # noqa: B023
                    started_answer = time.perf_counter()
                    http.post(f"/_sandbox/rfis/{rfi_id}/answer")
                    wait(lambda: not any(rfi_id in wire for wire, _, _ in bob.issued(PROFILE)), 30,  # noqa: B023
                         "a colleague never saw the answer")
                    if n:
                        to_console.append(shown - started)
                        to_line.append(line_at - started)
                        to_answer.append(time.perf_counter() - started_answer)
                    time.sleep(0.2)
            bob.close()
            with db.connect() as conn:
                costs = [json.loads(row[0])["apiRequests"]
                         for row in conn.execute("SELECT led_to FROM stablepay.webhook_events").fetchall()]
    finally:
        if watch is not None and watch.poll() is None:
            watch.send_signal(signal.SIGINT)
            try:
                watch.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                watch.kill()
        server.ctl("stop", "-m", "immediate", "-w")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)

    def p(values: list[float], pct: float) -> str:
        return f"{percentile(values, pct):.2f} s"

    poll = f"{POLL_INTERVAL_S / 2:.0f} s avg, {POLL_INTERVAL_S} s worst"
    where = f"{deliveries} deliveries after a warm-up, each a new transaction request; the poll: --interval 5m"
    return [
        Row("webhook: raised to a colleague's team view, p50", p(to_console, 50), poll, "-", "-", None, where),
        Row("webhook: raised to a colleague's team view, p95", p(to_console, 95), poll, "-",
            f"<= {TARGET_P95:.0f} s", percentile(to_console, 95) <= TARGET_P95, where),
        Row("webhook: raised to the watch's line, p50", p(to_line, 50), poll, "-", "-", None, where),
        Row("webhook: raised to the watch's line, p95", p(to_line, 95), poll, "-", "-", None, where),
        Row("webhook: answered to gone from a colleague's view, p95", p(to_answer, 95),
            f"{SWEEP_S // 2} s avg, {SWEEP_S} s worst", "-", "-", None,
            "the same requests answered (submitted); the poll finds it at the next sweep (--sweep 15m)"),
        Row("webhook: API requests a delivery costs", f"{sum(costs) / max(1, len(costs)):.1f} avg, {max(costs)} max",
            "1 a poll", "-", "-", None, "the transaction requests of the transfer's user, one page each"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="2 deliveries (a smoke run)")
    parser.add_argument("--write-readme", action="store_true", help="write the table into benchmarks/README.md")
    args = parser.parse_args()
    rows = measure(2 if args.quick else args.deliveries)
    print("webhook deliveries end to end (sandbox serve -> rfis watch --webhooks -> the team record); baseline: "
          "the poll's interval")
    table = render(rows)
    print(table)
    if args.write_readme and not args.quick:
        write_readme("webhooks", table, "python benchmarks/webhook_latency.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
