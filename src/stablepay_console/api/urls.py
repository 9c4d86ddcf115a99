"""Base URLs: HTTPS only, except loopback (the local sandbox)."""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


MAX_BASE_URL = 2048


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
