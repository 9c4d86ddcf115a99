"""`profile add/edit/list`: the key is checked with /ping before it is saved, and dated from its creation."""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from stablepay_console.api import ApiKey, StablePayClient
from stablepay_console.cli.commands import entry_of
from stablepay_console.cli.main import build_parser
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import entry_name
from stablepay_console.profiles.model import Profile
from stablepay_console.profiles.rotation import FileProgress, Step
from stablepay_console.profiles.store import ProfileStore
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from tests.conftest import CANARY_KEY, FIXED_NOW, no_canary_in

URL = "https://api.sandbox.stablepay.test"


def jwt(payload: dict[str, object]) -> str:
    def part(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(payload)}.c2lnbmF0dXJl"


class Cli:
    """`stablepay-console profile …` with its server answered by an in-process sandbox (or nothing at all)."""

    def __init__(self, sandbox: Sandbox | None) -> None:
        self.sandbox = sandbox
        self.book = ProfileBook(clock=lambda: FIXED_NOW)
        self.out = io.StringIO()

    def client_for(self, profile: Profile, key: ApiKey) -> StablePayClient:
        if self.sandbox is None:
            def down(request: httpx.Request) -> httpx.Response:
                raise httpx.ConnectError("connection refused", request=request)

            return StablePayClient(profile.base_url, key, transport=httpx.MockTransport(down))
        return StablePayClient(profile.base_url, key, transport=httpx.ASGITransport(app=self.sandbox.app))

    def __call__(self, *argv: str, stdin: str = "") -> int:
        args = build_parser().parse_args(["profile", *argv])
        self.out = io.StringIO()
        entry = entry_of(args)
        assert entry is not None
        return entry.runner()(args, io.StringIO(stdin + "\n"), self.out, book=self.book,  # type: ignore[call-arg]
                              client_for=self.client_for)

    @property
    def said(self) -> str:
        return self.out.getvalue()


@pytest.fixture
def cli(sandbox: Sandbox) -> Cli:
    return Cli(sandbox)


def add(cli: Cli, *extra: str, key: str = SANDBOX_KEY) -> int:
    return cli("add", "team", "--environment", "sandbox", "--base-url", URL, *extra, stdin=key)


