"""The web server's rules for consoles, in the test process (web/server.py through tests/web_inprocess.py): the
same application `stablepay-console web` serves, whose consoles run the small script of
tests/test_web_consoles_rules.py (it speaks textual-serve's packets, echoes what it is sent and writes down the
rest) in place of the console, so no console, terminal or browser starts.

- a tab's WebSocket gets a console: its keys, resizes, focus and blur reach it, a ping is answered, and the
  console ends with the tab;
- the page starts its console and the tab claims it; a page no tab claims ends its console;
- a tab over the caps is told why, in the page, and gets no console;
- sign-out ends the sign-in's cookie and its consoles, and nobody else's;
- the page names its WebSocket and statics on the public URL, at the font size asked;
- a download is only for the sign-in whose console made it;
- /healthz is never cached, a resize stays within bounds, a refused tab is closed as a policy refusal;
- a team record that cannot be reached refuses the page and the tab, in words, and starts no console;
- the sign-in line and the listening line; the whole run (listen, print the link, SIGTERM, the socket removed).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import html
import json
import logging
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from stablepay_console.web.pages import REASON_MESSAGE, SIGNED_OUT
from stablepay_console.web.proxy import unix_socket
from stablepay_console.web.server import ConsoleServer
from stablepay_console.web.settings import WebSettings
from stablepay_console.web.signin import COOKIE, SignIns
from tests.conftest import settles
from tests.test_web_consoles_rules import SCRIPT
from tests.web_harness import free_port, need_web
from tests.web_inprocess import TOKEN, USER, Served, served

DELIVERS = """
    if kind == b"M" and json.loads(payload)["type"] == "deliver_chunk_request":
        from textual_serve._binary_encode import dump
        sent = globals().get("chunks_sent", 0)
        globals()["chunks_sent"] = sent + 1
        packet(b"P", dump(["deliver_chunk", json.loads(payload)["key"], [b"id,amount\\n", b"1,5\\n", b""][sent]]))
"""
CONSOLE = SCRIPT.replace('    if kind == b"D":\n', DELIVERS.lstrip("\n") + '    if kind == b"D":\n', 1)
"""The script, which also sends a file it was asked for in chunks (textual-serve's packed packets), then the end."""
assert CONSOLE != SCRIPT


class Scripted:
    def __init__(self, tmp_path: Path) -> None:
        self.script = tmp_path / "console.py"
        self.script.write_text(CONSOLE)
        self.record = tmp_path / "record"

    def command(self, mode: str = "plain") -> str:
        return f"exec {sys.executable} {self.script} {mode} {self.record}"

    def notes(self, kind: str) -> list[Any]:
        if not self.record.exists():
            return []
        rows = [json.loads(line) for line in self.record.read_text().splitlines()]
        return [value for k, value in rows if k == kind]


@pytest.fixture
def scripted(tmp_path: Path) -> Scripted:
    return Scripted(tmp_path)


@contextlib.asynccontextmanager
async def web_with(caplog: pytest.LogCaptureFixture, scripted: Scripted, mode: str = "plain",
                   **changes: Any) -> AsyncIterator[Served]:
    """The server's application whose consoles run the script in `mode`; every console left is stopped after."""
    async with served(caplog, dataclasses.replace(WebSettings(), **changes)) as web:
        web.server.command = scripted.command(mode)
        try:
            yield web
        finally:
            for process, _ in list(web.server.consoles.running.values()):
                await process.stop()


def signed(cookie: str) -> dict[str, str]:
    return {"Cookie": f"{COOKIE}={cookie}"}


async def tab(web: Served, cookie: str, query: str = "") -> aiohttp.ClientWebSocketResponse:
    headers = {"Origin": web.settings.origin, **signed(cookie)}
    return await web.client.ws_connect(f"/ws{query}", headers=headers)


async def until_binary(ws: aiohttp.ClientWebSocketResponse, wanted: bytes) -> list[Any]:
    """What the tab gets until a binary frame holding `wanted` (text frames decoded)."""
    got: list[Any] = []
    while True:
        message = await ws.receive(timeout=30)
        assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
        got.append(json.loads(message.data) if message.type == aiohttp.WSMsgType.TEXT else message.data)
        if message.type == aiohttp.WSMsgType.BINARY and wanted in message.data:
            return got


async def told(ws: aiohttp.ClientWebSocketResponse) -> str:
    """The reason the page shows in place of its console; the socket then closes."""
    message = await ws.receive(timeout=30)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    kind, why = json.loads(message.data)
    assert kind == REASON_MESSAGE
    closing = await ws.receive(timeout=30)
    assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED), closing
    return str(why)


