"""The shell commands on a real terminal: production confirmation, tables on a TTY, NO_COLOR, a quick start."""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator

import pytest

from stablepay_console.cli.lookups import confirmed
from stablepay_console.sandbox.data import ONRAMP_OPEN_ID
from tests.cli_e2e import Server, add_profile, console, run, serve
from tests.hostile_server import HostileServer, hostile_server_fixture  # noqa: F401

HEAVY = ("pydantic", "httpx", "textual", "starlette")


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serve("--seed", "7", "--rfis", "40") as served:
        yield served


def on_terminal(args: list[str], *, profile: str, key: str, answer: str | None = None,
                env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run with a pseudo-terminal as stdin (`answer` typed into it) or as stdout (when no answer is given)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    environment = {**os.environ, "STABLEPAY_PROFILE": profile, "STABLEPAY_API_KEY": key, "TERM": "xterm-256color",
                   "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    for name in ("COLUMNS", "LINES", "NO_COLOR"):
        environment.pop(name, None)
    environment.update(env or {})
    typed = answer is not None
    process = subprocess.Popen([*console(), *args], env=environment, stdin=slave if typed else subprocess.DEVNULL,
                               stdout=subprocess.PIPE if typed else slave, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        if typed:
            os.write(master, answer.encode() + b"\n")  # the terminal keeps it until the command reads
            out, err = process.communicate(timeout=60)
            return process.returncode, out.decode(), err.decode()
        raw = b""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                raw += chunk
            elif process.poll() is not None:
                break
        process.wait(timeout=60)
        assert process.stderr is not None
        return process.returncode, raw.decode(), process.stderr.read().decode()
    finally:
        os.close(master)


# --- production ---------------------------------------------------------------------------------


def test_production_quote_refresh_refuses_without_yes_when_stdin_is_not_a_terminal(server: Server) -> None:
    # Pointed at a port where nothing listens: had anything been sent, this would be a network error.
    add_profile("prod", "production", "http://127.0.0.1:9")
    refused = run("quote", "refresh", ONRAMP_OPEN_ID, profile="prod", key=server.key)
    assert refused.code == 2 and refused.out == ""
    assert "production profile" in refused.err and "--yes" in refused.err and "Nothing was sent" in refused.err
    add_profile("prod-local", "production", server.base_url)
    done = run("quote", "refresh", ONRAMP_OPEN_ID, "--yes", "--json", profile="prod-local", key=server.key)
    assert done.code == 0, done
    assert json.loads(done.out)["transferDetails"]["id"] == ONRAMP_OPEN_ID


def refreshes(server: HostileServer) -> list[tuple[str, str]]:
    return [(method, path) for method, path in server.requests if path.endswith("/quote/refresh")]


REFUSALS = {
    "a bare Enter": "",
    "n": "n",
    "no": "no",
    "nope": "nope",
    "yes please": "yes please",
    "yes.": "yes.",
    "ye": "ye",
    "Ctrl+D": "\x04",
}
"""Answers a person types that must send nothing: only `y` or `yes` (any case) goes ahead (README)."""
YESES = ["y", "yes", "Y", "YES", "  yes  "]


@pytest.mark.parametrize("answer", [*YESES, *REFUSALS.values()], ids=[*YESES, *REFUSALS])
def test_only_y_or_yes_in_any_case_is_a_yes(answer: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The answer's rule, where it lives (`cli.lookups.confirmed`); the terminal tests below send a few of these
    through a real pty to the installed command. Ctrl+D on a terminal is the end of input: readline gives ''."""
    typed = "" if answer == "\x04" else answer + "\n"
    assert confirmed(io.StringIO(typed), "PRODUCTION, real money.") is (answer in YESES)
    assert capsys.readouterr().err == "PRODUCTION, real money. Type yes to go on: "


@pytest.mark.parametrize("answer", [REFUSALS["a bare Enter"], REFUSALS["no"], REFUSALS["Ctrl+D"]],
                         ids=["a bare Enter", "no", "Ctrl+D"])
def test_production_quote_refresh_sends_nothing_unless_the_answer_is_yes(
    hostile_server: HostileServer, answer: str
) -> None:
    add_profile("prod-counted", "production", hostile_server.url("normal"))
    code, out, err = on_terminal(["quote", "refresh", ONRAMP_OPEN_ID, "--json"], profile="prod-counted",
                                 key="sk_test_counted_0123456789", answer=answer)
    assert "PRODUCTION, real money" in err and "Type yes to go on" in err
    assert (code, out) == (2, ""), err
    assert "not confirmed; nothing was sent" in err
    assert hostile_server.requests == [], "a refused confirmation reached the server"


@pytest.mark.parametrize("answer", ["yes", "  YES  "])
def test_production_quote_refresh_goes_ahead_on_yes(hostile_server: HostileServer, answer: str) -> None:
    add_profile("prod-counted", "production", hostile_server.url("normal"))
    code, out, err = on_terminal(["quote", "refresh", ONRAMP_OPEN_ID, "--json"], profile="prod-counted",
                                 key="sk_test_counted_0123456789", answer=answer)
    assert code == 0, err
    assert json.loads(out)["transferType"] == "ONRAMP"
    assert refreshes(hostile_server) == [("POST", f"/case/normal/v2/onramps/{ONRAMP_OPEN_ID}/quote/refresh")]


def test_a_sandbox_profile_does_not_ask(server: Server) -> None:
    add_profile("local", "sandbox", server.base_url)
    result = run("quote", "refresh", ONRAMP_OPEN_ID, profile="local", key=server.key)
    assert result.code == 0 and "Type yes" not in result.err


# --- tables on a terminal, plain text with NO_COLOR ---------------------------------------------


def test_a_terminal_gets_a_table_and_no_color_gets_plain_text(server: Server) -> None:
    add_profile("local", "sandbox", server.base_url)
    code, table, _ = on_terminal(["rfis", "list", "--limit", "3"], profile="local", key=server.key)
    assert code == 0
    assert "┃" in table or "│" in table, table
    assert "\x1b[" in table  # styled for the terminal
    code, plain, _ = on_terminal(["rfis", "list", "--limit", "3"], profile="local", key=server.key,
                                 env={"NO_COLOR": "1"})
    assert code == 0
    assert "\x1b" not in plain and "│" not in plain and "┃" not in plain
    assert plain.replace("\r\n", "\n").splitlines()[0].split()[:3] == ["ID", "STATUS", "KIND"]


# --- a quick start ------------------------------------------------------------------------------

PROBE = """
import json, sys
import stablepay_console.cli as cli
code = None
try:
    code = cli.main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in {heavy!r} if m in sys.modules)
sys.stderr.write("\\nPROBE " + json.dumps({{"code": code, "heavy": heavy}}) + "\\n")
"""


USAGE_ERRORS = [
    ["rfis", "due", "--within", "soon"],
    ["rfis", "list", "--user-id", "not-a-uuid"],
    ["rfis", "watch", "--interval", "5s"],
    ["batch", "get", "6f1c2a10-5b7e-4c1d-9a33-00000000005"],
    ["sandbox", "serve", "--host", "203.0.113.7"],
    ["export", "--status", "pending"],
    ["no-such-command"],
]
"""Each is refused as bad usage (exit 2) before anything is sent."""


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--version"], 0),
        (["--help"], 0),
        (["rfis", "--help"], 0),
        (["rfis", "due", "--help"], 0),
        *((argv, 2) for argv in USAGE_ERRORS),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else f"exit {value}",
)
def test_help_version_and_usage_errors_load_no_heavy_library(argv: list[str], code: int) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv], capture_output=True, text=True,
                          timeout=60)
    probe = json.loads(done.stderr.rsplit("PROBE ", 1)[1])
    assert probe["code"] == code, done.stderr
    assert probe["heavy"] == [], f"{' '.join(argv)} imported {probe['heavy']}"


def test_a_real_command_does_load_them() -> None:
    """The probe can tell: a command that talks to the API imports the client stack."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), "ping"], capture_output=True, text=True,
                          timeout=60)
    probe = json.loads(done.stderr.rsplit("PROBE ", 1)[1])
    assert probe["code"] == 0 and {"pydantic", "httpx", "starlette"} <= set(probe["heavy"])
