"""Every headless command against `sandbox serve` over loopback.

Checked for each: the output's shape (`--json` parsed and held against the spec's field names),
the exit code, what stderr says, and that nothing reaches stdout on an error. The commands run in this process
(`cli.main.main`, `here`), their output captured; what needs a whole process (the installed entry point's
`--json` list, a reader that goes away, a non-blocking stdout, a server that is not there) starts one (`run`).
"""

from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import select
import subprocess
import termios
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest

from stablepay_console.sandbox.data import (
    BATCH_SMALL_ID,
    METRIC_DAILY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
)
from stablepay_console.services.export.requests import CSV_COLUMNS
from tests.cli_e2e import Result, Server, add_profile, command_env, console, here, run, serve

RFI_FIELDS = {"id", "kind", "status", "subjectType", "userId", "transferId", "flowType", "createdAt", "currentRound",
              "round"}
ROUND_FIELDS = {"id", "round", "issuedAt", "expiresAt", "submittedAt", "items", "link"}
ITEM_FIELDS = {"id", "kind", "label", "docType", "detail", "required"}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serve("--seed", "7", "--rfis", "240") as served:
        yield served


@pytest.fixture(scope="module")
def small() -> Iterator[Server]:
    """Nine requests: three issued and due within 20 hours, none overdue."""
    with serve("--seed", "7", "--rfis", "9") as served:
        yield served


def cli(server: Server, *args: str, **kw: object) -> Result:
    add_profile("local", "sandbox", server.base_url)
    return here(*args, profile="local", key=server.key, **kw)  # type: ignore[arg-type]


def cli_process(server: Server, *args: str, **kw: object) -> Result:
    """The command as the installed entry point, in a process of its own."""
    add_profile("local", "sandbox", server.base_url)
    return run(*args, profile="local", key=server.key, **kw)  # type: ignore[arg-type]


def failed(result: Result, code: int, *fragments: str) -> None:
    assert result.code == code, result
    assert result.out == "", "nothing but data on stdout, and no data on an error"
    assert result.err.startswith(("stablepay-console:", "usage:")), result.err
    for fragment in fragments:
        assert fragment in result.err, result.err
    assert "Traceback" not in result.err


def check_rfi(rfi: dict[str, object]) -> None:
    assert RFI_FIELDS <= set(rfi), set(rfi)
    if rfi["round"] is not None:
        round_ = rfi["round"]
        assert isinstance(round_, dict) and ROUND_FIELDS <= set(round_)
        for item in round_["items"]:
            assert ITEM_FIELDS <= set(item)


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --- rfis list ------------------------------------------------------------------------------


def test_list_json_is_the_api_envelope_with_the_spec_names(server: Server) -> None:
    result = cli_process(server, "rfis", "list", "--status", "issued", "--limit", "5", "--offset", "5", "--json")
    assert result.code == 0, result
    body = json.loads(result.out)
    assert set(body) == {"data", "pagination"}
    assert body["pagination"]["limit"] == 5 and body["pagination"]["offset"] == 5
    assert len(body["data"]) == 5 and {r["status"] for r in body["data"]} == {"issued"}
    for rfi in body["data"]:
        check_rfi(rfi)
    assert f"Requests 6-10 of {body['pagination']['total']}" in result.err
    assert "profile local" in result.err


