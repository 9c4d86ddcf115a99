"""What one `stablepay-console web` server is told: where it listens, who it trusts, how many consoles."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_SESSIONS_PER_USER = 4
MAX_SESSIONS = 32
IDLE_MINUTES = 30.0
UNCLAIMED_SECONDS = 20.0
STOP_SECONDS = 3.0
"""How long a console may take to leave after its tab closed before it is terminated (then killed)."""


@dataclass(frozen=True)
class WebSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str = ""
    """The address browsers use (behind a proxy, the proxy's); "" means http://HOST:PORT."""
    trusted_header: str = ""
    """With a reverse proxy that signs people in: the header naming the user ("" signs in with the token)."""
    trusted_proxies: tuple[Network, ...] = ()
    socket_path: str = ""
    """Listen on this Unix socket (mode 0660) instead of HOST:PORT; the trusted header counts only through it."""
    proxy_secret: str = field(default="", repr=False)
    """The secret the proxy sends with the trusted header ("" : none asked). Never printed, never logged."""
    max_sessions_per_user: int = MAX_SESSIONS_PER_USER
    max_sessions: int = MAX_SESSIONS
    idle_seconds: float = IDLE_MINUTES * 60
    unclaimed_seconds: float = UNCLAIMED_SECONDS
    """A console started for a page is ended if no tab of that sign-in attaches within this."""
    spare: bool = True
    """Keep one console process started (imports done, nobody's) for the next tab."""
    profile: str = ""
    """The profile every console starts on ("" : the one the console would start on)."""
    extra_env: dict[str, str] = field(default_factory=dict)
    """Added to every console's environment (tests: a config folder)."""

    @property
    def base_url(self) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def origin(self) -> str:
        """`scheme://host[:port]` of the public URL: the only Origin `/ws` accepts."""
        parts = urlsplit(self.base_url)
        scheme, host, port = parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
        if ":" in host:
            host = f"[{host}]"
        default = {"http": 80, "https": 443}[scheme]
        return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"

    @property
    def https(self) -> bool:
        return self.base_url.lower().startswith("https://")

    @property
    def by_header(self) -> bool:
        return bool(self.trusted_header)


def check_public_url(text: str) -> str:
    """An http(s) URL with a host and no query, fragment or credentials; raises ValueError saying why."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"--public-url {text!r} must be an http:// or https:// URL with a host")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"--public-url {text!r} must not carry a query, fragment or credentials")
    if parts.path not in ("", "/"):
        raise ValueError(f"--public-url {text!r}: the console is served at the root of its address (no path)")
    return f"{parts.scheme}://{parts.netloc}"


def proxy_network(text: str) -> Network:
    """`127.0.0.1`, `10.0.0.0/8` or `::1`: an address or network a trusted proxy connects from."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"--trusted-proxy {text!r} is not an IP address or network") from None

