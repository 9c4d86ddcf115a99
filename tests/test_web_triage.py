"""Triage in two real browsers (Debian's chromium driven by Playwright) on one web server with a team record on a
real PostgreSQL: alice and bob each signed in through the proxy's header; alice claims a request and marks it
ready with a note, bob finds it in his review queue and approves it, alice's open detail then says it is
approved by bob, and her evidence pack arrives in her browser as one zip whose audit entries hold both steps.

What each console shows is read from the WebSocket frames its page receives (the terminal draws into a canvas).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import TeamDb, authenticator
from tests.test_web_evidence import server_leftovers
from tests.test_web_team import PROXY
from tests.web_harness import VIEWPORT, Browser, SignInProxy, free_port, headless_chromium, wait_until, web_server

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

TITLE = re.compile(r"Request for information ([0-9a-f-]{36})")
APPROVED = "Triage: approved · made ready by alice · approved by bob"


@pytest.fixture
def chromium() -> Iterator[object]:
    with headless_chromium() as browser:
        yield browser


def signed_in(chromium, proxy: SignInProxy, user: str) -> Browser:  # type: ignore[no-untyped-def]
    """A page of the console for `user`, signed in through the stand-in for the sign-in proxy (its session cookie
    names the user; the proxy puts that in the header on every request the page makes, the WebSocket's too),
    focused by a click on the banner's corner."""
    context = chromium.new_context(viewport=VIEWPORT)
    context.add_cookies([{"name": SignInProxy.COOKIE, "value": user, "url": proxy.base}])
    browser = Browser(context, context.new_page())
    browser.page.goto(f"{proxy.base}/")
    browser.page.locator("#terminal").click(position={"x": 4, "y": 4})
    return browser


def loaded(user: str):  # type: ignore[no-untyped-def]
    def check(text: str) -> bool:
        return " issued " in text and f" {user} " in text and "refreshing" not in text and "n Next" in text

    return check


def test_ready_in_alices_browser_approved_in_bobs_and_the_evidence_downloaded(  # type: ignore[no-untyped-def]
    isolated_config: Path, team_db: TeamDb, chromium, tmp_path_factory: pytest.TempPathFactory
) -> None:
    env = {"STABLEPAY_RECORD_URL": team_db.url(authenticator(team_db, "alice", "bob"))}
    port = free_port()
    with SignInProxy(port) as proxy, web_server(isolated_config, *PROXY, "--public-url", proxy.base, env=env,
                                               port=port) as server:
        alice = signed_in(chromium, proxy, "alice")
        bob = signed_in(chromium, proxy, "bob")
        assert alice.wait_for(loaded("alice")), alice.terminal.text
        assert bob.wait_for(loaded("bob")), bob.terminal.text

        alice.press("Enter")  # the first request's detail
        assert alice.wait_for(lambda t: "Triage: unclaimed" in t, 30), alice.terminal.text
        found = TITLE.search(alice.terminal.text)
        assert found, alice.terminal.text
        rfi = found.group(1)
        alice.press("m")
        assert alice.wait_for(lambda t: "Triage: claimed · held by alice" in t and "R Mark ready" in t, 30), \
            alice.terminal.text
        alice.press("R")
        assert alice.wait_for(lambda t: f"Mark ready · {rfi}" in t, 30), alice.terminal.text
        alice.page.keyboard.type("statement and ID checked")
        alice.press("Enter")
        assert alice.wait_for(lambda t: "Triage: ready · made ready by alice" in t, 30), alice.terminal.text
        assert "A Approve" not in alice.terminal.text, "four eyes: alice is not offered her own answer's approval"

        bob.press("v")  # his review queue: the one answer someone else made ready
        assert bob.wait_for(lambda t: "View: awaiting my review" in t and "Page 1 of 1, 1 total" in t
                            and "ready ·alice" in t, 30), bob.terminal.text
        bob.press("Enter")
        assert bob.wait_for(lambda t: f"Request for information {rfi}" in t
                            and "Triage: ready · made ready by alice · held by alice" in t
                            and "statement and ID checked" in t and "A Approve" in t, 30), bob.terminal.text
        bob.press("A")
        assert bob.wait_for(lambda t: f"Approve · {rfi}" in t, 30), bob.terminal.text
        bob.page.keyboard.type("four eyes: checked")
        bob.press("Enter")
        assert bob.wait_for(lambda t: APPROVED in t, 30), bob.terminal.text

        # Alice's detail, open all along, hears of it from the database (no key pressed).
        assert alice.wait_for(lambda t: APPROVED in t
                              and re.search(r"bob\s+approve\s+four eyes: checked", t) is not None, 30), \
            alice.terminal.text

        # Alice downloads the evidence pack: one zip to her browser, whose audit entries hold both steps.
        downloads: list = []  # type: ignore[type-arg]
        alice.page.on("download", lambda d: downloads.append(d))  # Chromium reports it on the opener
        alice.press("e")
        assert alice.wait_for(lambda t: bool(downloads), 60), alice.terminal.text
        [download] = downloads
        name = download.suggested_filename
        assert re.fullmatch(rf"evidence-{rfi}-\d{{8}}T\d{{6}}Z\.zip", name), name
        saved = tmp_path_factory.mktemp("alice") / name  # her own disk, not the server's
        download.save_as(saved)
        with zipfile.ZipFile(io.BytesIO(saved.read_bytes())) as packed:
            audit = json.loads(packed.read(f"{name.removesuffix('.zip')}/audit.json"))
        steps = [(e["action"], e["actor"], e["outcome"], e["detail"].get("note")) for e in audit["entries"]
                 if e["action"].startswith("triage.")]
        assert steps == [("triage.ready", "alice", "ready", "statement and ID checked"),
                         ("triage.approve", "bob", "approved", "four eyes: checked")]
        assert server_leftovers(isolated_config.parent) == [], "the pack stayed on the server"
        for browser in (alice, bob):
            browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15), "a console outlived its tab"
    with team_db.connect() as conn:
        kept = conn.execute("SELECT rfi_id, step, actor, note FROM stablepay.triage ORDER BY id").fetchall()
    assert kept == [(rfi, "ready", "alice", "statement and ID checked"), (rfi, "approve", "bob", "four eyes: checked")]
