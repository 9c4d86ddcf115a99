"""The page's terminal script (514 kB) comes gzipped, under a versioned name the browser keeps for a year: a second
visit does not fetch it again. Only files of the static folder are served, and only when signed in."""

from __future__ import annotations

import gzip
import re
import urllib.request
from pathlib import Path

import pytest

from tests.web_harness import get, headless_chromium, open_console, signin_cookie, wait_until, web_server


def fetch(url: str, headers: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


def test_the_script_is_gzipped_versioned_and_kept(isolated_config: Path) -> None:
    from textual_serve import server as textual_server

    script = Path(textual_server.__file__).parent / "static" / "js" / "textual.js"
    with web_server(isolated_config, "--no-spare") as server:
        cookie = {"Cookie": f"stablepay_session={signin_cookie(server)}"}
        status, page, _ = get(f"{server.base}/", cookie)
        assert status == 200
        [url] = re.findall(r'<script src="([^"]+textual\.js[^"]*)"', page)
        assert re.fullmatch(rf"{re.escape(server.base)}/static/js/textual\.js\?v=[0-9a-f]{{16}}", url), url
        status, body, headers = fetch(url, {**cookie, "Accept-Encoding": "gzip"})
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        assert len(body) < len(script.read_bytes()) // 3 and gzip.decompress(body) == script.read_bytes()
        assert headers["Cache-Control"] == "private, max-age=31536000, immutable"
        assert headers["Content-Type"].startswith(("text/javascript", "application/javascript"))
        assert fetch(url, {**cookie, "If-None-Match": headers["ETag"]})[0] == 304
        status, body, headers = fetch(url.split("?")[0], cookie)  # no version, no gzip asked
        assert status == 200 and body == script.read_bytes() and "Content-Encoding" not in headers
        assert headers["Cache-Control"] == "private, no-cache"
        assert fetch(url, {})[0] == 401  # not signed in
        for outside in ("/static/../app_service.py", "/static/%2e%2e/app_service.py", "/static/js",
                        "/static/js/nothing.js"):
            assert fetch(server.base + outside, cookie)[0] == 404, outside
        # --no-spare: the page's console was started on the spot, and no spare ever was.
        assert wait_until(lambda: server.consoles(), 30)
        assert "console started for a page" in server.log() and "spare console started" not in server.log()


@pytest.fixture
def chromium():  # type: ignore[no-untyped-def]
    with headless_chromium() as browser:
        yield browser


@pytest.mark.browser
def test_a_second_visit_takes_the_script_from_the_browsers_cache(isolated_config: Path, chromium) -> None:  # type: ignore[no-untyped-def]
    sizes = "performance.getEntriesByType('resource').filter(e => e.name.includes('textual.js'))" \
            ".map(e => [e.transferSize, e.encodedBodySize, e.decodedBodySize])"
    with web_server(isolated_config) as server:
        browser = open_console(chromium, server.signin_line, click=False)
        assert browser.wait_for(lambda t: " issued " in t), browser.terminal.text
        [(sent, encoded, decoded)] = browser.page.evaluate(sizes)
        assert sent > 0 and encoded < decoded // 3  # fetched, gzipped
        browser.page.goto(f"{server.base}/")
        assert browser.wait_for(lambda t: " issued " in t), browser.terminal.text
        assert browser.page.evaluate(sizes) == [[0, encoded, decoded]]  # from the cache: nothing on the wire
        browser.context.close()
