"""A web server that could not start a console refuses to start, saying why as a shell command would, before
it prints any address; a console that ends on its own, or a tab refused one, says why in the page."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from stablepay_console.profiles.store import ProfileStore
from tests.cli_e2e import add_profile
from tests.web_harness import headless_chromium, open_console, wait_until, web_server

NO_KEYRING = {"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}


@pytest.fixture
def chromium() -> Iterator[object]:
    with headless_chromium() as browser:
        yield browser


def run(config: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "STABLEPAY_CONFIG_DIR": str(config), **NO_KEYRING, **env}
    return subprocess.run([sys.executable, "-m", "stablepay_console", *args], capture_output=True, text=True,
                          timeout=60, env=environment, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize(("web", "shell", "env", "said"), [
    (["web"], ["rfis", "list"], {"STABLEPAY_PROFILE": "prod"}, "'prod', which is not a profile here"),
    (["web", "--profile", "prod"], ["rfis", "list"], {}, "'prod', which is not a profile here"),
    (["web"], [], {"STABLEPAY_PROFILE": "live"}, "Profile 'live' has no usable key"),
    (["web", "--trusted-header", "X-Forwarded-User", "--trusted-proxy", "127.0.0.1"], ["record", "status"],
     {"STABLEPAY_RECORD_URL": "postgresql://stablepay_web@127.0.0.1:1/compliance"},
     "The team record at 127.0.0.1:1/compliance cannot be reached"),
], ids=["no-such-profile", "no-such-profile-flag", "no-key", "record-unreachable"])
def test_a_server_that_cannot_start_a_console_refuses_to_start(
        isolated_config: Path, web: list[str], shell: list[str], env: dict[str, str], said: str) -> None:
    if env.get("STABLEPAY_PROFILE") == "live":
        add_profile("live", "production", "https://api.example.com")  # its key is nowhere
    served = run(isolated_config, *web, env=env)
    assert served.returncode == 2 and served.stdout == "", served  # no address printed: nothing to open
    assert said in served.stderr
    # The same words as a shell command (or the console itself) says, run as each console would be started.
    as_console = {**env, "STABLEPAY_PROFILE": web[2]} if "--profile" in web else env
    shell_said = run(isolated_config, *shell, env=as_console)
    assert shell_said.returncode != 0
    assert served.stderr.strip().splitlines()[-1] == shell_said.stderr.strip().splitlines()[-1]


@pytest.mark.browser
def test_a_console_that_ends_on_its_own_says_why_in_the_page(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    add_profile("live", "production", "https://api.example.com")
    env = {"STABLEPAY_PROFILE": "live", "STABLEPAY_API_KEY": "sk_live_0123456789abcdef0123456789"}
    with web_server(isolated_config, env=env) as server:
        ProfileStore().remove("live")  # the operator removed the profile after the server started
        browser = open_console(chromium, server.signin_line, click=False)
        page = browser.page
        message = page.locator(".closed-dialog .message")
        page.locator("body.-closed").wait_for(state="attached", timeout=60_000)
        assert wait_until(lambda: "not a profile here" in message.inner_text(), 10), message.inner_text()
        assert message.inner_text() == (
            "Your console could not start: STABLEPAY_PROFILE names 'live', which is not a profile here. "
            "Add it with `stablepay-console profile add` (the file keeps no key).")
        assert message.is_visible() and not page.locator(".intro-dialog").is_visible()  # no spinner left
        assert wait_until(lambda: "session failed user=" in server.log(), 15), server.log()
        assert "not a profile here" in server.log()
        assert server.out_path.read_text().strip() == server.signin_line  # its stderr is not dumped on stdout
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15)


@pytest.mark.browser
def test_a_tab_over_the_per_user_limit_says_why_in_the_page(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    with web_server(isolated_config, "--max-sessions-per-user", "1") as server:
        first = open_console(chromium, server.signin_line)
        assert first.wait_for(lambda t: " issued " in t), first.terminal.text
        second = first.context.new_page()  # the same browser's sign-in, a second tab
        second.goto(f"{server.base}/")
        second.locator("body.-closed").wait_for(state="attached", timeout=60_000)
        message = second.locator(".closed-dialog .message")
        assert message.inner_text() == ("No console for you here: you have 1 consoles open, the limit per user; "
                                        "close a tab first")
        assert message.is_visible() and not second.locator(".intro-dialog").is_visible()
        assert len(server.consoles()) == 1
        first.context.close()
        assert wait_until(lambda: not server.consoles(), 15)


# --- configurations in which no sign-in could get a console --------------------------------------------------------


def test_token_sign_in_with_a_team_record_is_refused_naming_the_trusted_header() -> None:
    from stablepay_console.web.settings import WebSettings
    from stablepay_console.web.signin import startup_refusal

    why = startup_refusal(WebSettings(), team=True, server_user="svc-console")
    assert why is not None
    assert "--trusted-header" in why and "svc-console" in why and "not a person of the team" in why
    assert ("Sign people in through your sign-in proxy instead: --trusted-header NAME (with --trusted-proxy ADDRESS "
            "or --socket PATH), and each console acts as the signed-in person's own role") in why, "what to do instead"
    # A trusted header names each person: that can work with a team record; a token without a team record too.
    assert startup_refusal(WebSettings(trusted_header="X-Forwarded-User"), team=True, server_user="svc-console") is None
    assert startup_refusal(WebSettings(), team=False, server_user="alice") is None


@pytest.mark.parametrize(("settings", "user", "said"), [
    ({}, "bad name!", "cannot name a console user"),
    ({"max_sessions": 0}, "alice", "at least one console"),
    ({"max_sessions_per_user": 0}, "alice", "at least one console"),
], ids=["account-name", "no-console-at-all", "none-per-user"])
def test_every_other_configuration_no_sign_in_could_use_is_refused(settings: dict[str, int], user: str,
                                                                   said: str) -> None:
    from stablepay_console.web.settings import WebSettings
    from stablepay_console.web.signin import startup_refusal

    why = startup_refusal(WebSettings(**settings), team=False, server_user=user)  # type: ignore[arg-type]
    assert why is not None and said in why


def test_one_console_in_all_and_one_a_person_is_enough_to_start() -> None:
    from stablepay_console.web.settings import WebSettings
    from stablepay_console.web.signin import startup_refusal

    one = WebSettings(max_sessions=1, max_sessions_per_user=1)
    assert startup_refusal(one, team=False, server_user="alice") is None


def test_web_with_a_team_record_and_token_sign_in_exits_2_before_serving(isolated_config: Path) -> None:
    """Nothing listens and no database is asked: the port's address is never printed, the record's is unreachable."""
    served = run(isolated_config, "web", env={"STABLEPAY_RECORD_URL": "postgresql://stablepay_web@127.0.0.1:1/c"})
    assert served.returncode == 2 and served.stdout == "", served
    assert "--trusted-header" in served.stderr and "token sign-in" in served.stderr
    assert "cannot be reached" not in served.stderr, "refused on its flags, before any connection"
