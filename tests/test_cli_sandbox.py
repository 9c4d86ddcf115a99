"""`stablepay-console sandbox serve` refuses bad arguments the argparse way: exit 2, a usage line, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from stablepay_console.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--port", "abc"], "'abc' is not a whole number"),
        (["--port", "0"], "'0' is not a port (1-65535)"),
        (["--port", "65536"], "is not a port"),
        (["--port", "-1"], "must not be negative"),
        (["--port", ""], "is not a whole number"),
        (["--rfis", "-5"], "'-5' must not be negative"),
        (["--rfis", "lots"], "not a whole number"),
        (["--seed", "-1"], "must not be negative"),
        (["--error-rate", "1.5"], "must be between 0 and 1"),
        (["--rate-limit-rate", "-0.1"], "must be between 0 and 1"),
        (["--malformed-rate", "half"], "is not a number"),
        (["--latency", "61"], "between 0 and 60 seconds"),
        (["--latency", "soon"], "not a number of seconds"),
        (["--colour", "blue"], "unrecognized arguments: --colour blue"),
        (["extra"], "unrecognized arguments: extra"),
    ],
)
def test_bad_serve_arguments(args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sandbox", "serve", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: stablepay-console")
    assert fragment in err
    assert "Traceback" not in err


def test_sandbox_needs_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sandbox"])
    assert exited.value.code == 2
    assert "usage: stablepay-console sandbox" in capsys.readouterr().err


def test_serve_defaults() -> None:
    args = build_parser().parse_args(["sandbox", "serve"])
    assert (args.host, args.port, args.seed, args.rfis) == ("127.0.0.1", 8787, 7, 240)
    assert (args.latency, args.error_rate, args.rate_limit_rate, args.malformed_rate) == (0.0, 0.0, 0.0, 0.0)
    args = build_parser().parse_args(
        ["sandbox", "serve", "--host", "::1", "--port", "9000", "--seed", "3", "--rfis", "50000", "--latency", "0.5"]
    )
    assert (args.host, args.port, args.seed, args.rfis, args.latency) == ("::1", 9000, 3, 50_000, 0.5)


def test_serve_help_lists_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sandbox", "serve", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for option in ("--host", "--port", "--seed", "--rfis", "--latency", "--error-rate", "--malformed-rate"):
        assert option in out


def test_the_installed_command_reports_without_a_traceback() -> None:
    script = Path(sys.executable).parent / "stablepay-console"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "stablepay_console"]
    result = subprocess.run(
        [*command, "sandbox", "serve", "--port", "99999", "--rfis", "-1"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "error: argument --port: '99999' is not a port (1-65535)" in result.stderr
    assert "Traceback" not in result.stderr
