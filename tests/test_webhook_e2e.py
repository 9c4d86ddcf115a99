"""End to end with real processes: `sandbox serve` delivers signed webhooks to `rfis watch --webhooks` on a team
record, and the watch reports a new transaction request and its answer within seconds, where its polls
(`--interval 5m`, the sweep 15 minutes) would take minutes."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.cli_e2e import Server, add_profile, command_env, console, free_port, serve
from tests.postgres import TeamDb
from tests.webhook_keys import write_keys

URL = "STABLEPAY_RECORD_URL"
BACKSTOP = 120.0
"""Not a speed figure (benchmarks/webhook_latency.py measures how soon a delivery is heard): a watch that never
says it is still there long after this, and fails the test instead of hanging the suite."""


class Lines:
    """A process's stdout and stderr, read as they come."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.out: list[str] = []
        self.err: list[str] = []
        self._partial = {"out": b"", "err": b""}

    def _read(self, timeout: float) -> None:
        assert self.process.stdout is not None and self.process.stderr is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout.fileno(), selectors.EVENT_READ, "out")
            selector.register(self.process.stderr.fileno(), selectors.EVENT_READ, "err")
            for key, _ in selector.select(timeout=timeout):
                chunk = os.read(key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno(), 65536)
                data = self._partial[key.data] + chunk
                *whole, self._partial[key.data] = data.split(b"\n")
                (self.out if key.data == "out" else self.err).extend(line.decode() for line in whole)

    def wait(self, found: Callable[[], Any], seconds: float, what: str) -> Any:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = found()
            if value:
                return value
            if self.process.poll() is not None:
                self._read(0.1)
                break
            self._read(min(0.2, max(0.0, deadline - time.monotonic())))
        value = found()
        assert value, f"{what}; stdout {self.out[-5:]!r}, stderr {self.err[-10:]!r}"
        return value


