"""Links and loopback: only https:// (or http:// to this machine) is opened or copied; loopback means an address."""

from __future__ import annotations

import pytest

from stablepay_console.api.urls import is_loopback, safe_link
from tests.hostile_payloads import HOSTILE, RAW_CHARS


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST", "127.0.0.1", "127.8.9.10", "::1", "[::1]"],
)
def test_loopback_addresses_and_localhost_itself(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize(
    "host",
    [
        "sandbox.localhost",  # a name: whatever the resolver says
        "localhost.",  # the fully qualified form goes to DNS
        "localhost.evil.example",
        "127.0.0.1.nip.io",
        "127.1",  # shorthand forms are not addresses here
        "2130706433",
        "::ffff:127.0.0.1",
        "10.0.0.1",
        "0.0.0.0",
        "",
    ],
)
def test_names_and_other_addresses_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://hosted.example/rfi/1?round=2#items", "https://hosted.example/rfi/1?round=2#items"),
        ("HTTPS://hosted.example/a", "https://hosted.example/a"),
        ("  https://hosted.example/a  ", "https://hosted.example/a"),
        ("http://127.0.0.1:8787/hosted/rfi/1", "http://127.0.0.1:8787/hosted/rfi/1"),
        ("http://localhost/hosted", "http://localhost/hosted"),
        ("http://[::1]:8787/", "http://[::1]:8787/"),
        ("https://exämple.com/p", "https://xn--exmple-cua.com/p"),  # a look-alike shows as what it is
        ("https://exämple.com:8443/p", "https://xn--exmple-cua.com:8443/p"),
    ],
)
def test_https_and_loopback_http_links_are_accepted(url: str, expected: str) -> None:
    assert safe_link(url) == expected


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("javascript:alert(1)", "Only https:// links are opened"),
        ("file:///etc/passwd", "has file:"),
        ("data:text/html,<script>", "has data:"),
        ("ftp://files.example/x", "has ftp:"),
        ("//hosted.example/x", "has no scheme"),
        ("hosted.example/x", "has no scheme"),
        ("http://hosted.example/x", "uses plain http://"),
        ("http://sandbox.localhost/x", "uses plain http://"),
        ("https://", "names no host"),
        ("https://bank.example@evil.example/", "user name or password"),
        ("https://evil.example\\@bank.example/", "backslashes"),
        ("https://hosted.example/a b", "spaces"),
        ("https://hosted.example:99999/", "not a valid URL"),
        ("https://hosted.example/" + HOSTILE, "control characters or escape sequences"),
        ("https://hosted.example/\u202egnp.exe", "control characters"),
        ("https://hosted.example/\u200b", "control characters"),
        ("", "no link"),
        ("https://hosted.example/" + "a" * 3000, "characters long"),
    ],
)
def test_everything_else_is_refused_with_a_clear_message(url: str, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        safe_link(url)
    message = str(caught.value)
    assert fragment in message
    assert not set(message) & RAW_CHARS  # the message itself is safe to show
    assert len(message) < 300


def test_a_non_string_is_refused() -> None:
    with pytest.raises(ValueError, match="no link"):
        safe_link(None)  # type: ignore[arg-type]
