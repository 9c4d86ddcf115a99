"""What `stablepay-console web` refuses, in the test process (tests/web_inprocess.py): every route but /healthz
refuses a request that is not signed in, the token counts only whole and only on `/`, /ws checks its cookie and
its Origin, a trusted header counts from a trusted proxy only, and bad flags are refused before anything listens.

The same application the server process serves, so the rules are proved where they live; the sign-in end to end
(a browser's cookie, a console for the signed-in user, the proxy's header naming who is in the banner) stays in
tests/test_web_signin.py against the real server process.
"""

from __future__ import annotations

import aiohttp
import pytest

from stablepay_console.cli.main import main
from stablepay_console.web.settings import WebSettings, proxy_network
from tests.web_inprocess import TOKEN, USER, served

ROUTES = ("/", "/ws", "/download/0123456789abcdef", "/static/js/textual.js", "/static/css/xterm.css")
BY_HEADER = WebSettings(trusted_header="X-Forwarded-User", trusted_proxies=(proxy_network("127.0.0.1"),))


async def test_healthz_answers_without_signing_in_and_nothing_else_does(caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        assert web.server.sign_in_line() == f"{web.settings.base_url}/?token={TOKEN}"
        assert (await web.get("/healthz"))[:2] == (200, "ok")
        for route in ROUTES:
            status, body, headers = await web.get(route)
            assert status == 401, route
            assert "Not signed in" in body and "textual" not in body.lower(), route
            assert headers["Cache-Control"] == "no-store", route
        assert (await web.get("/?token=wrong"))[0] == 401
        assert (await web.get(f"/?token={TOKEN[:-1]}"))[0] == 401  # only the whole token
        assert (await web.get(f"/static/js/textual.js?token={TOKEN}"))[0] == 401  # only `/` exchanges it
        assert (await web.get("/", {"Cookie": "stablepay_session=forged"}))[0] == 401
        assert web.consoles() == 0
        assert "refused GET / " in web.log() and TOKEN not in web.log()


async def test_the_token_is_exchanged_for_a_strict_cookie_and_the_cookie_opens_the_statics(
        caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        status, _, headers = await web.get(f"/?token={TOKEN}")
        assert status == 303 and headers["Location"] == "/"
        cookie = headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie and TOKEN not in cookie
        assert headers["Referrer-Policy"] == "no-referrer" and headers["Cache-Control"] == "no-store"
        value = cookie.split(";")[0].split("=", 1)[1]
        signed = {"Cookie": f"stablepay_session={value}"}
        assert (await web.get("/static/js/textual.js", signed))[0] == 200
        assert await web.head("/", signed) == 200  # the page (a HEAD: its console would start for a GET)
        assert (await web.get("/static/js/textual.js", {"Cookie": f"stablepay_session={value[:-1]}"}))[0] == 401
        assert f"sign-in user={USER} via=token" in web.log() and TOKEN not in web.log() and value not in web.log()


async def test_secure_cookie_behind_an_https_public_url(caplog: pytest.LogCaptureFixture) -> None:
    from stablepay_console.cli.main import build_parser
    from stablepay_console.cli.web import settings_from

    settings = settings_from(build_parser().parse_args(["web", "--public-url", "https://console.example.com"]))
    async with served(caplog, settings) as web:
        assert web.server.sign_in_line() == f"https://console.example.com/?token={TOKEN}"
        status, _, headers = await web.get(f"/?token={TOKEN}")
        assert status == 303 and "Secure" in headers["Set-Cookie"]


async def test_ws_refuses_no_cookie_and_a_foreign_or_missing_origin(caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        cookie = await web.signin_cookie()
        assert await web.refused_ws() == 401
        assert await web.refused_ws(cookie="forged") == 401
        assert await web.refused_ws(cookie=cookie, origin="https://evil.example") == 403
        assert await web.refused_ws(cookie=cookie, origin=None) == 403
        assert await web.refused_ws(cookie=cookie, origin=f"http://localhost:{web.settings.port}") == 403
        assert web.consoles() == 0
        assert "only from the console's own page" in web.log()
        assert TOKEN not in web.log() and cookie not in web.log()


async def test_trusted_header_only_from_a_trusted_proxy(caplog: pytest.LogCaptureFixture) -> None:
    header = {"X-Forwarded-User": "alice"}
    async with served(caplog, BY_HEADER) as web:
        assert web.server.sign_in_line() == f"{web.settings.base_url}/"  # a URL to open, nothing else on the line
        assert "people sign in through the proxy's X-Forwarded-User header" in web.server.listening_line()
        assert (await web.get("/"))[0] == 401  # no header: not signed in
        assert (await web.get(f"/?token={web.server.signins.token}"))[0] == 401  # behind a proxy no token counts
        assert (await web.get("/", {"X-Forwarded-User": "alice; DROP"}))[0] == 403
        # The same header from an address that is not the proxy's is refused, not believed.
        connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=connector) as stranger:
            async with stranger.get(web.url("/"), headers=header, allow_redirects=False) as response:
                assert response.status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await stranger.ws_connect(web.url("/ws"), headers={**header, "Origin": web.settings.origin})
            assert refused.value.status == 403
        assert "not a trusted proxy" in web.log()
        assert await web.refused_ws(headers=header, origin="https://evil.example") == 403
        assert web.consoles() == 0
        assert await web.head("/", header) == 200  # from the proxy's address the header signs alice in
        assert "sign-in user=alice via=header from=127.0.0.1" in web.log()


@pytest.mark.parametrize("args", [
    ("--trusted-header", "X-Forwarded-User"),
    ("--trusted-proxy", "127.0.0.1"),
    ("--public-url", "javascript:alert(1)"),
    ("--trusted-header", "X-User", "--trusted-proxy", "not-an-address"),
    ("--socket", "/tmp/web.sock", "--trusted-header", "X-User"),  # no --public-url: no address for browsers
    ("--socket", "/tmp/web.sock", "--public-url", "https://c.example", "--trusted-header", "X-User",
     "--trusted-proxy", "127.0.0.1"),  # an address means nothing on a socket
    ("--socket", "/no/such/folder/web.sock", "--public-url", "https://c.example"),
    ("--trusted-header-secret-file", "/dev/null"),  # a secret without a header to guard
    ("--trusted-header", "X-User", "--trusted-proxy", "127.0.0.1", "--trusted-header-secret-file", "/no/such"),
])
def test_bad_flags_are_refused(args: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("stablepay-console web: "), err
