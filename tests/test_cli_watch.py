"""`rfis watch` end to end: events once, remembered across runs, a new round reported once; backoff rules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import httpx
import pytest

from stablepay_console.cli.watch import backoff, retry_after
from tests.cli_e2e import Result, Server, add_profile, run, serve


@pytest.fixture
def server() -> Iterator[Server]:
    # Its own server: the test changes the sandbox's world.
    with serve("--seed", "7", "--rfis", "60") as served:
        yield served


def watch(server: Server, *args: str) -> Result:
    add_profile("local", "sandbox", server.base_url)
    return run("rfis", "watch", "--once", *args, profile="local", key=server.key)


def events(result: Result) -> list[dict[str, object]]:
    assert result.code == 0, result
    return [json.loads(line) for line in result.out.splitlines()]


def no_deadline_just_past_a_mark() -> bool:
    """In this seeded world no issued deadline lies within 10 minutes past 72 h, 24 h or 1 h from the start, so
    two runs in the server's first 10 minutes see no deadline cross a mark between them (no flaky extra event)."""
    from stablepay_console.sandbox.data import SandboxData

    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    data = SandboxData(seed=7, rfi_count=60, now=start, frozen=True)
    return not any(
        mark < rfi.deadline - start <= mark + timedelta(minutes=10)
        for rfi in data.rfis if rfi.status == "issued" and rfi.deadline is not None
        for mark in (timedelta(hours=72), timedelta(hours=24), timedelta(hours=1))
    )


def test_watch_once_twice_prints_the_events_once_then_a_new_round_once(server: Server) -> None:
    assert no_deadline_just_past_a_mark()
    first = events(watch(server, "--json"))
    assert first, "the first poll reports the deadlines already near"
    assert {e["event"] for e in first} <= {"deadline_72h", "deadline_24h", "deadline_1h", "deadline_passed"}
    assert all(e["rfi"]["status"] == "issued" for e in first)
    assert events(watch(server, "--json")) == [], "a second run repeats nothing"

    with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {server.key}"}) as http:
        submitted = http.get("/v2/rfis", params={"status": "submitted", "limit": 1}).json()["data"][0]
        asked = http.post(f"/_sandbox/rfis/{submitted['id']}/rounds", json={"expiresInMinutes": 10 * 24 * 60})
        assert asked.status_code == 201
        raised = http.post("/_sandbox/rfis", json={"expiresInMinutes": 30}).json()

    third = events(watch(server, "--json"))
    by_kind = sorted((e["event"], e["rfi"]["id"]) for e in third)  # type: ignore[index]
    assert by_kind == sorted([
        ("new_round", submitted["id"]),
        ("new_request", raised["id"]),
        ("deadline_1h", raised["id"]),
    ])
    new_round = next(e for e in third if e["event"] == "new_round")
    assert new_round["previousStatus"] == "submitted"
    assert new_round["rfi"]["currentRound"] == (submitted["currentRound"] or 0) + 1  # type: ignore[index]
    assert set(new_round) == {"event", "detectedAt", "previousStatus", "rfi", "via"}
    assert {e["via"] for e in third} == {"poll"}, "learned by polling (a webhook delivery says webhook)"
    assert events(watch(server, "--json")) == [], "reported once"


def test_watch_lines_for_people(server: Server) -> None:
    first = watch(server)
    assert first.code == 0 and first.out
    for line in first.out.splitlines():
        assert " UTC  deadline_" in line and "\x1b" not in line
    assert "First poll: 60 requests remembered" in first.err
    with httpx.Client(base_url=server.base_url) as http:
        raised = http.post("/_sandbox/rfis", json={"expiresInMinutes": 5 * 24 * 60}).json()
    (line,) = watch(server).out.splitlines()
    assert "new_request" in line and raised["id"] in line and "deadline in 4d 23h" in line


def test_watch_state_is_per_profile_and_per_server(server: Server) -> None:
    assert watch(server).out
    add_profile("other", "sandbox", server.base_url)
    again = run("rfis", "watch", "--once", profile="other", key=server.key)
    assert again.code == 0 and again.out, "another profile has its own memory"


def test_a_failed_poll_with_once_exits_1_and_prints_nothing() -> None:
    add_profile("gone", "sandbox", "http://127.0.0.1:9")
    result = run("rfis", "watch", "--once", profile="gone", key="sk_sandbox_whatever_key_00000000000000")
    assert result.code == 1 and result.out == ""
    assert "poll failed: Network error" in result.err


# --- backoff ----------------------------------------------------------------------------------

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
MIN = timedelta(minutes=1)


def failure(retry_after_value: str | None) -> SimpleNamespace:
    headers = {"Retry-After": retry_after_value} if retry_after_value is not None else {}
    return SimpleNamespace(response=httpx.Response(429, headers=headers))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("120", 2 * MIN),
        ("Fri, 20 Nov 2026 09:45:00 GMT", 15 * MIN),
        ("Fri, 20 Nov 2026 09:00:00 GMT", timedelta(0)),
        ("999999", timedelta(hours=1)),
        ("soon", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_dates(value: str | None, expected: timedelta | None) -> None:
    assert retry_after(failure(value), NOW) == expected  # type: ignore[arg-type]


def test_backoff_doubles_to_an_hour_and_never_beats_the_server() -> None:
    five = 5 * MIN
    assert [backoff(five, n, None) for n in (1, 2, 3, 4, 9)] == [10 * MIN, 20 * MIN, 40 * MIN, 60 * MIN, 60 * MIN]
    assert backoff(timedelta(seconds=30), 1, None) == MIN
    assert backoff(five, 1, 30 * MIN) == 30 * MIN
    assert backoff(timedelta(hours=2), 3, None) == timedelta(hours=2)


async def test_the_watch_loop_backs_off_after_a_failed_poll_and_keeps_going(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from stablepay_console.cli import watch as watch_module
    from stablepay_console.cli.output import Output
    from stablepay_console.cli.session import Session
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.sandbox import Sandbox
    from stablepay_console.wiring import Services
    from tests.conftest import FIXED_NOW

    sandbox = Sandbox(now=FIXED_NOW)
    sandbox.faults.force, sandbox.faults.force_count = "500", 1  # the first poll fails, the next ones work
    session = Session(EMBEDDED_PROFILE, Services(sandbox=sandbox, clock=lambda: FIXED_NOW))
    out = io.StringIO()
    waits: list[float] = []

    class Stop(Exception):
        pass

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 3:
            raise Stop

    with pytest.raises(Stop):
        await watch_module.Watcher(session, Output("plain", out), sleep).run(timedelta(minutes=5), once=False)
    assert waits == [600.0, 300.0, 300.0], "twice the interval after a failure, then the interval again"
    err = capsys.readouterr().err
    assert "poll failed: Server error: HTTP 500" in err and "Trying again in 10m" in err
    assert out.getvalue().count("deadline_") > 0, "the poll after the failure reported the deadlines"