def test_a_reader_that_goes_away_ends_the_command_quietly_and_what_came_is_still_recorded(server: Server) -> None:
    """`rfis list --all | head`: once the reader has gone nothing more is printed, no traceback, exit 141."""
    add_profile("local", "sandbox", server.base_url)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first row
    try:
        done = subprocess.run([*console(), "rfis", "list", "--all", "--csv"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, env=command_env("local", server.key), timeout=60)
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr and "Exception" not in done.stderr
    import sqlite3

    from stablepay_console.storage.local import record_file

    with sqlite3.connect(record_file()) as record:  # every page the command received, though none was printed
        assert record.execute("SELECT count(*) FROM rfis WHERE profile = 'local'").fetchone() == (240,)


def test_a_non_blocking_stdout_still_gets_every_row_and_is_given_back_non_blocking(server: Server) -> None:
    """A parent may hand over a non-blocking pipe; a reader busy when the rows come must still get every one."""
    add_profile("local", "sandbox", server.base_url)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    ours = os.dup(write_end)  # the parent's own handle on the same end: its flag is what the parent sees
    proc = subprocess.Popen([*console(), "rfis", "list", "--all", "--csv"], stdout=write_end,
                            stderr=subprocess.PIPE, env=command_env("local", server.key))
    os.close(write_end)
    try:
        deadline = time.monotonic() + 60
        while queued(read_end) < 65536 and proc.poll() is None:  # the pipe is full: the reader is "busy"
            assert time.monotonic() < deadline, "the command wrote nothing in 60 s"
            time.sleep(0.05)
        out = bytearray()
        while proc.poll() is None:
            if select.select([read_end], [], [], 0.1)[0]:
                out += os.read(read_end, 65536)
            assert time.monotonic() < deadline, "the command did not end in 60 s"
        assert not os.get_blocking(ours), "the pipe was not given back as the parent handed it over"
    finally:
        os.close(ours)
        if proc.poll() is None:
            proc.kill()
    while chunk := os.read(read_end, 65536):
        out += chunk
    os.close(read_end)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    rows = list(csv.reader(io.StringIO(out.decode())))
    assert len(rows) == 241 and tuple(rows[0]) == CSV_COLUMNS


def queued(fd: int) -> int:
    """Bytes waiting in a pipe."""
    return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), "little")


def test_list_text_is_plain_columns_when_piped(server: Server) -> None:
    result = cli(server, "rfis", "list", "--limit", "3")
    assert result.code == 0
    lines = result.out.splitlines()
    assert lines[0].split() == ["ID", "STATUS", "KIND", "USER", "ROUND", "DEADLINE", "LEFT", "CREATED"]
    assert len(lines) == 4
    assert "\x1b" not in result.out and "│" not in result.out and "━" not in result.out