@contextmanager
def watching(server: Server, team_db: TeamDb, port: int, public: Path, config: Path | None = None) -> Iterator[Lines]:
    """`rfis watch --json --interval 5m --webhooks 127.0.0.1:PORT` as the team watcher, in its own process; with
    `config`, on a host of its own (that config folder: its own memory of what it has seen)."""
    add_profile("local", "sandbox", server.base_url)
    env = {URL: team_db.url("walt"), "PYTHONUNBUFFERED": "1"}
    if config is not None:
        env["STABLEPAY_CONFIG_DIR"] = str(config)
    process = subprocess.Popen(
        [*console(), "rfis", "watch", "--json", "--interval", "5m", "--webhooks", f"127.0.0.1:{port}",
         "--webhook-key", str(public)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=command_env("local", server.key, env),
    )
    lines = Lines(process)
    try:
        yield lines
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                _, err = process.communicate(timeout=BACKSTOP)
                lines.err.extend(err.decode().splitlines())
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def event(lines: Lines, kind: str, rfi_id: str) -> dict[str, Any] | None:
    for line in lines.out:
        doc = json.loads(line)
        if doc["event"] == kind and doc["rfi"]["id"] == rfi_id:
            return doc  # type: ignore[no-any-return]
    return None


@pytest.mark.postgres
def test_a_new_request_and_its_answer_are_reported_through_the_webhook_before_any_poll(
        tmp_path: Path, team_db: TeamDb) -> None:
    """The watch polls every 5 minutes; both lines come through the webhook long before the next poll could find
    them (each says `via: webhook`)."""
    public, private = write_keys(tmp_path)
    port = free_port()
    hook = f"http://127.0.0.1:{port}/webhooks"
    with serve("--seed", "7", "--rfis", "60", "--webhook-url", hook, "--webhook-signing-key", str(private)) as server, \
            watching(server, team_db, port, public) as lines:
        lines.wait(lambda: any("First poll:" in line for line in lines.err), BACKSTOP, "the watch never polled")
        assert any(f"Receiving webhooks on {hook}" in line for line in lines.err)
        with httpx.Client(base_url=server.base_url) as http:
            started = time.monotonic()
            raised = http.post("/_sandbox/rfis", json={"kind": "transaction"}).json()
            new = lines.wait(lambda: event(lines, "new_request", raised["id"]), BACKSTOP, "the new request never came")
            took_new = time.monotonic() - started
            started = time.monotonic()
            assert http.post(f"/_sandbox/rfis/{raised['id']}/answer").status_code == 201
            changed = lines.wait(lambda: event(lines, "status_changed", raised["id"]), BACKSTOP,
                                 "the answer never came")
            took_answer = time.monotonic() - started
    assert lines.process.returncode == 130, f"Ctrl+C stops the watch and its receiver: {lines.err[-5:]!r}"
    assert new["via"] == "webhook" and new["rfi"]["status"] == "issued"
    assert changed["via"] == "webhook" and changed["previousStatus"] == "issued"
    assert changed["rfi"]["status"] == "submitted"
    print(f"reported {took_new:.2f} s and {took_answer:.2f} s after the change")
    with team_db.connect() as conn:
        taken = conn.execute("SELECT count(*) FROM stablepay.webhook_events").fetchone()
    assert taken == (2,), "each delivery kept once in the team record"


def test_webhooks_need_the_team_record(tmp_path: Path) -> None:
    public, _ = write_keys(tmp_path)
    done = subprocess.run(
        [*console(), "rfis", "watch", "--webhooks", str(free_port()), "--webhook-key", str(public)],
        capture_output=True, text=True, timeout=60, env=command_env(),
    )
    assert done.returncode == 2
    assert "--webhooks needs the team record (STABLEPAY_RECORD_URL)" in done.stderr


@pytest.mark.postgres
def test_two_watchers_given_the_same_delivery_take_it_once(tmp_path: Path, team_db: TeamDb) -> None:
    from tests.webhook_keys import body_of, envelope, token

    public, _ = write_keys(tmp_path)
    ports = [free_port(), free_port()]
    # Two hosts, as a restart without a gap has them: on one config folder the second watcher would start from the
    # first one's memory, and say no "First poll" of its own.
    other_host = tmp_path / "other-host"
    with serve("--seed", "7", "--rfis", "60") as server:
        add_profile("local", "sandbox", server.base_url)
        shutil.copytree(os.environ["STABLEPAY_CONFIG_DIR"], other_host)
        with watching(server, team_db, ports[0], public) as one, \
                watching(server, team_db, ports[1], public, other_host) as two:
            for lines in (one, two):
                lines.wait(lambda: any("First poll:" in line for line in lines.err), BACKSTOP, "a watch never polled")  # noqa: B023
            with httpx.Client(base_url=server.base_url) as http:  # no deliveries from the sandbox: the test sends them
                raised = http.post("/_sandbox/rfis", json={"kind": "transaction", "expiresInMinutes": 14400}).json()
            body = body_of(envelope(f"{raised['flowType'].upper()}.RFI.OPEN", raised["transferId"], raised["userId"]))
            headers = {"authorization": f"Bearer {token(body)}", "content-type": "application/json"}
            answers = [httpx.post(f"http://127.0.0.1:{port}/webhooks", content=body, headers=headers, timeout=30)
                       for port in ports]  # the proxy's retry reaching the other watcher, for a restart without a gap
            assert [a.status_code for a in answers] == [200, 200]
            assert sorted(a.json()["status"] for a in answers) == ["taken", "taken before"]
            taker = one if answers[0].json()["status"] == "taken" else two
            other = two if taker is one else one
            taker.wait(lambda: event(taker, "new_request", raised["id"]), BACKSTOP,
                       "the watcher that took it never said so")
            other._read(0.5)
    assert event(other, "new_request", raised["id"]) is None, "the other watcher reported nothing"
    with team_db.connect() as conn:
        assert conn.execute("SELECT count(*) FROM stablepay.webhook_events").fetchone() == (1,)
