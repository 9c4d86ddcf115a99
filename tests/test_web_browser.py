"""The console in a real browser: Debian's chromium driven by Playwright, at 1280x800.

The terminal draws into a canvas, so what it shows is read from the WebSocket frames the page receives
(fed to a pyte screen); the clipboard is read from the browser itself.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from stablepay_console.sandbox import Sandbox
from tests.conftest import CANARY_KEY, FIXED_NOW
from tests.web_harness import free_port, headless_chromium, open_console, wait_until, web_server

pytestmark = pytest.mark.browser


@pytest.fixture
def chromium() -> Iterator[object]:
    with headless_chromium() as browser:
        yield browser


def served_sandbox(port: int) -> tuple[threading.Thread, object]:
    """The sandbox over loopback HTTP in this process, knowing the canary key."""
    import uvicorn

    sandbox = Sandbox(now=FIXED_NOW)
    sandbox.add_key(CANARY_KEY, "canary")
    server = uvicorn.Server(uvicorn.Config(sandbox.app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert wait_until(lambda: server.started, 20)
    return thread, server


def test_sign_in_inbox_detail_and_copy_link_at_1280x800(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    with web_server(isolated_config, spare=True) as server:
        browser = open_console(chromium, server.signin_line)
        page = browser.page
        assert page.url == f"{server.base}/"  # the token left the address bar
        assert browser.wait_for(lambda t: "SANDBOX" in t and " issued " in t), browser.terminal.text
        assert [u.split("?")[0] for u in browser.sockets] == [f"ws://127.0.0.1:{server.port}/ws"]
        page.screenshot(path=str(isolated_config.parent / "inbox.png"))
        browser.press("Enter")  # the first row's detail
        assert browser.wait_for(lambda t: "Copy link" in t or "Back" in t), browser.terminal.text
        browser.press("l")
        assert browser.wait_for(lambda t: "Copied" in t, 20), browser.terminal.text
        copied = browser.copied()
        assert copied and copied[-1].startswith("https://"), copied
        assert page.evaluate("navigator.clipboard.readText()") == copied[-1]  # on the browser's clipboard
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15), "the console outlived its tab"


def test_a_canary_key_never_reaches_the_browser(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    from tests.cli_e2e import add_profile

    port = free_port()
    thread, sandbox_server = served_sandbox(port)
    try:
        add_profile("canary", "sandbox", f"http://127.0.0.1:{port}")
        env = {"STABLEPAY_PROFILE": "canary", "STABLEPAY_API_KEY": CANARY_KEY}
        with web_server(isolated_config, env=env) as server:
            browser = open_console(chromium, server.signin_line)
            assert browser.wait_for(lambda t: "pong" in t and " issued " in t), browser.terminal.text
            browser.press("5")  # profiles and keys: read-only, the key masked
            assert browser.wait_for(lambda t: "read-only" in t), browser.terminal.text
            for key in ("a", "e", "r"):  # no key entry, no edit, no rotation
                browser.press(key)
            browser.page.wait_for_timeout(300)
            assert "Add a profile" not in browser.terminal.text and "Rotate" not in browser.terminal.text
            browser.press("1")
            assert browser.wait_for(lambda t: " issued " in t)
            downloads: list = []  # type: ignore[type-arg]
            browser.page.on("download", lambda d: downloads.append(d))  # Chromium reports it on the opener
            browser.press("e")
            assert browser.wait_for(lambda t: "Delivered to your browser" in t, 20), browser.terminal.text
            browser.press("Enter")  # the page opens /download/KEY in a new tab, which becomes the download
            assert browser.wait_for(lambda t: bool(downloads), 60), browser.terminal.text
            download = downloads[0]
            saved = isolated_config.parent / "download.csv"
            download.save_as(saved)
            assert re.fullmatch(r"rfis-[A-Za-z0-9._-]+\.csv", download.suggested_filename)
            data = saved.read_bytes()
            assert data.count(b"\n") > 10
            frames = b"".join(browser.terminal.frames) + "".join(browser.terminal.texts).encode()
            everything = [*browser.bodies, frames, data, server.log().encode(), server.signin_line.encode()]
            for blob in everything:
                assert CANARY_KEY.encode() not in blob
                assert CANARY_KEY[-12:].encode() not in blob
            assert browser.page.evaluate("navigator.clipboard.readText()").find(CANARY_KEY) < 0
            browser.context.close()
            assert wait_until(lambda: not server.consoles(), 15)
    finally:
        sandbox_server.should_exit = True  # type: ignore[attr-defined]
        thread.join(10)


def test_the_terminal_has_the_keys_and_the_footer_from_the_first_load(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    """No click: the console's footer shows its keys on the first screen, and a key typed at once works. The
    server has no keyring (the harness's 'fail' backend): its operator's advice never reaches the browser, and
    the profiles table uses the page's width."""
    with web_server(isolated_config) as server:
        browser = open_console(chromium, server.signin_line, click=False)
        assert browser.wait_for(lambda t: " issued " in t), browser.terminal.text
        assert browser.wait_for(lambda t: "q Quit" in t and "n Next" in t, 20), browser.terminal.text
        browser.press("5")
        assert browser.wait_for(lambda t: "read-only" in t and "Key age" in t, 20), browser.terminal.text
        assert "keyring" not in browser.terminal.text.lower(), browser.terminal.text
        # The table takes the browser's width: whole names, not cut to their headers' widths ("embedde").
        assert browser.wait_for(lambda t: "embedded-production" in t and "in-process sandbox" in t, 20), \
            browser.terminal.text
        browser.press("2")
        assert browser.wait_for(lambda t: "Transfer ID" in t, 20), browser.terminal.text
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15)


def test_the_console_starts_with_its_page_and_takes_the_tabs_size(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    """The page starts its tab's console as it is served, at a guessed size (a new server's: 80x24); the tab's
    size (1280x800: over 100 columns) wins once it attaches. A reload's console starts at that size at once."""
    with web_server(isolated_config, spare=True) as server:
        browser = open_console(chromium, server.signin_line, click=False)
        assert browser.wait_for(lambda t: " issued " in t and "q Quit" in t), browser.terminal.text
        wide = lambda t: max(len(line.rstrip()) for line in t.splitlines()) > 100  # noqa: E731
        assert browser.wait_for(wide, 20), browser.terminal.text
        assert server.log().count("(started with its page)") == 1, server.log()
        browser.page.reload()
        assert wait_until(lambda: server.log().count("(started with its page)") == 2, 60), server.log()
        assert browser.wait_for(lambda t: " issued " in t and wide(t), 60), browser.terminal.text
        browser.context.close()
        assert wait_until(lambda: not server.consoles(), 15)
