"""The forward proxy a client goes through: chosen once for its base URL from the environment.

httpx reads HTTP_PROXY and friends only for the transports it builds itself; the client builds its own
(TLS settings, the server's gate), so it chooses here, once, and hands httpx the one proxy (or none).

- The proxy: `https_proxy` for an https base URL, `http_proxy` for an http one, else `all_proxy`; each in
  lower or upper case, lower case first (`urllib.request.getproxies`, as httpx and requests read them).
  A value without a scheme is an http proxy (`proxy.corp:3128`). Credentials in it (`user:password@`)
  go to the proxy, and nowhere else: not in a log, an error's text or a repr.
- NO_PROXY (or `no_proxy`) decides which hosts go direct, as curl reads it: entries split by commas or
  spaces; `*` means every host; a name matches itself and every name under it (`example.com` and
  `.example.com` both match `example.com` and `api.example.com`, never `badexample.com`); an IP address
  matches itself, and a range in CIDR form (`10.0.0.0/8`, `fd00::/8`) every address in it. Loopback
  gets no exception of its own: `localhost` and `127.0.0.1` go direct only when NO_PROXY lists them.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
import urllib.request
from collections.abc import Mapping

import httpx

from stablepay_console.api.sanitize import clean
from stablepay_console.api.tls import verified_tls

PROXY_SCHEMES = ("http", "https")
"""SOCKS would need the socksio package, which the console does not install."""


class ProxyChoice:
    """The proxy one client's requests go through. Its text shows `host:port` only, never credentials."""

    __slots__ = ("_proxy", "problem", "variable", "where")

    def __init__(self, variable: str, where: str, proxy: httpx.Proxy | None, problem: str | None = None) -> None:
        self.variable = variable
        """The setting it came from: HTTPS_PROXY, HTTP_PROXY or ALL_PROXY (in either case)."""
        self.where = where
        """`host:port` of the proxy, for messages; "?" when the setting is not a usable URL."""
        self._proxy = proxy
        self.problem = problem
        """Why the setting cannot be used (said by every request, which fails): None when it can."""

    @property
    def has_credentials(self) -> bool:
        return self._proxy is not None and self._proxy.auth is not None

    def transport(self, verify: ssl.SSLContext) -> httpx.AsyncBaseTransport:
        """The transport of a client through this proxy; `verify` checks the API server's certificate."""
        if self._proxy is None:
            return Unusable(self.problem or f"{self.variable} cannot be used")
        return httpx.AsyncHTTPTransport(verify=verify, proxy=self._proxy)

    def __repr__(self) -> str:
        return f"ProxyChoice({self.variable}, {self.where!r})"

    __str__ = __repr__


class Unusable(httpx.AsyncBaseTransport):
    """What a client gets when its proxy setting cannot be used: every request fails with the reason,
    rather than going to the server directly behind the user's back."""

    def __init__(self, problem: str) -> None:
        self.problem = problem

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ProxyError(self.problem)


def proxy_for(base_url: httpx.URL, settings: Mapping[str, str] | None = None) -> ProxyChoice | None:
    """The proxy requests to `base_url` go through, or None to connect directly.

    `settings`: scheme -> value, as `urllib.request.getproxies()` gives them (keys http, https, all, no)."""
    found = urllib.request.getproxies() if settings is None else settings
    scheme = base_url.scheme
    key = scheme if found.get(scheme) else "all"
    value = found.get(key, "").strip()
    if not value or bypassed(base_url.host, found.get("no", "")):
        return None
    return _parse(f"{key.upper()}_PROXY", value)


def _parse(variable: str, value: str) -> ProxyChoice:
    """The choice a setting's value makes. Nothing of the value itself is ever put in a message: it may hold
    a password, and a value that is not a URL may be one whole."""
    try:
        url = httpx.URL(value if "://" in value else f"http://{value}")
    except (httpx.InvalidURL, TypeError, ValueError):
        return ProxyChoice(variable, "?", None, f"{variable} is set but is not a proxy URL this console can read")
    if not url.host:
        return ProxyChoice(variable, "?", None, f"{variable} is set but names no proxy host")
    where = clean(f"[{url.host}]" if ":" in url.host else url.host, 253)
    where = f"{where}:{url.port or (443 if url.scheme == 'https' else 80)}"
    if url.scheme not in PROXY_SCHEMES:
        problem = f"{variable} names a proxy at {where} this console cannot use: it must be an http:// or https:// URL"
        return ProxyChoice(variable, where, None, problem)
    auth = (url.username, url.password) if url.userinfo else None
    bare = url.copy_with(username=None, password=None)
    # An https proxy's own certificate is checked against the same roots as the API server's.
    context = verified_tls() if url.scheme == "https" else None
    return ProxyChoice(variable, where, httpx.Proxy(bare, auth=auth, ssl_context=context))


