"""The edges of a base URL and of a server's link (api/urls.py): how long each may be, how much of a refused one is
quoted, and the words of each refusal."""

from __future__ import annotations

import pytest

from stablepay_console.api.urls import check_base_url, safe_link


def refused_base(url: str) -> str:
    with pytest.raises(ValueError) as refused:
        check_base_url(url)
    return str(refused.value)


def refused_link(url: str) -> str:
    with pytest.raises(ValueError) as refused:
        safe_link(url)
    return str(refused.value)


def test_a_refused_base_url_is_quoted_whole_up_to_80_characters_and_cut_after() -> None:
    url = "ftp://" + "a" * 74
    assert len(url) == 80 and refused_base(url) == f"Base URL {url!r} must start with https:// and name a host."
    url = "ftp://" + "a" * 75
    assert refused_base(url) == f"Base URL {url[:77] + '...'!r} must start with https:// and name a host."


def test_a_base_url_may_be_2048_characters_long_and_no_longer() -> None:
    base = "https://api.example.com/"
    assert str(check_base_url(base + "p" * (2048 - len(base)))).startswith(base)
    url = base + "p" * (2049 - len(base))
    assert refused_base(url) == f"Base URL {url[:77] + '...'!r} is 2,049 characters long; keep it under 2,048."


def test_a_base_url_that_is_no_url_says_so() -> None:
    assert refused_base("https://[::1").startswith("Base URL 'https://[::1' is not a URL: ")


def test_a_base_urls_host_may_be_253_characters_long_and_no_longer() -> None:
    host = ".".join(["a" * 63] * 3 + ["b" * 61])
    assert len(host) == 253 and check_base_url(f"https://{host}").host == host
    longer = host + "b"
    assert refused_base(f"https://{longer}") == (
        f"Base URL {('https://' + longer)[:77] + '...'!r} names a host longer than 253 characters.")


def test_a_link_is_2048_characters_at_most_and_quoted_cut_to_80() -> None:
    base = "https://example.com/"
    assert safe_link(base + "p" * (2048 - len(base))) == base + "p" * (2048 - len(base))
    too_long = base + "p" * (2049 - len(base))
    assert refused_link(too_long) == "The link is 2,049 characters long; links over 2,048 are refused."
    assert refused_link("   ") == "There is no link."
    link = "https://example.com/\x1b[31m" + "x" * 60
    assert refused_link(link) == (f"The link '{'https://example.com/' + chr(92) + 'x1b[31m' + 'x' * 51}…' holds "
                                  "control characters or escape sequences.")


def test_a_links_scheme_is_named_cut_to_20_characters() -> None:
    assert refused_link("j" * 21 + "://x") == f"Only https:// links are opened; '{'j' * 21}://x' has {'j' * 19}…:."
    assert refused_link("javascript:alert(1)") == ("Only https:// links are opened; 'javascript:alert(1)' has "
                                                   "javascript:.")


def test_a_link_to_a_host_that_is_no_domain_name_is_refused() -> None:
    link = "https://ü" + "x" * 64 + ".example/"
    assert refused_link(link) == f"The link '{link[:79]}…' names a host that is not a valid domain name."
    assert safe_link("https://bücher.example/a") == "https://xn--bcher-kva.example/a"