def test_list_all_pages_csv_has_the_export_columns(server: Server) -> None:
    as_csv = cli(server, "rfis", "list", "--all", "--csv")
    as_json = cli(server, "rfis", "list", "--all", "--json")
    assert as_csv.code == as_json.code == 0
    rows = list(csv.reader(io.StringIO(as_csv.out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    records = json.loads(as_json.out)
    assert len(records) == len(rows) - 1 == 240
    assert [r[0] for r in rows[1:]] == [r["id"] for r in records]
    assert len({r["id"] for r in records}) == 240
    assert "240 requests" in as_csv.err and "every page; 0 duplicates skipped" in as_csv.err
    assert "Warning" not in as_csv.err


# --- rfis due -------------------------------------------------------------------------------


def test_due_exits_4_when_something_is_overdue(server: Server) -> None:
    result = cli(server, "rfis", "due", "--json")
    assert result.code == 4, result
    due = json.loads(result.out)
    now = datetime.now(timezone.utc)
    deadlines = [at(r["round"]["expiresAt"]) for r in due]
    assert deadlines == sorted(deadlines), "nearest deadline first"
    assert all(r["status"] == "issued" for r in due)
    assert all(d <= now + timedelta(hours=24) for d in deadlines)
    overdue = sum(d <= now for d in deadlines)
    assert overdue > 0
    assert f"{overdue} overdue, {len(due) - overdue} due within 24h" in result.err
    for rfi in due:
        check_rfi(rfi)


def test_due_exits_3_when_something_is_due_and_0_when_nothing_is(small: Server) -> None:
    due = cli(small, "rfis", "due")
    assert due.code == 3, due
    assert due.out.splitlines()[0].split() == ["ID", "KIND", "USER", "ROUND", "DEADLINE", "LEFT"]
    assert len(due.out.splitlines()) >= 4 and "0 overdue" in due.err
    nothing = cli(small, "rfis", "due", "--within", "30m")
    assert nothing.code == 0, nothing
    assert "KIND" not in nothing.out, "no deadline falls within 30m"
    assert not nothing.out or nothing.out.splitlines()[0].split() == ["ID", "ROUND", "STEP", "LEVEL", "LATE", "BY"]
    assert "Nothing due within 30m" in nothing.err
    assert json.loads(cli(small, "rfis", "due", "--within", "30m", "--json").out) == []


# --- batch, quote, metrics, ping ---------------------------------------------------------------


def test_batch_get_json_and_text(server: Server) -> None:
    result = cli(server, "batch", "get", BATCH_SMALL_ID, "--json")
    assert result.code == 0, result
    body = json.loads(result.out, parse_float=Decimal)
    assert body["transferType"] == "WALLET.TRANSFER.BATCH"
    details = body["transferDetails"]
    assert {"id", "requestId", "createdAt", "updatedAt", "chain", "currency", "contractAddress", "status", "source",
            "destination", "receipt"} <= set(details)
    assert set(details["source"]) >= {"userId", "walletAddress", "walletType"}
    assert set(details["receipt"]) >= {"transactionHash", "userOpHash"}
    amounts = [r["amount"] for r in details["destination"]["batch"]]
    assert all(isinstance(a, str) for a in amounts), "the spec sends batch amounts as decimal strings"
    text = cli(server, "batch", "get", BATCH_SMALL_ID.upper())
    assert text.code == 0
    assert f"{sum(Decimal(a) for a in amounts)} USDC" in text.out
    assert details["receipt"]["transactionHash"] in text.out


def test_batch_get_unknown_is_the_servers_refusal(server: Server) -> None:
    failed(cli(server, "batch", "get", "6f1c2a10-5b7e-4c1d-9a33-00000000ffff"), 1,
           "Refused: HTTP 404", "No batch transfer with ID")


def test_quote_refresh_json_keeps_numbers_and_strings_as_the_spec_types_them(server: Server) -> None:
    result = cli(server, "quote", "refresh", ONRAMP_OPEN_ID, "--json")
    assert result.code == 0, result
    body = json.loads(result.out, parse_float=Decimal)
    assert body["transferType"] == "ONRAMP"
    quote = body["transferDetails"]["quoteInformation"]
    for name in ("sendGross", "sendNet", "railFee", "receiveGross", "receiveNet"):
        assert isinstance(quote[name]["amount"], str) and quote[name]["currency"]
    assert isinstance(quote["rate"], str)
    assert body["transferDetails"]["source"]["amount"] == Decimal("1000.00")  # a JSON number, exact
    text = cli(server, "quote", "refresh", ONRAMP_OPEN_ID)
    assert text.code == 0 and "Rate" in text.out and "Quote refreshed" in text.err


def test_quote_refresh_outside_open_quote_is_refused(server: Server) -> None:
    failed(cli(server, "quote", "refresh", ONRAMP_COMPLETED_ID), 1, "Refused: HTTP 409", "OPEN_QUOTE")


def test_metrics_run_json_csv_and_text(server: Server) -> None:
    result = cli(server, "metrics", "run", METRIC_DAILY_VOLUME_ID, "--json")
    assert result.code == 0, result
    body = json.loads(result.out, parse_float=Decimal)
    assert body["status"] == "success" and body["metadata"]["template"] == "GROSS_VOLUME"
    assert {"recordCount", "calculationInterval", "dateRange", "filters", "breakdowns"} <= set(body["metadata"])
    assert all(isinstance(row["grossVolume"], Decimal) for row in body["data"]), "metric values stay numbers"
    table = cli(server, "metrics", "run", METRIC_TX_COUNT_ID, "--csv")
    rows = list(csv.reader(io.StringIO(table.out)))
    assert rows[0] == ["periodStart", "transactionType", "transactionStatus", "transactionCount"]
    assert len(rows) - 1 == 14 * 2 * 3
    text = cli(server, "metrics", "run", METRIC_DAILY_VOLUME_ID)
    assert text.code == 0 and text.out.split()[:2] == ["PERIODSTART", "GROSSVOLUME"]


def test_ping(server: Server) -> None:
    result = cli(server, "ping")
    assert (result.code, result.out) == (0, "pong\n")
    assert json.loads(cli(server, "ping", "--json").out) == {"message": "pong"}
    add_profile("local", "sandbox", server.base_url)
    failed(here("ping", profile="local", key="sk_sandbox_not_the_right_key_0000000000"), 1, "Not authorized")


def test_a_server_that_is_not_there_is_a_network_error() -> None:
    add_profile("gone", "sandbox", "http://127.0.0.1:9")
    failed(run("rfis", "list", profile="gone", key="sk_sandbox_whatever_key_00000000000000"), 1, "Network error")


def test_an_unknown_profile_is_bad_usage(server: Server) -> None:
    failed(cli(server, "ping", "--profile", "nosuch"), 2, "There is no profile named 'nosuch'")
    add_profile("nokey", "sandbox", server.base_url)
    failed(here("ping", "--profile", "nokey"), 2, "no usable key")


# --- profile status -------------------------------------------------------------------------


def test_profile_status_reports_every_profile_and_exits_by_the_worst(server: Server) -> None:
    now = datetime.now(timezone.utc)
    add_profile("local", "sandbox", server.base_url, key_since=now - timedelta(days=30))
    ok = here("profile", "status", "--json", "--profile", "local", profile="local", key=server.key)
    assert ok.code == 0, ok
    (entry,) = json.loads(ok.out)
    assert entry["profile"] == "local" and entry["ping"] == "ok" and entry["pingMessage"] == "pong"
    assert entry["environment"] == "sandbox" and entry["baseUrl"] == server.base_url
    assert entry["keySource"] == "environment" and entry["key"] != server.key
    assert server.key not in ok.out and server.key not in ok.err
    # A key with no date of its own (not a JWT) in the environment: its age is unknown, never "due".
    assert entry["rotation"] == "unknown"
    add_profile("aging", "production", server.base_url, key_since=now - timedelta(days=345))
    both = here("profile", "status", profile="local", key=server.key)
    assert both.code == 4, "a profile without a usable key fails its ping"
    lines = both.out.splitlines()
    assert lines[0].split()[:3] == ["PROFILE", "ENVIRONMENT", "KEY"]
    aging = next(line for line in lines if "aging" in line)
    assert "due: rotate before" in aging and "FAILED: no usable key" in aging


def test_profile_status_fails_a_key_the_server_rejects(server: Server) -> None:
    """A 401 to the ping is a failed ping, in the table and in --json, and exit 4: never a good key."""
    add_profile("rejected", "sandbox", server.base_url, key_since=datetime.now(timezone.utc) - timedelta(days=30))
    wrong = "sk_sandbox_" + "0" * 32  # well formed, but not a key the server issued
    table = here("profile", "status", "--profile", "rejected", profile="rejected", key=wrong)
    assert table.code == 4, table
    (row,) = [line for line in table.out.splitlines() if "rejected" in line]
    assert "FAILED: " in row and "ok: " not in row, row
    as_json = here("profile", "status", "--json", "--profile", "rejected", profile="rejected", key=wrong)
    assert as_json.code == 4, as_json
    (entry,) = json.loads(as_json.out)
    assert entry["ping"] == "failed", entry
    assert "authori" in entry["pingMessage"].lower(), entry["pingMessage"]
    assert wrong not in table.out + table.err + as_json.out + as_json.err


def test_profile_status_exits_3_for_a_key_due_for_rotation(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    # In this process, where the test keyring holds the key (a child process has no keyring to read it from).
    from stablepay_console.api import ApiKey
    from stablepay_console.cli.main import main
    from stablepay_console.profiles.book import ProfileBook
    from stablepay_console.profiles.store import make_profile

    now = datetime.now(timezone.utc)
    book = ProfileBook()
    book.add(make_profile("aging", "sandbox", server.base_url), ApiKey(server.key),
             key_since=now - timedelta(days=345))
    assert main(["profile", "status", "--profile", "aging"]) == 3
    out = capsys.readouterr().out
    assert "due: rotate before" in out and "ok: pong" in out
    book.add(make_profile("old", "sandbox", server.base_url), ApiKey(server.key), key_since=now - timedelta(days=400))
    assert main(["profile", "status"]) == 4
    assert "OVERDUE" in capsys.readouterr().out


def test_export_and_list_all_write_the_same_rows(server: Server, tmp_path: Path) -> None:
    target = tmp_path / "expired.csv"
    exported = cli(server, "export", "--profile", "local", "--status", "expired", "--output", str(target))
    assert exported.code == 0, exported
    listed = cli(server, "rfis", "list", "--all", "--status", "expired", "--csv")
    assert listed.code == 0
    assert target.read_text(encoding="utf-8").splitlines() == listed.out.splitlines()
