"""Base URLs and links from a server: HTTPS only, except loopback (the local sandbox)."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from stablepay_console.api.sanitize import clean, has_control

if TYPE_CHECKING:
    import httpx


def is_loopback(host: str) -> bool:
    """A loopback address (127.0.0.0/8, ::1), or the name `localhost` itself.

    Not `*.localhost` and not `localhost.`: those are names, and a name other than
    `localhost` is whatever a resolver (or a hostile DNS server) says it is.
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


MAX_BASE_URL = 2048

_LABEL = r"[a-z0-9](?:[a-z0-9]|-(?!-)){0,61}(?<!-)"
_CANONICAL = re.compile(
    rf"(?:https://(?P<host>(?:{_LABEL}\.)*[a-z](?:[a-z0-9]|-(?!-)){{0,61}}(?<!-))|http://(?:localhost|127\.0\.0\.1))"
    r"(?::(?P<port>[1-9][0-9]{0,4}))?(?:/(?!\.\.?(?:/|$))[A-Za-z0-9._~-]+)*"
)
"""A base URL already as `check_base_url` writes it (lower-case host names of letters, digits and single hyphens,
ending in a name; https, or http to loopback; a port that is not the scheme's own; a path of plain segments; no
trailing slash, query, fragment or credentials): a profiles file read back holds these, and a start that reads it
need not load httpx. `tests/test_validation.py` holds that every URL it matches is its own `check_base_url`."""


def base_url_text(base_url: str) -> str:
    """`check_base_url(base_url)` as text, without its trailing slash: what a profile keeps."""
    found = _CANONICAL.fullmatch(base_url)
    if found is not None and len(found.group("host") or "") <= 253:  # `check_base_url`'s bound on a host name
        port = found.group("port")
        default = "443" if base_url.startswith("https:") else "80"
        if port is None or (int(port) <= 65535 and port != default):
            return base_url
    return str(check_base_url(base_url)).rstrip("/")


def check_base_url(base_url: str) -> httpx.URL:
    """HTTPS only, except loopback hosts (the local sandbox)."""
    import httpx  # here, not above: `is_loopback` serves argument checks that must start fast

    shown = repr(base_url if len(base_url) <= 80 else base_url[:77] + "...")
    if len(base_url) > MAX_BASE_URL:
        raise ValueError(f"Base URL {shown} is {len(base_url):,} characters long; keep it under {MAX_BASE_URL:,}.")
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError) as exc:
        raise ValueError(f"Base URL {shown} is not a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ValueError(f"Base URL {shown} must start with https:// and name a host.")
    if len(url.host) > 253:
        raise ValueError(f"Base URL {shown} names a host longer than 253 characters.")
    if url.scheme == "http" and not is_loopback(url.host):
        raise ValueError(f"Base URL {shown} must use https:// (plain http is allowed for loopback only).")
    if url.query or url.fragment or url.userinfo:
        raise ValueError(f"Base URL {shown} must not carry a query, fragment or credentials.")
    return url


MAX_LINK = 2048


def safe_link(url: str) -> str:
    """A link fit for a browser or the clipboard: `https://`, or `http://` to a loopback address.

    Returns the link (scheme in lower case, a non-ASCII host in its `xn--` form, so a look-alike
    name shows as what it is); raises ValueError saying why otherwise.
    """
    text = url.strip() if isinstance(url, str) else ""
    shown = f"'{clean(text, 80)}'"
    if not text:
        raise ValueError("There is no link.")
    if len(text) > MAX_LINK:
        raise ValueError(f"The link is {len(text):,} characters long; links over {MAX_LINK:,} are refused.")
    if has_control(text):
        raise ValueError(f"The link {shown} holds control characters or escape sequences.")
    if any(ch.isspace() for ch in text) or "\\" in text:
        raise ValueError(f"The link {shown} holds spaces or backslashes, which browsers read differently.")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise ValueError(f"The link {shown} is not a valid URL.") from None
    scheme, host = parts.scheme.lower(), parts.hostname or ""
    if scheme not in ("https", "http"):
        named = f"{clean(scheme, 20)}:" if scheme else "no scheme"
        raise ValueError(f"Only https:// links are opened; {shown} has {named}.")
    if not host:
        raise ValueError(f"The link {shown} names no host.")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"The link {shown} carries a user name or password before its host.")
    if scheme == "http" and not is_loopback(host):
        raise ValueError(f"The link {shown} uses plain http://, which is opened only to this machine.")
    if not host.isascii():
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"The link {shown} names a host that is not a valid domain name.") from None
        netloc = ascii_host if port is None else f"{ascii_host}:{port}"
        return urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))