def bypassed(host: str, no_proxy: str) -> bool:
    """Whether NO_PROXY sends requests to `host` (a name, or an IP address without brackets) directly."""
    entries = [entry for entry in re.split(r"[,\s]+", no_proxy.strip()) if entry]
    if "*" in entries:
        return True
    host = host.lower().rstrip(".")
    address = _address(host)
    for entry in entries:
        entry = entry.lower().removeprefix("[").replace("]", "").rstrip(".")
        if address is not None:
            if _address_matches(address, entry):
                return True
            continue
        name = entry.lstrip(".")
        if name and (host == name or host.endswith("." + name)):
            return True
    return False


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]"))
    except ValueError:
        return None


def _address_matches(address: ipaddress.IPv4Address | ipaddress.IPv6Address, entry: str) -> bool:
    try:
        if "/" in entry:
            return address in ipaddress.ip_network(entry, strict=False)
        return address == ipaddress.ip_address(entry)
    except ValueError:
        return False  # a name, or no address at all: it cannot match an address


def failure_through(exc: httpx.TransportError, proxy: ProxyChoice, base_url: str) -> str:
    """Why no connection to `base_url` was made through `proxy` (an httpx.ProxyError, ConnectError or
    ConnectTimeout), in words that name the proxy."""
    if proxy.problem is not None:
        return proxy.problem
    if isinstance(exc, httpx.ProxyError):  # the proxy answered a CONNECT with a refusal: its status and reason
        said = clean(str(exc), 200)
        return f"the proxy at {proxy.where} would not connect to {base_url} ({said}){_credentials_hint(said, proxy)}"
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect to {base_url}: the proxy at {proxy.where} did not answer in time"
    return f"could not connect to {base_url}: {_connect_cause(exc, proxy)}"


def _connect_cause(exc: BaseException, proxy: ProxyChoice) -> str:
    """What went wrong connecting through `proxy`, read from the causes of an httpx.ConnectError."""
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain; a cycle of causes must not hang a failing request
        if seen is None:
            break
        if isinstance(seen, ssl.SSLError):
            return f"a TLS handshake failed on the way through the proxy at {proxy.where}"
        if isinstance(seen, ConnectionRefusedError):
            return f"the proxy at {proxy.where} refused the connection"
        if isinstance(seen, socket.gaierror):
            return f"the proxy's host name ({proxy.where}) could not be resolved"
        seen = seen.__cause__ or seen.__context__
    return f"the proxy at {proxy.where} could not be reached"


def _credentials_hint(said: str, proxy: ProxyChoice) -> str:
    """What to do about a proxy's 407 (or a 401 to credentials it was given): tinyproxy answers a wrong
    password with 401."""
    if said.startswith("407") and not proxy.has_credentials:
        return f"; it wants a user name and password: {proxy.variable}=http://USER:PASSWORD@{proxy.where}"
    if said.startswith(("407", "401")) and proxy.has_credentials:
        return f"; it refused the user name and password in {proxy.variable}"
    return ""


def proxy_answer(message: str, response: httpx.Response, proxy: ProxyChoice) -> str:
    """The text of an error answer that is not the API's (not its JSON) and came through `proxy`: most likely
    the proxy's own refusal (an unknown or unreachable server, a filter, credentials), so its words are given."""
    said = f"{response.status_code} {clean(response.reason_phrase, 200)}".strip()
    hint = _credentials_hint(said, proxy)
    if response.status_code == 407:
        return f"The proxy at {proxy.where} refused the request ({said}){hint}."
    return f"{message} It came through the proxy at {proxy.where}, and may be the proxy's own ({said}){hint}."