def test_add_checks_the_key_with_ping_before_saving_it(cli: Cli, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    assert add(cli) == 0
    assert "The key works against https://api.sandbox.stablepay.test" in cli.said
    assert cli.sandbox is not None and cli.sandbox.api_calls() == [("GET", "/ping")]
    assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY
    assert "counts from 2026-11-20 (today" in cli.said


def test_an_unauthorised_key_is_refused_with_the_servers_message_read_once(
    cli: Cli, memory_keyring, capsys: pytest.CaptureFixture[str]  # type: ignore[no-untyped-def]
) -> None:
    assert add(cli, key=CANARY_KEY) == 1
    err = capsys.readouterr().err
    assert "refused the key (Not authorized). Nothing was saved." in err
    assert "Not authorized: Not authorized" not in err and ".)." not in err and ".." not in err
    assert "sandbox environment" in err
    assert no_canary_in(err + cli.said)
    assert ProfileStore().profiles() == [] and memory_keyring.entries == {}


def test_no_verify_saves_without_a_ping_and_says_so(cli: Cli) -> None:
    assert add(cli, "--no-verify", key=CANARY_KEY) == 0
    assert "Not checked: with --no-verify the key was not tried" in cli.said
    assert cli.sandbox is not None and cli.sandbox.api_calls() == []
    assert ProfileStore().get("team") is not None


def test_an_unreachable_server_saves_nothing_and_names_the_way_round(capsys: pytest.CaptureFixture[str]) -> None:
    cli = Cli(None)
    assert add(cli) == 1
    err = capsys.readouterr().err
    assert "could not be checked against https://api.sandbox.stablepay.test (Network error" in err
    assert "--no-verify" in err
    assert ProfileStore().profiles() == []


def test_the_key_checks_message_cuts_a_base_url_over_120_characters(capsys: pytest.CaptureFixture[str]) -> None:
    long_url = URL + "/" + "a" * (121 - len(URL) - 1)  # 121 characters: one over
    cli = Cli(None)
    assert cli("add", "team", "--environment", "sandbox", "--base-url", long_url, stdin=SANDBOX_KEY) == 1
    err = capsys.readouterr().err
    assert f"could not be checked against {long_url[:119]}… (Network error" in err


def test_key_created_dates_the_key_and_list_says_rotation_due(cli: Cli) -> None:
    assert add(cli, "--key-created", "2025-12-01") == 0
    assert "counts from 2025-12-01 (as given)" in cli.said
    assert ProfileBook().key_since(Profile("team", "sandbox", URL)) == datetime(2025, 12, 1, tzinfo=timezone.utc)
    assert cli("list") == 0
    assert "Rotation due: 11 months" in cli.said
    assert "Rotation due (rotate at least every 12 months" in cli.said
    assert "team: The key is 11 months old (created 2025-12-01): rotate it before 2026-12-01." in cli.said


def test_a_jwt_key_is_dated_by_its_iat_without_any_network_call_for_it(sandbox: Sandbox) -> None:
    issued = FIXED_NOW - timedelta(days=400)
    key = jwt({"sub": "team", "iat": int(issued.timestamp())})
    sandbox.add_key(key, "a JWT key")
    cli = Cli(sandbox)
    assert add(cli, key=key) == 0
    assert f"counts from {issued:%Y-%m-%d} (from the key's own issue date (iat))" in cli.said
    assert sandbox.api_calls() == [("GET", "/ping")], "the one call is the check, not for the date"
    assert cli.book.age(Profile("team", "sandbox", URL)).level == "overdue"


@pytest.mark.parametrize(
    ("payload", "why"),
    [({"iat": "yesterday"}, "not a number"), ({"iat": 4_102_444_800}, "in the future"), ({"sub": "x"}, "no iat")],
)
def test_a_jwt_without_a_usable_iat_is_dated_today(sandbox: Sandbox, payload: dict[str, object], why: str) -> None:
    key = jwt(payload)
    sandbox.add_key(key)
    cli = Cli(sandbox)
    assert add(cli, key=key) == 0, why
    assert "counts from 2026-11-20 (today" in cli.said, why


@pytest.mark.parametrize("text", ["2025-13-01", "yesterday", "2027-01-01", "1999-12-31", "\x1b[2J"])
def test_a_bad_creation_date_is_refused_before_the_key_is_asked(
    cli: Cli, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert add(cli, "--key-created", text) == 2
    err = capsys.readouterr().err
    assert "creation date" in err and "\x1b" not in err
    assert cli.sandbox is not None and cli.sandbox.api_calls() == []


def test_edit_replaces_the_key_after_a_ping_and_corrects_its_date(cli: Cli, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    assert add(cli, "--no-verify", key=CANARY_KEY) == 0
    assert cli("edit", "team", "--new-key", stdin=SANDBOX_KEY) == 0
    assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY
    assert cli("edit", "team", "--key-created", "2026-01-15") == 0
    assert ProfileBook().key_since(Profile("team", "sandbox", URL)) == datetime(2026, 1, 15, tzinfo=timezone.utc)
    assert cli("edit", "team", "--new-key", stdin=CANARY_KEY) == 1
    assert memory_keyring.entries[("stablepay-console", "team")] == SANDBOX_KEY, "a refused key replaces nothing"
    assert cli("edit", "team", "--base-url", "https://eu.sandbox.stablepay.test") == 0
    assert ProfileStore().get("team").profile.base_url == "https://eu.sandbox.stablepay.test"  # type: ignore[union-attr]


def test_list_says_a_rotation_is_pending(cli: Cli) -> None:
    assert add(cli) == 0
    FileProgress("team").save({"step": int(Step.DELETE_OLD), "profile": "team"})
    assert cli("list") == 0
    assert "A key rotation of team is pending: it stopped at step 5 of 6 (Delete the old key" in cli.said


def test_the_key_never_reaches_argv_output_or_the_profiles_file(cli: Cli, isolated_config) -> None:  # type: ignore[no-untyped-def]
    cli.sandbox.add_key(CANARY_KEY)  # type: ignore[union-attr]
    assert add(cli, key=CANARY_KEY) == 0
    assert no_canary_in(cli.said)
    assert no_canary_in((isolated_config / "profiles.toml").read_text(encoding="utf-8"))
    assert cli.book.keys.get(entry_name("team")) == ApiKey(CANARY_KEY)


# --- a newcomer on a machine without a keyring ---------------------------------------------------------------------


def console(*argv: str) -> subprocess.CompletedProcess[str]:
    """The installed command, as a newcomer types it, on a machine with no keyring (keyring's `fail` backend)."""
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    return subprocess.run([sys.executable, "-m", "stablepay_console", *argv], capture_output=True, text=True,
                          env=env, timeout=120, stdin=subprocess.DEVNULL)


def test_a_profile_added_without_default_never_locks_the_console_out() -> None:
    """add without --default, list, use embedded, start: the console starts on the built-in sandbox throughout,
    and `profile list` names the built-in profiles."""
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.runtime.boot import built_in_start

    no_keyring = console("profile", "add", "localprod", "--environment", "production", "--base-url",
                         "https://api.example.com")  # a key asked for: nowhere to keep it, said once
    assert no_keyring.returncode == 2
    assert no_keyring.stderr.count("No system keyring was found") == 1
    assert no_keyring.stderr.count("STABLEPAY_API_KEY") == 1 and "--no-key" in no_keyring.stderr
    added = console("profile", "add", "localprod", "--environment", "production", "--base-url",
                    "https://api.example.com", "--no-key")
    assert added.returncode == 0, added.stderr
    assert "The console still starts on embedded" in added.stdout
    assert ProfileStore().load().default is None, "adding a profile did not make it the start profile"
    assert built_in_start(None) == EMBEDDED_PROFILE

    listed = console("profile", "list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[1] if line.startswith("*") else line.split()[0]: line
            for line in listed.stdout.splitlines()[1:4]}
    assert set(rows) == {"embedded", "embedded-production", "localprod"}
    assert rows["embedded"].startswith("*") and "built-in" in rows["embedded"]
    assert "built-in" in rows["embedded-production"] and "built-in" not in rows["localprod"]

    used = console("profile", "use", "localprod")
    assert used.returncode == 0
    refused = console()  # the console on localprod, with no key here: refused before its UI, said once, a way back
    assert refused.returncode == 2
    assert refused.stderr.count("No system keyring was found") == 1
    assert "profile use embedded" in refused.stderr

    back = console("profile", "use", "embedded")
    assert back.returncode == 0, back.stderr
    assert "The console now starts on embedded (sandbox)." in back.stdout
    assert built_in_start(None) == EMBEDDED_PROFILE
    started = console("ping")
    assert started.returncode == 0, started.stderr


def test_a_built_in_profile_cannot_be_edited_or_removed_and_removing_the_default_goes_back_to_it(cli: Cli) -> None:
    assert add(cli, "--default") == 0
    assert ProfileStore().load().default == "team"
    assert cli("remove", "embedded") == 2
    assert cli("remove", "team") == 0
    assert ProfileStore().load().default is None, "no other profile became the start profile"
