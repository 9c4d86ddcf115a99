"""`stablepay-console web`: check the arguments, then serve (the `web` package does the serving)."""

from __future__ import annotations

import argparse
import sys

from stablepay_console.cli.arguments import say

INSTALL = "install the web extra: pip install 'stablepay-console[web]'"


def fail(message: str) -> int:
    print(f"stablepay-console web: {say(message)}", file=sys.stderr)
    return 2


def run_web(args: argparse.Namespace) -> int:
    import getpass

    try:
        import textual_serve  # noqa: F401
    except ImportError:
        return fail(f"textual-serve is not installed; {INSTALL}.")
    from stablepay_console.storage.team import url as record_url
    from stablepay_console.web.settings import WebSettings, check_public_url, proxy_network
    from stablepay_console.web.signin import SignIns, valid_user

    try:
        public_url = check_public_url(args.public_url) if args.public_url else ""
        proxies = tuple(proxy_network(text) for text in args.trusted_proxy)
    except ValueError as exc:
        return fail(str(exc))
    if args.trusted_header and not proxies:
        return fail("--trusted-header needs at least one --trusted-proxy (the proxy's address)")
    if proxies and not args.trusted_header:
        return fail("--trusted-proxy is used with --trusted-header")
    settings = WebSettings(
        host=args.host, port=args.port, public_url=public_url, trusted_header=args.trusted_header,
        trusted_proxies=proxies, max_sessions_per_user=args.max_sessions_per_user,
        max_sessions=args.max_sessions, idle_seconds=max(args.idle_minutes, 0.01) * 60, profile=args.profile,
    )
    team = None
    chosen = record_url.chosen()
    if chosen is not None:
        try:
            team = record_url.parse(chosen[0])
        except record_url.RecordUrlError as exc:
            return fail(f"the team record URL ({chosen[1]}) cannot be used: {exc}")
    import os

    from stablepay_console.storage.team.connection import ROLE_VARIABLE

    os.environ.pop(ROLE_VARIABLE, None)  # the server itself logs in as the authenticator; only consoles SET ROLE
    user = getpass.getuser()
    if not settings.by_header and not valid_user(user):
        return fail(f"this account's name ({user!r}) cannot name a console user")
    from stablepay_console.web.server import ConsoleServer

    ConsoleServer(settings, SignIns(settings, user), team).serve()
    return 0
