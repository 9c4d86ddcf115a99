"""The console when `stablepay-console web` runs it (STABLEPAY_WEB_USER set): who is signed in shows in the
banner, profiles and keys are read-only and say why, links go to the browser only when safe, and the
web server's own pieces (file names, sign-ins, settings) refuse what they must."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from textual.pilot import Pilot

from stablepay_console.sandbox import Sandbox
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.web.downloads import download_headers, safe_file_name
from stablepay_console.web.proxy import from_trusted, secret_matches
from stablepay_console.web.settings import WebSettings, check_public_url
from stablepay_console.web.signin import SignIns, valid_user
from tests.conftest import open_mode, wait_for_workers
from tests.test_profiles_screen import build_app


@pytest.fixture
def in_browser(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("STABLEPAY_WEB_USER", "alice")
    return "alice"


def opened(app: ConsoleApp, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr(app, "open_url", lambda url, new_tab=True: urls.append(url))
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda url: pytest.fail("the server must never run a browser"))
    return urls


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_the_banner_names_who_signed_in(sandbox: Sandbox, in_browser: str, size: tuple[int, int]) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=size) as pilot:
        await wait_for_workers(pilot)
        banner = str(app.screen.query_one("EnvironmentBanner").render())
        assert " alice " in banner and "SANDBOX" in banner


async def test_no_name_in_a_terminal(sandbox: Sandbox) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_workers(pilot)
        assert " alice " not in str(app.screen.query_one("EnvironmentBanner").render())


async def test_profiles_and_keys_are_read_only_in_a_browser(sandbox: Sandbox, in_browser: str) -> None:
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mode(pilot, "profiles")
        said = str(screen.query_one("#profiles-read-only").render())
        assert "read-only" in said and "server" in said
        for key in ("a", "e", "x", "d", "r"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key  # no form, no confirmation, no rotation wizard
        for action in ("add", "edit", "remove", "make_default", "rotate"):
            assert screen.check_action(action, ()) is False
        assert screen.check_action("use", ()) is True


async def test_profiles_stay_editable_in_a_terminal(sandbox: Sandbox) -> None:
    app = build_app(sandbox, opens_on="profiles")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_mode(pilot, "profiles")
        assert not screen.query("#profiles-read-only")
        assert screen.check_action("add", ()) is True


@pytest.mark.parametrize("link", [
    "javascript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
    "http://evil.example/", "vbscript:msgbox", "https://ex\x1bample.com/", "//evil.example/x",
])
async def test_a_hostile_link_never_reaches_the_browser(
    sandbox: Sandbox, in_browser: str, link: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        urls = opened(app, monkeypatch)
        copies: list[str] = []
        monkeypatch.setattr(app, "copy_to_clipboard", copies.append)
        app.open_link(link)
        app.copy_link(link)
        await pilot.pause()
        assert urls == [] and copies == []


@pytest.mark.parametrize("link", ["https://hosted.example/rfi/abc", "http://127.0.0.1:8787/rfi/abc"])
async def test_a_safe_link_opens_in_a_new_tab(
    sandbox: Sandbox, in_browser: str, link: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = build_app(sandbox)
    async with app.run_test(size=(80, 24)) as pilot:
        urls = opened(app, monkeypatch)
        app.open_link(link)
        await pilot.pause()
        assert urls == [link]


async def test_the_metric_export_is_a_download(sandbox: Sandbox, in_browser: str, monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Any) -> None:
    from stablepay_console.tui.screens import metrics

    monkeypatch.chdir(tmp_path)
    delivered: list[tuple[bytes, str]] = []
    monkeypatch.setattr(metrics, "deliver_bytes", lambda app, data, name: delivered.append((data, name)))
    app = build_app(sandbox, opens_on="metrics")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_mode(pilot, "metrics")
        await _run_first_bookmark(pilot)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert screen is not None
    assert delivered and delivered[0][1].endswith(".csv") and delivered[0][0].count(b"\n") > 1
    assert list(tmp_path.glob("*.csv")) == []


async def _run_first_bookmark(pilot: Pilot[Any]) -> None:
    from textual.widgets import OptionList

    bookmarks = pilot.app.screen.query_one(OptionList)
    bookmarks.focus()
    await pilot.press("enter")
    await wait_for_workers(pilot)


# --- the web server's pieces ---------------------------------------------------------------------


@pytest.mark.parametrize(("name", "safe"), [
    ("rfis-2026.csv", "rfis-2026.csv"), ("../../etc/passwd", "etc_passwd"),
    ('a"; filename=x.html', "a_filename_x.html"),
    ("\r\nSet-Cookie: x", "Set-Cookie_x"), ("", "download"), (".hidden", "hidden"), ("é.csv", "csv"),
])
def test_download_file_names_are_safe(name: str, safe: str) -> None:
    assert safe_file_name(name) == safe


def test_a_download_is_never_rendered_in_the_page() -> None:
    headers = download_headers("x.html", "text/html", "utf-8")
    assert headers["Content-Type"] == "application/octet-stream"
    assert headers["Content-Disposition"] == 'attachment; filename="x.html"'
    assert download_headers("x.csv", "text/csv", "utf-8")["Content-Type"] == "text/csv; charset=utf-8"


@pytest.mark.parametrize("name", ["alice", "bob.smith", "a_b-c@example.com"])
def test_valid_user_names(name: str) -> None:
    assert valid_user(name)


@pytest.mark.parametrize("name", ["", "alice bob", "alice;", "$(id)", "a" * 64, "-rf", "ali\nce", "ålice"])
def test_invalid_user_names(name: str) -> None:
    assert not valid_user(name)


def test_the_header_counts_from_a_trusted_proxy_only() -> None:
    networks = (ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.0.0.0/8"))
    settings = WebSettings(trusted_header="X-Forwarded-User", trusted_proxies=networks)
    signins = SignIns(settings, "root")
    assert from_trusted("10.1.2.3", networks) and not from_trusted("127.0.0.2", networks)
    assert not from_trusted(None, networks) and not from_trusted("nonsense", networks)
    assert isinstance(signins.by_header("127.0.0.1", "alice; DROP"), str)
    assert signins.by_header("127.0.0.1", None) is None
    first = signins.by_header("127.0.0.1", "alice")
    assert not isinstance(first, str) and first is not None and first.user == "alice"
    assert signins.by_header("127.0.0.1", "alice") is first


def test_the_proxys_secret_is_compared_whole() -> None:
    secret = "0f3c9a7e5b1d4c8a9e2f6b3d7a1c5e9f"
    assert secret_matches(secret, secret)
    for given in (None, "", secret[:-1], secret + "0", secret.upper(), f" {secret}", "é" * 32):
        assert not secret_matches(given, secret), given


def test_the_token_is_fresh_and_compared_whole() -> None:
    one, two = SignIns(WebSettings(), "root"), SignIns(WebSettings(), "root")
    assert one.token != two.token and len(one.token) >= 40
    assert one.token_matches(one.token) and not one.token_matches(one.token[:-1]) and not one.token_matches("")


def test_the_public_url_decides_the_origin() -> None:
    assert WebSettings(port=8001).origin == "http://127.0.0.1:8001"
    settings = WebSettings(public_url=check_public_url("https://Console.Example.com/"))
    assert settings.origin == "https://console.example.com" and settings.https
    assert WebSettings(public_url="https://console.example.com:443").origin == "https://console.example.com"
    assert WebSettings(public_url="http://[::1]:8000").origin == "http://[::1]:8000"
    for bad in ("javascript:alert(1)", "https://x.example/?a=1", "ftp://x.example", "https://u:p@x.example",
                "https://x.example/sub"):
        with pytest.raises(ValueError):
            check_public_url(bad)


@pytest.mark.parametrize(("url", "allowed"), [
    ("https://hosted.example/rfi/1", True), ("http://127.0.0.1:8787/x", True), ("javascript:alert(1)", False),
    ("data:text/html,x", False), ("http://evil.example/", False), (None, False), ("https://a b.example/", False),
])
def test_the_server_passes_on_only_safe_links(url: object, allowed: bool) -> None:
    from stablepay_console.web.consoles import link_allowed

    assert link_allowed(url) is allowed


async def test_an_unsafe_open_url_from_a_console_never_reaches_the_browser() -> None:
    import json

    from textual_serve.download_manager import DownloadManager

    from stablepay_console.web.consoles import ConsoleProcess

    sent: list[str] = []

    class Tab:
        """Where the console's output goes once its tab attaches (a WebSocket's three methods)."""

        async def send_str(self, text: str) -> None:
            sent.append(text)

        async def send_bytes(self, data: bytes) -> None:
            return None

        async def close(self) -> None:
            return None

    process = ConsoleProcess("true", download_manager=DownloadManager(), settings=WebSettings(), team=False)
    await process.attach(Tab())
    for url in ("javascript:alert(document.cookie)", "https://hosted.example/rfi/1"):
        await process.on_meta(json.dumps({"type": "open_url", "url": url, "new_tab": False}).encode())
    assert [json.loads(s) for s in sent] == [["open_url", {"url": "https://hosted.example/rfi/1", "new_tab": True}]]


def test_in_a_browser_the_local_record_names_who_signed_in(in_browser: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.services.notes import author_for

    assert author_for("embedded") == "alice"
    monkeypatch.delenv("STABLEPAY_WEB_USER")
    assert author_for("embedded") != "alice"