async def test_a_tab_gets_a_console_that_reads_its_keys_resizes_focus_and_pings_and_ends_with_it(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        ws = await tab(web, cookie, "?width=900&height=2")
        hand_over = await settles_notes(scripted, "first")
        assert hand_over[0][1]["width"] == 500 and hand_over[0][1]["height"] == 5  # the size, within its bounds
        await until_binary(ws, b"x" * 2000)
        await ws.send_bytes(b"binary frames are not keys")
        await ws.send_str(json.dumps({"not": "a list"}))
        await ws.send_str("[]")
        await ws.send_str(json.dumps(["stdin", 5]))
        await ws.send_str(json.dumps(["resize", {"width": 3, "height": 1000}]))
        await ws.send_str(json.dumps(["resize", {"width": "wide"}]))
        await ws.send_str(json.dumps(["blur"]))
        await ws.send_str(json.dumps(["focus"]))
        await ws.send_str(json.dumps(["ping", "p-1"]))
        await ws.send_str(json.dumps(["stdin", "héllo"]))
        got = await until_binary(ws, "echo:héllo".encode())
        assert ["pong", "p-1"] in got
        metas = [m for m in scripted.notes("M")]
        assert [m["type"] for m in metas] == ["resize", "resize", "blur", "focus"]
        assert (metas[0]["width"], metas[0]["height"]) == (10, 300)
        assert (metas[1]["width"], metas[1]["height"]) == (80, 24)
        assert scripted.notes("D") == ["héllo"]
        assert web.consoles() == 1
        await ws.close()
        await settles(lambda: web.consoles() == 0, "the console outlived its tab")
        assert logged(web, f"session start user={USER} console=[0-9a-f]{{8}} pid=[0-9]+ from=127\\.0\\.0\\.1")
        assert logged(web, f"session end user={USER} console=[0-9a-f]{{8}} after=[0-9]+\\.[0-9]s")


def logged(web: Served, pattern: str) -> list[str]:
    """The access log's lines that are `pattern` whole (a regular expression): a line's words and fields, not a
    part of it."""
    return [line for line in web.log().splitlines() if re.fullmatch(pattern, line)]


async def settles_notes(scripted: Scripted, kind: str) -> list[Any]:
    await settles(lambda: bool(scripted.notes(kind)), f"the console noted no {kind}", rounds=3000)
    return scripted.notes(kind)


async def test_a_message_that_is_not_json_ends_the_session(caplog: pytest.LogCaptureFixture,
                                                           scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        ws = await tab(web, await web.signin_cookie())
        await until_binary(ws, b"x" * 2000)
        await ws.send_str("{not json")
        closing = await ws.receive(timeout=30)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        await settles(lambda: web.consoles() == 0, "the console outlived its session")


async def test_the_page_starts_its_console_once_and_its_tab_claims_it(caplog: pytest.LogCaptureFixture,
                                                                     scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        assert await web.head("/", signed(cookie)) == 200
        assert web.consoles() == 0  # a HEAD starts nothing
        assert (await web.get("/", signed(cookie)))[0] == 200
        assert (await web.get("/", signed(cookie)))[0] == 200
        assert len(web.server.consoles.waiting) == 1 and len(web.server.consoles.running) == 1
        assert logged(web, f"console started for a page user={USER} console=[0-9a-f]{{8}}")
        ws = await tab(web, cookie, "?width=100&height=30")
        await until_binary(ws, b"x" * 2000)
        assert not web.server.consoles.waiting and len(web.server.consoles.running) == 1
        assert logged(web, f"session start user={USER} console=[0-9a-f]{{8}} pid=[0-9]+ from=127\\.0\\.0\\.1 "
                           "\\(started with its page\\)")
        await ws.send_str(json.dumps(["stdin", "sync"]))
        await until_binary(ws, b"echo:sync")
        # it started at the guessed size, and was resized to the tab's once drawn
        assert [(m["width"], m["height"]) for m in scripted.notes("M") if m["type"] == "resize"] == [(100, 30)]
        await ws.close()
        await settles(lambda: web.consoles() == 0, "the console outlived its tab")


async def test_a_console_its_page_started_ends_when_no_tab_claims_it(caplog: pytest.LogCaptureFixture,
                                                                    scripted: Scripted) -> None:
    async with web_with(caplog, scripted, unclaimed_seconds=0.5) as web:
        cookie = await web.signin_cookie()
        assert (await web.get("/", signed(cookie)))[0] == 200
        (process, _), = web.server.consoles.running.values()
        await settles(lambda: web.consoles() == 0, "an unclaimed console kept running", rounds=3000)
        assert logged(web, f"console unclaimed user={USER} console={process.app_service_id[:8]}: no tab attached")
        assert process.task is None or process.task.done()


async def test_a_console_its_page_started_ends_when_it_draws_too_much_before_a_tab_claims_it(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted, mode="flood") as web:
        cookie = await web.signin_cookie()
        assert (await web.get("/", signed(cookie)))[0] == 200
        (process, _), = web.server.consoles.running.values()
        await settles(lambda: web.consoles() == 0, "a console that drew too much kept running", rounds=3000)
        assert logged(web, f"console unclaimed user={USER} console={process.app_service_id[:8]}: it drew too much")


async def test_a_tab_over_the_cap_is_told_why_and_gets_no_console(caplog: pytest.LogCaptureFixture,
                                                                 scripted: Scripted) -> None:
    async with web_with(caplog, scripted, max_sessions=1) as web:
        cookie = await web.signin_cookie()
        first = await tab(web, cookie)
        await until_binary(first, b"x" * 2000)
        assert (await web.get("/", signed(cookie)))[0] == 200
        assert not web.server.consoles.waiting  # the page over the cap starts nothing
        second = await tab(web, cookie)
        why = await told(second)
        assert why == "No console for you here: the server runs its limit of 1 consoles; try again later"
        assert web.consoles() == 1
        assert logged(web, f"refused console user={USER}: the server runs its limit of 1 consoles; try again later")
        await first.close()


async def test_sign_out_ends_its_cookie_and_its_consoles_and_nobody_elses(caplog: pytest.LogCaptureFixture,
                                                                          scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        mine, other = await web.signin_cookie(), await web.signin_cookie()
        ws = await tab(web, mine)
        await until_binary(ws, b"x" * 2000)
        theirs = await tab(web, other)
        await until_binary(theirs, b"x" * 2000)
        async with web.client.post("/signout", headers={"Origin": web.settings.origin, **signed(mine)},
                                   allow_redirects=False) as response:
            assert response.status == 200
            assert f"<h1>Signed out</h1><p>{html.escape(SIGNED_OUT)}</p>" in await response.text()
            assert response.headers["Cache-Control"] == "no-store"
            assert response.headers["Referrer-Policy"] == "no-referrer"
            assert response.headers["Content-Type"].startswith("text/html")
            assert f"{COOKIE}=\"\"" in response.headers["Set-Cookie"] and "Path=/" in response.headers["Set-Cookie"]
        closing = await ws.receive(timeout=30)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        await settles(lambda: web.consoles() == 1, "the signed-out console kept running")
        assert (await web.get("/", signed(mine)))[0] == 401
        assert (await web.get("/", signed(other)))[0] == 200
        assert logged(web, f"sign-out user={USER} from=127\\.0\\.0\\.1 session=[0-9a-f]{{8}} consoles=1")
        await theirs.send_str(json.dumps(["stdin", "still here"]))
        await until_binary(theirs, b"echo:still here")
        await theirs.close()


async def test_a_console_that_ends_on_its_own_tells_its_tab_why(caplog: pytest.LogCaptureFixture,
                                                               scripted: Scripted) -> None:
    async with web_with(caplog, scripted, mode="fails") as web:
        ws = await tab(web, await web.signin_cookie())
        why = await told(ws)
        assert why.startswith("Your console could not start: no profile named")
        assert logged(web, f"session failed user={USER} console=[0-9a-f]{{8}}: .*last words")
        await ws.close()


async def test_the_page_names_its_websocket_and_statics_on_the_public_url_at_the_font_size_asked(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        status, page, headers = await web.get("/?fontsize=20", signed(cookie))
        base = web.settings.base_url
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert f"ws:{base.split(':', 1)[1]}/ws" in page and "wss:" not in page
        assert f'src="{base}/static/js/textual.js' in page and f'href="{base}/static/css/xterm.css' in page
        assert 'data-font-size="20"' in page
        assert "ws:" + base.split(":", 1)[1] in headers["Content-Security-Policy"]
    async with web_with(caplog, scripted, public_url="https://console.example.com") as web:
        cookie = await web.signin_cookie()
        _, page, _ = await web.get("/?fontsize=70", signed(cookie))
        assert "wss://console.example.com/ws" in page and 'data-font-size="6"' in page
        _, page, _ = await web.get("/?fontsize=64", signed(cookie))
        assert 'data-font-size="16"' in page
        _, page, _ = await web.get("/?fontsize=big", signed(cookie))
        assert 'data-font-size="16"' in page


async def test_a_download_is_only_for_the_sign_in_whose_console_made_it(caplog: pytest.LogCaptureFixture,
                                                                       scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        mine, other = await web.signin_cookie(), await web.signin_cookie()
        ws = await tab(web, mine)
        await until_binary(ws, b"x" * 2000)
        (process, _), = web.server.consoles.running.values()
        await web.server.download_manager.create_download(
            app_service=process, delivery_key="k0123456789abcdef", file_name="report.csv", open_method="download",
            mime_type="text/csv")
        status, body, _ = await web.get("/download/k0123456789abcdef", signed(other))
        assert status == 404 and "textual" not in body.lower()
        assert "<h1>Not found</h1><p>no such download for this sign-in</p>" in body
        assert (await web.get("/download/unknown0123456789", signed(mine)))[0] == 404
        async with web.client.get("/download/k0123456789abcdef", headers=signed(mine)) as response:
            assert response.status == 200
            assert await response.read() == b"id,amount\n1,5\n"
            assert response.headers["Content-Disposition"] == 'attachment; filename="report.csv"'
            assert response.headers["Content-Type"] == "text/csv"
        assert logged(web, f"download user={USER} file=report\\.csv")
        await ws.close()


async def test_healthz_is_never_kept_by_a_cache(caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        status, body, headers = await web.get("/healthz")
        assert (status, body) == (200, "ok")
        assert headers["Cache-Control"] == "no-store"  # a cache between would answer for a server that is gone


async def test_a_resize_is_kept_within_bounds_and_a_resize_that_is_not_a_size_is_ignored(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        ws = await tab(web, await web.signin_cookie())
        await until_binary(ws, b"x" * 2000)
        await ws.send_str(json.dumps(["resize", "wide"]))  # not a size: nothing happens, the session goes on
        await ws.send_str(json.dumps(["resize", {"width": 501, "height": 2}]))
        await ws.send_str(json.dumps(["resize", {"height": 30}]))
        await ws.send_str(json.dumps(["resize", {"width": 100, "height": "tall"}]))
        await ws.send_str(json.dumps(["stdin", "after"]))
        await until_binary(ws, b"echo:after")
        sizes = [(m["width"], m["height"]) for m in scripted.notes("M") if m["type"] == "resize"]
        assert sizes == [(500, 5), (80, 30), (100, 24)]
        await ws.close()


async def test_a_tab_told_why_it_has_no_console_is_closed_as_a_policy_refusal(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted, max_sessions=0) as web:
        ws = await tab(web, await web.signin_cookie())
        message = await ws.receive(timeout=30)
        assert json.loads(message.data)[0] == REASON_MESSAGE
        closing = await ws.receive(timeout=30)
        assert closing.type == aiohttp.WSMsgType.CLOSE
        assert (closing.data, closing.extra) == (aiohttp.WSCloseCode.POLICY_VIOLATION, "no console")


async def test_a_team_record_that_cannot_be_reached_refuses_the_page_and_the_tab_and_starts_nothing(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    """No console starts without knowing who it acts as: an unreachable team record is a refusal, in words."""
    from stablepay_console.storage.postgres.url import parse

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]  # bound, never listening: a connection is refused at once
    try:
        async with web_with(caplog, scripted) as web:
            web.server.team = parse(f"postgresql://ops@127.0.0.1:{port}/team?connect_timeout=5")
            cookie = await web.signin_cookie()
            status, page, headers = await web.get("/", signed(cookie))
            why = await told(await tab(web, cookie))
            prefix = "No console for you here: "
            assert why.startswith(prefix) and f"127.0.0.1:{port}/team" in why
            reason = why.removeprefix(prefix)
            assert status == 403 and headers["Content-Type"].startswith("text/html")
            assert f"<h1>No console for you here</h1><p>{html.escape(reason)}</p>" in page
            assert headers["Cache-Control"] == "no-store"
            assert web.consoles() == 0 and not scripted.notes("first")
            assert len(logged(web, re.escape(f"refused console user={USER}: {reason}"))) == 2
    finally:
        closed.close()


def test_the_sign_in_line_is_a_url_to_open_and_the_listening_line_says_where_and_how() -> None:
    token = WebSettings(host="127.0.0.1", port=8123)
    server = ConsoleServer(token, SignIns(token, USER, token=TOKEN))
    assert server.sign_in_line() == f"http://127.0.0.1:8123/?token={TOKEN}"
    assert server.listening_line() == ("listening on 127.0.0.1:8123 for http://127.0.0.1:8123/; people sign in with "
                                       "the link printed on standard output")
    proxied = WebSettings(host="127.0.0.1", port=8123, public_url="https://console.example.com",
                          trusted_header="X-Forwarded-User", proxy_secret="s" * 32, socket_path="/run/sc.sock")
    server = ConsoleServer(proxied, SignIns(proxied, USER), listener=socket.socket())
    try:
        assert server.sign_in_line() == "https://console.example.com/"
        assert server.listening_line() == (
            f"listening on the socket {proxied.socket_path} for https://console.example.com/; people sign in "
            "through the proxy's X-Forwarded-User header with the proxy's secret")
        no_secret = dataclasses.replace(proxied, proxy_secret="")
        server.settings = no_secret
        assert server.listening_line().endswith("through the proxy's X-Forwarded-User header")
    finally:
        assert server.listener is not None
        server.listener.close()


async def test_the_server_listens_prints_its_link_and_on_sigterm_ends_its_consoles_and_removes_its_socket(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str],
        scripted: Scripted) -> None:
    """The whole run in this process: the link on standard output only once it listens, the listening line in the
    log, a console served through the socket, and SIGTERM ending it all with the socket file gone."""
    path = str(tmp_path / "console.sock")
    settings = WebSettings(socket_path=path, public_url="https://console.example.com",
                           trusted_header="X-Forwarded-User", spare=False)
    server = ConsoleServer(settings, SignIns(settings, USER), listener=unix_socket(path))
    server.command = scripted.command()
    caplog.set_level(logging.INFO, logger="stablepay_console.web.access")
    serving = asyncio.create_task(server._serve())
    await settles(lambda: "https://console.example.com/\n" in capsys.readouterr().out or serving.done(),
                  "the server printed no link", rounds=3000)
    assert not serving.done()
    assert any("listening on the socket" in r.getMessage() for r in caplog.records)
    async with aiohttp.ClientSession(connector=aiohttp.UnixConnector(path=path)) as client:
        async with client.get("http://console/healthz") as response:
            assert (response.status, await response.text()) == (200, "ok")
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(serving, 30)
    assert not os.path.exists(path)
    assert any("server stopped" in r.getMessage() for r in caplog.records)


async def test_a_tabs_size_that_is_not_a_number_or_out_of_bounds_is_the_default_or_the_bound(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        for query in ("?width=wide&height=301", "?width=10&height=tall"):
            ws = await tab(web, cookie, query)
            await until_binary(ws, b"x" * 2000)
            await ws.close()
            await settles(lambda: web.consoles() == 0, "the console outlived its tab")
        sizes = [(first[1]["width"], first[1]["height"]) for first in scripted.notes("first")]
        assert sizes == [(80, 300), (10, 24)]


async def test_the_next_page_starts_its_console_at_the_size_of_the_sign_ins_last_tab(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        ws = await tab(web, cookie, "?width=100&height=30")
        await until_binary(ws, b"x" * 2000)
        await ws.close()
        await settles(lambda: web.consoles() == 0, "the console outlived its tab")
        assert (await web.get("/", signed(cookie)))[0] == 200
        await settles(lambda: len(scripted.notes("first")) == 2, "the page's console read no hand-over", rounds=3000)
        assert (scripted.notes("first")[1][1]["width"], scripted.notes("first")[1][1]["height"]) == (100, 30)


async def test_a_tab_claims_the_console_its_page_started_even_at_the_cap(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    """The page's console counts against the caps already: its own tab is not refused for it."""
    async with web_with(caplog, scripted, max_sessions=1, max_sessions_per_user=1) as web:
        cookie = await web.signin_cookie()
        assert (await web.get("/", signed(cookie)))[0] == 200
        ws = await tab(web, cookie)
        await until_binary(ws, b"x" * 2000)
        assert web.consoles() == 1 and not logged(web, "refused console .*")
        await ws.close()


async def test_a_user_over_their_own_cap_is_told_why_and_gets_no_console(
        caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted, max_sessions_per_user=1) as web:
        cookie = await web.signin_cookie()
        first = await tab(web, cookie)
        await until_binary(first, b"x" * 2000)
        assert (await web.get("/", signed(cookie)))[0] == 200
        assert not web.server.consoles.waiting  # the page over the cap starts nothing
        why = await told(await tab(web, cookie))
        assert why == "No console for you here: you have 1 consoles open, the limit per user; close a tab first"
        assert web.consoles() == 1
        await first.close()


async def test_a_message_over_a_mebibyte_ends_the_session(caplog: pytest.LogCaptureFixture,
                                                          scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        ws = await tab(web, await web.signin_cookie())
        await until_binary(ws, b"x" * 2000)
        await ws.send_str(json.dumps(["stdin", "k" * (1 << 20)]))
        closing = await ws.receive(timeout=30)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert closing.data == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        await settles(lambda: web.consoles() == 0, "the console outlived its session")
        assert not scripted.notes("D")


async def test_an_idle_console_is_ended(caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted, idle_seconds=0.8) as web:
        ws = await tab(web, await web.signin_cookie())
        await until_binary(ws, b"x" * 2000)
        (process, _), = web.server.consoles.running.values()
        closing = await ws.receive(timeout=30)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        await settles(lambda: web.consoles() == 0, "an idle console kept running")
        assert logged(web, f"session idle user={USER} console={process.app_service_id[:8]}")


async def test_a_download_in_text_says_its_charset(caplog: pytest.LogCaptureFixture, scripted: Scripted) -> None:
    async with web_with(caplog, scripted) as web:
        cookie = await web.signin_cookie()
        ws = await tab(web, cookie)
        await until_binary(ws, b"x" * 2000)
        (process, _), = web.server.consoles.running.values()
        await web.server.download_manager.create_download(
            app_service=process, delivery_key="k0123456789abcdef", file_name="report.csv", open_method="download",
            mime_type="text/csv", encoding="utf-8")
        async with web.client.get("/download/k0123456789abcdef", headers=signed(cookie)) as response:
            assert response.status == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
            await response.read()
        await ws.close()


async def test_the_server_listens_on_its_host_only_and_never_logs_the_sign_in_token(
        caplog: pytest.LogCaptureFixture) -> None:
    """aiohttp's own access log would write each request's path, `?token=…` included: it is off.

    The host is one a listener would not pick by itself (any of 127.0.0.0/8 is this machine's)."""
    need_web()
    settings = WebSettings(host="127.0.0.2", port=free_port(), spare=False)
    server = ConsoleServer(settings, SignIns(settings, USER, token=TOKEN))
    caplog.set_level(logging.DEBUG)
    runner = await server.runner()
    try:
        await server.listen(runner)
        assert runner.addresses == [("127.0.0.2", settings.port)]
        async with aiohttp.ClientSession() as client, client.get(
                f"{settings.base_url}/?token={TOKEN}", allow_redirects=False) as response:
            assert response.status == 303
    finally:
        await runner.cleanup()
    assert caplog.records and not [r for r in caplog.records if TOKEN in r.getMessage()]


async def test_the_server_caps_its_connections_at_what_the_process_file_limit_leaves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that may open 1,024 files takes fewer connections than the usual cap, not more than it can serve."""
    need_web()
    import resource

    from stablepay_console.web.connections import FILES_KEPT, MAX_CONNECTIONS
    assert 1024 - FILES_KEPT < MAX_CONNECTIONS
    monkeypatch.setattr(resource, "getrlimit", lambda which: (1024, 1024))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: None)
    settings = WebSettings(host="127.0.0.1", port=free_port(), spare=False)
    server = ConsoleServer(settings, SignIns(settings, USER, token=TOKEN))
    runner = await server.runner()
    try:
        await server.listen(runner)
        (site,) = runner.sites
        assert site.limits.total == 1024 - FILES_KEPT  # type: ignore[attr-defined]
    finally:
        await runner.cleanup()
