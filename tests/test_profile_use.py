"""`profile use NAME`: afterwards the headless commands and the console start on NAME, without --profile.

Two configured profiles against one served sandbox over loopback: `alpha` (sandbox, the default) and
`bravo` (production). The key is given the way cron and CI give it, in STABLEPAY_API_KEY without
STABLEPAY_PROFILE, so it belongs to whichever profile is the default.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from tests.cli_e2e import Server, run, serve
from tests.terminal import Terminal, console_command


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serve("--seed", "7", "--rfis", "40") as served:
        yield served


def where(err: str) -> str:
    """The profile a headless command ran on, from its closing note on stderr (`profile NAME · environment`)."""
    found = re.search(r"profile (\S+) · (sandbox|production) ·", err)
    assert found, err
    return f"{found.group(1)} {found.group(2)}"


@pytest.mark.e2e
def test_profile_use_makes_the_commands_and_the_console_start_on_it(
    server: Server, term_env: dict[str, str]
) -> None:
    for name, environment, extra in (("alpha", "sandbox", ["--default"]), ("bravo", "production", [])):
        added = run("profile", "add", name, "--environment", environment, "--base-url", server.base_url,
                    "--no-key", *extra)
        assert added.code == 0, added.err

    before = run("ping", "--json", key=server.key)
    assert before.code == 0, before.err
    assert where(before.err) == "alpha sandbox", "the default profile is alpha to begin with"

    used = run("profile", "use", "bravo")
    assert used.code == 0, used.err
    assert "The console now starts on bravo (production)." in used.out

    pinged = run("ping", "--json", key=server.key)
    assert pinged.code == 0, pinged.err
    assert json.loads(pinged.out) == {"message": "pong"}
    assert where(pinged.err) == "bravo production"
    listed = run("rfis", "list", "--json", "--limit", "2", key=server.key)
    assert listed.code == 0, listed.err
    assert len(json.loads(listed.out)["data"]) == 2
    assert where(listed.err) == "bravo production"

    console = Terminal([console_command()], {**term_env, "STABLEPAY_API_KEY": server.key})
    try:
        screen = console.wait_for("PRODUCTION: real money", " bravo · ping ✓", re.compile(r"Page 1 of \d+"))
        banner = screen.split("\n", 1)[0]
        assert "PRODUCTION: real money" in banner and " bravo · ping ✓" in banner, screen
        assert "alpha" not in banner and "SANDBOX" not in banner, screen
        console.send("q")
        console.wait_until_exited()
    finally:
        console.close()


def test_profile_use_of_an_unknown_name_changes_nothing(server: Server) -> None:
    added = run("profile", "add", "alpha", "--environment", "sandbox", "--base-url", server.base_url,
                "--no-key", "--default")
    assert added.code == 0, added.err
    refused = run("profile", "use", "nobody")
    assert refused.code == 2 and "There is no profile named 'nobody'" in refused.err
    pinged = run("ping", key=server.key)
    assert pinged.code == 0, pinged.err
    assert where(pinged.err) == "alpha sandbox"
