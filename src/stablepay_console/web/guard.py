"""The middleware in front of every route but `/healthz`: who the request is, or a refusal.

With the token: `/?token=…` is exchanged for a session cookie (HttpOnly, SameSite=Strict, Secure behind
https) and the browser is sent to `/`, so the token leaves its address bar and history. Behind a
reverse proxy: the trusted header names the user, from a trusted proxy's address only. `/ws` and every
POST must also come from a page of the public URL's origin: any web site can open a WebSocket to any address,
or send a form to it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from aiohttp import web
from aiohttp.typedefs import Middleware

from stablepay_console.web.pages import refusal_page
from stablepay_console.web.proxy import peer, proxy_refusal
from stablepay_console.web.signin import COOKIE, TOKEN_PARAMETER, SignIn, SignIns

if TYPE_CHECKING:
    from stablepay_console.web.settings import WebSettings

log = logging.getLogger("stablepay_console.web.access")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
OPEN_PATHS = frozenset({"/healthz"})
SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Every other method (the sign-out's POST) must come from a page of the console's own origin, as `/ws` must: the
cookie is SameSite=Strict, and the browser's Origin or Sec-Fetch-Site header says which page sent the form."""
SIGNIN_KEY = web.RequestKey("stablepay.signin", SignIn)
"""Where the guard leaves the request's sign-in for the handlers."""


def refuse(request: web.Request, status: int, title: str, why: str) -> web.Response:
    log.info("refused %s %s from=%s status=%d: %s", request.method, request.path, peer(request), status, why)
    return web.Response(status=status, text=refusal_page(title, why), content_type="text/html",
                        headers={"Cache-Control": "no-store"})


def signed_in(request: web.Request) -> SignIn:
    return request[SIGNIN_KEY]


def same_origin_fetch(request: web.Request) -> bool:
    """The browser says the request comes from a page of this origin (`Sec-Fetch-Site`, a header no page can set).
    A form's POST carries `Origin: null` under the pages' `Referrer-Policy: no-referrer`; this says it instead."""
    return request.headers.get("Sec-Fetch-Site", "").lower() == "same-origin"


def make_guard(settings: WebSettings, signins: SignIns) -> Middleware:
    """The middleware every request of the server passes first: who is signed in, and from which page."""

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path in OPEN_PATHS:
            return await handler(request)
        if settings.by_header:
            named = request.headers.get(settings.trusted_header)
            why = proxy_refusal(request, settings) if named is not None else None
            if why is not None:
                return refuse(request, 403, "Refused", why)
            found = signins.by_header(peer(request), named)
            if isinstance(found, str):
                return refuse(request, 403, "Refused", found)
            if found is None:
                return refuse(request, 401, "Not signed in", "Sign in through your company's sign-in page.")
            signin = found
        else:
            cookie_signin = signins.by_cookie(request.cookies.get(COOKIE))
            token = request.query.get(TOKEN_PARAMETER)
            if token is not None and request.path == "/" and request.method == "GET":
                if not signins.token_matches(token):
                    return refuse(request, 401, "Not signed in", "That sign-in link is wrong or from an earlier "
                                  "start of the server. Use the link the server printed when it started.")
                signin = cookie_signin or signins.start(signins.user, "token")
                if cookie_signin is None:
                    log.info("sign-in user=%s via=token from=%s session=%s", signin.user, peer(request), signin.short)
                # 303 to "/": the token leaves the address bar and the history (a Response: aiohttp wants an
                # HTTPException raised, not returned)
                response = web.Response(status=303, headers={"Location": "/"})
                response.set_cookie(COOKIE, signin.id, httponly=True, samesite="Strict", secure=settings.https,
                                    path="/")
                response.headers["Cache-Control"] = "no-store"
                response.headers["Referrer-Policy"] = "no-referrer"
                return response
            if cookie_signin is None:
                return refuse(request, 401, "Not signed in",
                              "Open the sign-in link the server printed when it started (it ends in ?token=…).")
            signin = cookie_signin
        from_own_page = (request.headers.get("Origin") or "").lower() == settings.origin
        if request.path == "/ws" and not from_own_page:
            return refuse(request, 403, "Refused", "the console's WebSocket opens only from the console's own page")
        if request.method not in SAFE_METHODS and not (from_own_page or same_origin_fetch(request)):
            return refuse(request, 403, "Refused", f"a {request.method} comes only from the console's own page")
        request[SIGNIN_KEY] = signin
        return await handler(request)

    return guard
