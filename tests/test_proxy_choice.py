"""The proxy choice, rule by rule, without a network: which setting is read, what a bad one says, how NO_PROXY
matches, and the words of each failure through a proxy (api/proxies.py). The same rules through a real
tinyproxy are in tests/test_client_proxy.py."""

from __future__ import annotations

import socket
import ssl

import httpx
import pytest

from stablepay_console.api.proxies import ProxyChoice, bypassed, failure_through, proxy_answer, proxy_for

API = httpx.URL("https://api.stablepay.example")
PLAIN_API = httpx.URL("http://api.stablepay.example")


def choice(value: str, base: httpx.URL = PLAIN_API) -> ProxyChoice:
    found = proxy_for(base, {"http": value, "https": value})
    assert found is not None
    return found


async def refusal(found: ProxyChoice) -> str:
    transport = found.transport(ssl.create_default_context())
    with pytest.raises(httpx.ProxyError) as raised:
        await transport.handle_async_request(httpx.Request("GET", "http://api.stablepay.example/ping"))
    return str(raised.value)


@pytest.mark.parametrize(("value", "problem"), [
    ("http://[::1", "HTTP_PROXY is set but is not a proxy URL this console can read"),
    ("http://:3128", "HTTP_PROXY is set but names no proxy host"),
])
async def test_a_setting_that_is_no_proxy_url_is_named_and_every_request_fails_with_it(
    value: str, problem: str
) -> None:
    found = choice(value)
    assert (found.variable, found.where, found.problem) == ("HTTP_PROXY", "?", problem)
    assert await refusal(found) == problem


async def test_a_socks_proxy_is_named_with_its_address_and_refused() -> None:
    found = choice("socks5://proxy.corp:1080")
    assert (found.variable, found.where) == ("HTTP_PROXY", "proxy.corp:1080")
    assert await refusal(found) == ("HTTP_PROXY names a proxy at proxy.corp:1080 this console cannot use: it must be "
                                    "an http:// or https:// URL")


async def test_a_choice_without_a_proxy_or_a_reason_still_refuses_by_its_setting() -> None:
    assert await refusal(ProxyChoice("ALL_PROXY", "?", None)) == "ALL_PROXY cannot be used"


@pytest.mark.parametrize(("value", "where"), [
    ("proxy.corp", "proxy.corp:80"),
    ("http://proxy.corp", "proxy.corp:80"),
    ("https://proxy.corp", "proxy.corp:443"),
    ("http://proxy.corp:3128", "proxy.corp:3128"),
    ("http://[fd00::1]:3128", "[fd00::1]:3128"),
])
def test_the_proxy_is_shown_as_its_host_and_port(value: str, where: str) -> None:
    assert choice(value).where == where


def test_a_very_long_proxy_host_is_cut_where_it_is_shown() -> None:
    host = ".".join(["a" * 60] * 5)  # 304 characters
    shown = choice(f"http://{host}:3128").where
    assert shown == host[:252] + "…:3128"


def test_an_https_proxy_has_its_own_certificate_checked_and_an_http_one_has_no_tls() -> None:
    secure = choice("https://u:secret@proxy.corp:3129", API)._proxy
    plain = choice("http://proxy.corp:3128", API)._proxy
    assert secure is not None and plain is not None
    assert isinstance(secure.ssl_context, ssl.SSLContext) and secure.ssl_context.verify_mode == ssl.CERT_REQUIRED
    assert plain.ssl_context is None
    assert secure.auth == ("u", "secret") and "secret" not in str(secure.url) and "secret" not in repr(choice(
        "https://u:secret@proxy.corp:3129", API))


@pytest.mark.parametrize(("host", "no_proxy", "direct"), [
    ("api.example.com.", "example.com", True),  # a fully qualified name
    ("api.example.com", "example.com.", True),
    ("api.example.com", ".example.com.", True),
    ("api.example.com", "other.com example.com.", True),
    ("::1", "[::1]", True),
    ("[::1]", "::1", True),  # a host given in brackets
    ("[::1]", "::2", False),
    ("10.9.9.9", "10.1.2.3/8", True),  # a range written with its host's bits set
    ("11.0.0.1", "10.1.2.3/8", False),
])
def test_no_proxy_entries_as_curl_reads_them(host: str, no_proxy: str, direct: bool) -> None:
    assert bypassed(host, no_proxy) is direct


def proxy(value: str = "http://proxy.corp:3128") -> ProxyChoice:
    return choice(value)


def test_a_refused_tunnel_says_the_proxys_words_cut_to_a_line() -> None:
    said = failure_through(httpx.ProxyError("500 " + "x" * 300), proxy(), "https://api.stablepay.example")
    assert said.startswith("the proxy at proxy.corp:3128 would not connect to https://api.stablepay.example (500 x")
    inside = said[said.index("(") + 1 : said.rindex(")")]
    assert len(inside) == 200 and inside.endswith("…")


@pytest.mark.parametrize(("status", "value", "hint"), [
    ("407 Proxy Authentication Required", "http://proxy.corp:3128",
     "; it wants a user name and password: HTTP_PROXY=http://USER:PASSWORD@proxy.corp:3128"),
    ("407 Proxy Authentication Required", "http://u:p@proxy.corp:3128",
     "; it refused the user name and password in HTTP_PROXY"),
    ("401 Unauthorized", "http://u:p@proxy.corp:3128", "; it refused the user name and password in HTTP_PROXY"),
    ("401 Unauthorized", "http://proxy.corp:3128", ""),
    ("403 Forbidden", "http://u:p@proxy.corp:3128", ""),
])
def test_a_refused_tunnel_says_what_to_do_about_credentials(status: str, value: str, hint: str) -> None:
    said = failure_through(httpx.ProxyError(status), proxy(value), "https://api.stablepay.example")
    assert said == f"the proxy at proxy.corp:3128 would not connect to https://api.stablepay.example ({status}){hint}"


def caused_by(cause: BaseException | None) -> httpx.ConnectError:
    error = httpx.ConnectError("connect failed")
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(("cause", "said"), [
    (None, "the proxy at proxy.corp:3128 could not be reached"),
    (ConnectionRefusedError(), "the proxy at proxy.corp:3128 refused the connection"),
    (socket.gaierror(), "the proxy's host name (proxy.corp:3128) could not be resolved"),
    (ssl.SSLError(), "a TLS handshake failed on the way through the proxy at proxy.corp:3128"),
])
def test_a_connection_that_failed_says_why_in_the_proxys_name(cause: BaseException | None, said: str) -> None:
    assert failure_through(caused_by(cause), proxy(), "http://api.stablepay.example") == (
        f"could not connect to http://api.stablepay.example: {said}")


def test_a_proxys_own_refusal_is_given_in_its_words_cut_to_a_line() -> None:
    response = httpx.Response(502, extensions={"reason_phrase": b"Bad " + b"y" * 300})
    said = proxy_answer("The server's answer is not JSON.", response, proxy())
    assert said.startswith("The server's answer is not JSON. It came through the proxy at proxy.corp:3128, and may "
                           "be the proxy's own (502 Bad yyy")
    inside = said[said.index("(") + 1 : said.rindex(")")]
    assert len(inside) == len("502 ") + 200 and inside.endswith("…")
    asked = proxy_answer("x", httpx.Response(407, extensions={"reason_phrase": b"Proxy Authentication Required"}),
                         proxy())
    assert asked == ("The proxy at proxy.corp:3128 refused the request (407 Proxy Authentication Required); it wants a "
                     "user name and password: HTTP_PROXY=http://USER:PASSWORD@proxy.corp:3128.")
