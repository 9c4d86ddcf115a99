"""Two installed consoles in tmux on one team record (a real PostgreSQL): alice's and bob's.

Alice claims a request and marks it ready with a note in her console; bob's review queue shows it within 2 s;
bob approves it in his console; alice's detail, open all along, then says approved by bob. Bob's own ready
request is never in his queue (four eyes), and an approve the database refuses (carol approved first while bob's
note dialog was open) is said in the database's own words. Every wait polls the captured pane.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator

import psycopg
import pytest

from stablepay_console.cli.main import main
from stablepay_console.profiles.model import EMBEDDED_PROFILE
from stablepay_console.services.team.scope import server_key
from tests.postgres import TeamDb
from tests.terminal import Terminal, console_command
from tests.test_team_live import HEARD_WITHIN, URL

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

SERVER = server_key(EMBEDDED_PROFILE)


@pytest.fixture
def team_env(term_env: dict[str, str], team_db: TeamDb, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """`team_env("bob")`: the environment of bob's console; it also makes the shell commands run here bob's."""

    def of(role: str) -> dict[str, str]:
        monkeypatch.setenv(URL, team_db.url(role))
        return {**term_env, URL: team_db.url(role)}

    return of


def issued(env: dict[str, str], count: int) -> list[str]:
    """The first issued requests, in the inbox's order (newest first), as the installed console lists them."""
    listed = subprocess.run([console_command(), "rfis", "list", "--status", "issued", "--limit", str(count), "--json"],
                            env=env, capture_output=True, text=True, timeout=60, check=True)
    return [row["id"] for row in json.loads(listed.stdout)["data"]]


def cli(*argv: str) -> None:
    """A shell command, run in this process (as whoever `team_env` named last)."""
    assert main(list(argv)) == 0, argv


def toasts(screen: str) -> str:
    """The notifications' text on the pane (right of their ▌ edge), their wrapped lines joined by one space."""
    parts = [line.rsplit("▌", 1)[1] for line in screen.splitlines() if "▌" in line]
    return " ".join(" ".join(parts).split())


def said(words: str):  # type: ignore[no-untyped-def]
    def check(screen: str) -> bool:
        return " ".join(words.split()) in toasts(screen)

    check.__doc__ = f"a notification saying {words!r}"
    return check


def database_says(team_db: TeamDb, role: str, rfi_id: str, step: str) -> str:
    """What the team record's database answers `role` taking `step` on the request now, from the role's own psql."""
    with team_db.connect(role) as conn:
        try:
            with conn.transaction():
                conn.execute("INSERT INTO stablepay.triage (server, rfi_id, step, note) VALUES (%s, %s, %s, 'x')",
                             (SERVER, rfi_id, step))
        except psycopg.Error as exc:
            return str(exc.diag.message_primary)
    raise AssertionError(f"the database let {role} {step} {rfi_id}")


@pytest.fixture
def consoles(team_env) -> Iterator[tuple[Terminal, Terminal]]:  # type: ignore[no-untyped-def]
    alice = Terminal([console_command()], team_env("alice"))
    bob = Terminal([console_command()], team_env("bob"))
    try:
        yield alice, bob
    finally:
        alice.close()
        bob.close()


def loaded(screen: str) -> bool:
    """The inbox: its page line, its rows and its footer."""
    return "Page 1 of" in screen and " issued " in screen and "q Quit" in screen


QUEUE = "View: awaiting my review"
ONE = re.compile(r"Page 1 of 1, 1 total")
NONE = re.compile(r"\b0 total")


def queued(screen: str) -> list[str]:
    """The review queue's rows on the pane: each says who made it ready in its Step column (`ready ·alice`)."""
    return [line for line in screen.splitlines() if "ready ·" in line]


def test_alice_makes_ready_bob_reviews_and_approves_in_his_console(  # type: ignore[no-untyped-def]
    team_db: TeamDb, team_env, consoles: tuple[Terminal, Terminal]
) -> None:
    alice, bob = consoles
    first, own, snatched = issued(team_env("alice"), 3)
    cli("rfis", "claim", snatched)
    cli("rfis", "ready", snatched, "--note", "bank letter attached")
    team_env("bob")
    cli("rfis", "claim", own)
    cli("rfis", "ready", own, "--note", "my own answer")
    alice.wait_for(loaded)
    bob.wait_for(loaded)

    # Bob's queue: the answer alice made ready; never his own (four eyes), though it is ready too.
    bob.send("v")
    screen = bob.wait_for(QUEUE, ONE, "1 to review", lambda s: len(queued(s)) == 1)
    [row] = queued(screen)
    assert "ready ·alice" in row and "◆ alice" in row, row
    assert not any("·bob" in line or "◆ me" in line for line in screen.splitlines()), screen

    # Bob takes the approve on the highlighted row; carol approves it while his note dialog is open: the database
    # refuses bob's, and his console says so in the database's words.
    bob.send("A")
    bob.wait_for(f"Approve · {snatched}")
    team_env("carol")
    cli("rfis", "approve", snatched, "--note", "checked first")
    bob.type("looks right")
    bob.send("Enter")
    words = database_says(team_db, "bob", snatched, "approve")
    assert words.endswith("is approved; 'approve' needs it ready"), words
    bob.wait_for(said(f"Refused: {words}"))
    bob.wait_for(QUEUE, NONE, lambda s: not queued(s))  # approved: out of the queue

    # Alice claims the first request and marks it ready with a note, in her console.
    alice.send("Enter")
    alice.wait_for(f"Request for information {first}", "Triage: unclaimed")
    alice.send("m")
    alice.wait_for("Triage: claimed · held by alice", "R Mark ready")
    alice.send("R")
    alice.wait_for(f"Mark ready · {first}")
    alice.type("statement and ID checked")
    alice.send("Enter")
    alice.wait_for("Triage: ready · made ready by alice", said("Made ready; its step is now ready."))
    assert "A Approve" not in alice.screen(), "four eyes: alice is not offered her own answer's approval"

    # Bob's queue, open all along, shows it: the database's NOTIFY (no key pressed, no auto-refresh).
    screen = bob.wait_for(QUEUE, ONE, "1 to review", lambda s: len(queued(s)) == 1, timeout=HEARD_WITHIN)
    assert "ready ·alice" in queued(screen)[0]

    # Bob opens it and approves it in his console.
    bob.send("Enter")
    bob.wait_for(f"Request for information {first}", "Triage: ready · made ready by alice · held by alice",
                 "statement and ID checked", "A Approve")
    bob.send("A")
    bob.wait_for(f"Approve · {first}")
    bob.type("four eyes: checked")
    bob.send("Enter")
    approved = "Triage: approved · made ready by alice · approved by bob"
    bob.wait_for(approved, said("Approved; its step is now approved."))

    # Alice's detail, open all along, hears of it from the database.
    screen = alice.wait_for(approved, re.compile(r"bob\s+approve\s+four eyes: checked"))
    assert f"Request for information {first}" in screen
    for term in (alice, bob):
        term.send("q")
        term.wait_until_exited()
