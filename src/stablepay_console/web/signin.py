"""Who a request is: a browser that exchanged the server's token for a session cookie, or a user named by a
trusted reverse proxy's header. Everything here is in memory: a restart signs everyone out.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import time
from dataclasses import dataclass, field

from stablepay_console.web.settings import WebSettings

log = logging.getLogger("stablepay_console.web.access")

COOKIE = "stablepay_session"
TOKEN_PARAMETER = "token"
SIGNIN_IDLE_SECONDS = 12 * 3600.0
"""A browser sign-in unused this long is forgotten (its consoles end on their own idle limit)."""
USER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,62}")
"""What a user name may be: a PostgreSQL role name we never need to quote for a human, at most 63 bytes."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


def valid_user(name: str) -> bool:
    return USER_NAME.fullmatch(name) is not None


@dataclass
class SignIn:
    """One browser's sign-in: the cookie's value is `id`, never logged."""

    id: str
    user: str
    via: str
    """"token" or "header"."""
    last_seen: float = field(default_factory=time.monotonic)
    terminal_size: tuple[int, int] | None = None
    """Its last tab's terminal (columns, rows): the size a console started for its next page draws at first."""
    ended: bool = False
    """Signed out (POST /signout): its cookie opens nothing any more, and no console starts for it."""

    @property
    def short(self) -> str:
        """A name for this sign-in in the access log that does not let anyone use it."""
        import hashlib

        return hashlib.sha256(self.id.encode()).hexdigest()[:8]


class SignIns:
    """The server's token and its browsers' sign-ins."""

    def __init__(self, settings: WebSettings, user: str, token: str | None = None) -> None:
        self.settings = settings
        self.user = user
        """Who signs in with the token: the server's own user."""
        self.token = token or new_token()
        self._by_id: dict[str, SignIn] = {}

    def token_matches(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.token.encode())

    def start(self, user: str, via: str) -> SignIn:
        signin = SignIn(secrets.token_urlsafe(32), user, via)
        self._by_id[signin.id] = signin
        return signin

    def end(self, signin: SignIn) -> None:
        """Sign out: the sign-in is forgotten (its cookie opens nothing); the server ends its consoles."""
        signin.ended = True
        self._by_id.pop(signin.id, None)

    def by_cookie(self, value: str | None) -> SignIn | None:
        if not value:
            return None
        self._forget_idle()
        for key, signin in self._by_id.items():
            if hmac.compare_digest(key.encode(), value.encode()):
                signin.last_seen = time.monotonic()
                return signin
        return None

    def _forget_idle(self) -> None:
        now = time.monotonic()
        for key in [k for k, s in self._by_id.items() if now - s.last_seen > SIGNIN_IDLE_SECONDS]:
            del self._by_id[key]

    def by_header(self, remote: str, value: str | None) -> SignIn | str | None:
        """The sign-in for a proxy's header: a SignIn, a refusal (why), or None when there is no header.

        The caller has made sure the request is the proxy's (web/proxy.py): a header from anyone else is
        refused there, never ignored (a client that sends it is trying to be someone)."""
        if value is None:
            return None
        name = value.strip()
        if not valid_user(name):
            return "the sign-in header does not hold a valid user name"
        # One sign-in per user through the proxy, so a user's consoles and downloads stay theirs.
        for signin in self._by_id.values():
            if signin.via == "header" and signin.user == name:
                signin.last_seen = time.monotonic()
                return signin
        signin = self.start(name, "header")
        log.info("sign-in user=%s via=header from=%s session=%s", name, remote, signin.short)
        return signin


def startup_refusal(settings: WebSettings, *, team: bool, server_user: str) -> str | None:
    """Why no sign-in to this server could ever get a console, or None: checked before the server starts, so that
    it never serves pages that can only say "No console for you here".

    - Token sign-in makes every browser the server's own account (`server_user`). With a team record a console
      acts as the signed-in person's own login role, and the server's account is not a person of the team: every
      tab would be refused. Only a trusted header (a sign-in proxy naming each person) can work there.
    - Token sign-in names the console user after the server's account, which must then be a name a console user
      can have.
    - Caps of no console at all.
    The profile and key every console starts on, and the team record as the server's login reaches it, are checked
    next (`cli.web.console_refusal`)."""
    if team and not settings.by_header:
        return (
            f"with a team record, token sign-in cannot give anyone a console: every token sign-in is this "
            f"server's own account ({server_user}), not a person of the team, so each tab would be refused. "
            "Sign people in through your sign-in proxy instead: --trusted-header NAME (with --trusted-proxy "
            "ADDRESS or --socket PATH), and each console acts as the signed-in person's own role"
        )
    if not settings.by_header and not valid_user(server_user):
        return f"this account's name ({server_user!r}) cannot name a console user"
    if settings.max_sessions < 1 or settings.max_sessions_per_user < 1:
        return "--max-sessions and --max-sessions-per-user must allow at least one console"
    return None
