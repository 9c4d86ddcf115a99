"""An export in the browser: a download announced to its own tab, fetched only by the sign-in whose console
made it, with a safe file name, and never left on the server's disk."""

from __future__ import annotations

import getpass
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from stablepay_console.web.downloads import download_headers, safe_file_name
from tests.web_harness import Terminal, deliveries, pump, send_keys, signin_cookie, web_server, ws_session


@pytest.mark.parametrize(("name", "mime", "encoding", "kind"), [
    ("rfis.csv", "text/csv", "utf-8", "text/csv; charset=utf-8"),
    ("rfis.json", "application/json", None, "application/json"),
    ("evidence-x.zip", "application/zip", None, "application/zip"),
    ("page.html", "text/html", "utf-8", "application/octet-stream"),
    ("image.svg", "image/svg+xml", None, "application/octet-stream"),
])
def test_downloads_are_sandboxed_by_csp(name: str, mime: str, encoding: str | None, kind: str) -> None:
    # Whatever a console names its file and its type, the browser saves it and never runs it in our origin.
    headers = download_headers(name, mime, encoding)
    assert headers["Content-Security-Policy"] == "sandbox; default-src 'none'"
    assert headers["Content-Type"] == kind
    assert headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize(("given", "kept"), [
    ('../../etc/passwd"; x=y', "etc_passwd_x_y"),
    (".hidden.csv", "hidden.csv"),
    ("X-ray_2026.X", "X-ray_2026.X"),  # only dots and underscores are stripped from the ends
    ("r\u00e9sum\u00e9 \u202e.csv", "r_sum_.csv"),
    ("", "download"),
    (None, "download"),
    ("...", "download"),
    ("a" * 200 + ".csv", "a" * 120),
])
def test_a_download_name_is_safe_whatever_the_console_asks(given: object, kept: str) -> None:
    assert safe_file_name(given) == kept
    assert download_headers(given, "text/csv", None)["Content-Disposition"] == f'attachment; filename="{kept}"'


def fetch(url: str, cookie: str) -> tuple[int, bytes, dict[str, str]]:
    request = urllib.request.Request(url, headers={"Cookie": f"stablepay_session={cookie}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


async def test_an_export_is_a_download_for_its_own_sign_in_only(isolated_config: Path) -> None:
    with web_server(isolated_config) as server:
        mine, theirs = signin_cookie(server), signin_cookie(server)
        user = getpass.getuser()
        assert mine != theirs
        session, ws = await ws_session(server, cookie=mine, columns=100, lines=30)
        terminal = Terminal(100, 30)
        await ws.send_str('["focus", null]')
        assert await pump(ws, terminal, lambda t: " issued " in t.text, 60), terminal.text
        await send_keys(ws, "e")
        asked = await pump(ws, terminal, lambda t: "Delivered to your browser as a download" in t.text, 20)
        assert asked, terminal.text
        await send_keys(ws, "\r")
        assert await pump(ws, terminal, lambda t: bool(deliveries(t)), 60), terminal.text
        [key] = deliveries(terminal)
        assert await pump(ws, terminal, lambda t: "your browser downloads" in t.text, 20), terminal.text
        # Another browser's sign-in, even of the same user, cannot fetch it; nor can no sign-in.
        assert fetch(f"{server.base}/download/{key}", theirs)[0] == 404
        assert fetch(f"{server.base}/download/{key}", "forged")[0] == 401
        status, body, headers = fetch(f"{server.base}/download/{key}", mine)
        assert status == 200, body[:200]
        assert headers["Content-Disposition"].startswith('attachment; filename="rfis-')
        assert headers["Content-Disposition"].endswith('.csv"')
        assert headers["Content-Type"].startswith("text/csv")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"] == "sandbox; default-src 'none'"
        lines = body.decode().splitlines()
        assert len(lines) == 241 and lines[0].lower().startswith("id")
        assert fetch(f"{server.base}/download/{key}", mine)[0] == 404  # single use
        name = headers["Content-Disposition"].split('"')[1]
        assert f"download user={user} file={name}\n" in server.log()  # the file's name, not the raw header
        assert "attachment" not in server.log()
        left = [p for p in isolated_config.parent.rglob("*") if p.suffix in (".csv", ".part")]
        assert left == [], left  # nothing written where the server runs, nor in its data folder
        assert not list(Path("/dev/shm").glob("stablepay-export-*/*.csv"))  # the staged copy is gone too
        await ws.close()
        await session.close()
