"""The web server's guard (web/guard.py) in the test process (tests/web_inprocess.py): each refusal says what to do
in words; the token is exchanged only by a GET of `/`, for a cookie of the whole site; a form's POST comes only
from the console's own page (its Origin, or the browser's Sec-Fetch-Site)."""

from __future__ import annotations

import pytest

from tests.test_web_refusals import BY_HEADER
from tests.web_inprocess import TOKEN, USER, served


async def test_each_refusal_says_what_to_do(caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        status, body, _ = await web.get("/")
        assert status == 401 and ("Open the sign-in link the server printed when it started (it ends in ?token=…)."
                                  in body)
        status, body, _ = await web.get("/?token=wrong")
        assert status == 401 and ("That sign-in link is wrong or from an earlier start of the server. Use the link "
                                  "the server printed when it started.") in body
        assert "<title>Not signed in</title>" in body
    async with served(caplog, BY_HEADER) as web:
        status, body, headers = await web.get("/")
        assert status == 401 and "Sign in through your company&#x27;s sign-in page." in body
        assert headers["Content-Type"].startswith("text/html")


async def test_the_token_is_exchanged_only_by_a_get_of_the_page_for_a_cookie_of_the_whole_site(
        caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        assert await web.head(f"/?token={TOKEN}") == 401
        status, _, headers = await web.get(f"/?token={TOKEN}")
        assert status == 303 and "Path=/" in headers["Set-Cookie"]
        cookie = headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        again = await web.get(f"/?token={TOKEN}", {"Cookie": f"stablepay_session={cookie}"})
        assert again[0] == 303 and again[2]["Set-Cookie"].split(";")[0].split("=", 1)[1] == cookie, "the same sign-in"
        assert web.log().count(f"sign-in user={USER} via=token") == 1


async def test_a_post_comes_only_from_the_consoles_own_page(caplog: pytest.LogCaptureFixture) -> None:
    async with served(caplog) as web:
        cookie = {"Cookie": f"stablepay_session={await web.signin_cookie()}"}

        async def post(headers: dict[str, str]) -> int:
            async with web.client.post("/signout", headers={**cookie, **headers}, allow_redirects=False) as answer:
                return answer.status

        assert await post({"Origin": "https://evil.example"}) == 403
        assert await post({"Origin": "null"}) == 403
        assert await post({"Sec-Fetch-Site": "cross-site"}) == 403
        assert ("refused POST /signout from=127.0.0.1 status=403: a POST comes only from the console's own page"
                in web.log().splitlines())
        assert await post({"Sec-Fetch-Site": "Same-Origin", "Origin": "null"}) != 403
    async with served(caplog) as web:
        cookie = {"Cookie": f"stablepay_session={await web.signin_cookie()}"}
        async with web.client.post("/signout", headers={**cookie, "Origin": web.settings.origin.upper()},
                                   allow_redirects=False) as answer:
            assert answer.status != 403, "the Origin is compared without regard to case"
