"""What a `stablepay-console web` server is told (web/settings.py): a public URL is an http(s) origin with a host
and nothing else; a trusted proxy is an address or a network. A value that is neither is refused saying why."""

from __future__ import annotations

import ipaddress

import pytest

from stablepay_console.web.settings import check_public_url, proxy_network


def test_a_public_url_is_kept_as_its_origin() -> None:
    assert check_public_url(" https://console.example.com/ ") == "https://console.example.com"
    assert check_public_url("http://10.0.0.5:8080") == "http://10.0.0.5:8080"
    assert check_public_url("https://[::1]:8443") == "https://[::1]:8443"


@pytest.mark.parametrize(("text", "why"), [
    ("console.example.com", "must be an http:// or https:// URL with a host"),
    ("ftp://console.example.com", "must be an http:// or https:// URL with a host"),
    ("https://", "must be an http:// or https:// URL with a host"),
    ("https://console.example.com/?a=1", "must not carry a query, fragment or credentials"),
    ("https://console.example.com/#x", "must not carry a query, fragment or credentials"),
    ("https://ops@console.example.com", "must not carry a query, fragment or credentials"),
    ("https://:pw@console.example.com", "must not carry a query, fragment or credentials"),
    ("https://console.example.com/console", "the console is served at the root of its address (no path)"),
])
def test_a_public_url_that_is_not_an_origin_is_refused_saying_why(text: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_public_url(text)
    joiner = ": " if why.startswith("the console") else " "
    assert str(refused.value) == f"--public-url {text!r}{joiner}{why}"


def test_a_trusted_proxy_is_an_address_or_a_network() -> None:
    assert proxy_network(" 127.0.0.1 ") == ipaddress.ip_network("127.0.0.1/32")
    assert proxy_network("10.1.2.3/8") == ipaddress.ip_network("10.0.0.0/8")  # not strict: the host bits go
    assert proxy_network("::1") == ipaddress.ip_network("::1/128")
    for text in ("proxy.example", "10.0.0.0/33", ""):
        with pytest.raises(ValueError) as refused:
            proxy_network(text)
        assert str(refused.value) == f"--trusted-proxy {text!r} is not an IP address or network"
