"""`stablepay-console web`: check the arguments, then serve (the `web` package does the serving)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from stablepay_console.cli.arguments import say
from stablepay_console.cli.output import to_stderr
from stablepay_console.storage import variables

if TYPE_CHECKING:
    from stablepay_console.storage.postgres.url import TeamUrl
    from stablepay_console.web.settings import WebSettings

INSTALL = "install the web extra: pip install 'stablepay-console[web]'"


def fail(message: str) -> int:
    to_stderr(f"stablepay-console web: {say(message)}")
    return 2


def settings_from(args: argparse.Namespace) -> WebSettings:
    """The server's settings from its flags; raises ValueError saying which flags do not go together."""
    from stablepay_console.web.proxy import read_secret
    from stablepay_console.web.settings import WebSettings, check_public_url, proxy_network

    public_url = check_public_url(args.public_url) if args.public_url else ""
    proxies = tuple(proxy_network(text) for text in args.trusted_proxy)
    if args.socket and proxies:
        raise ValueError("--trusted-proxy names addresses; with --socket the proxy is whoever may open the socket")
    if args.socket and not public_url:
        raise ValueError("--socket needs --public-url: the address browsers use (the proxy's)")
    if args.trusted_header and not (proxies or args.socket):
        raise ValueError("--trusted-header needs --socket or at least one --trusted-proxy (the proxy's address)")
    if (proxies or args.trusted_header_secret_file) and not args.trusted_header:
        raise ValueError("--trusted-proxy and --trusted-header-secret-file are used with --trusted-header")
    secret = read_secret(args.trusted_header_secret_file) if args.trusted_header_secret_file else ""
    return WebSettings(
        host=args.host, port=args.port, public_url=public_url, trusted_header=args.trusted_header,
        trusted_proxies=proxies, socket_path=args.socket, proxy_secret=secret,
        max_sessions_per_user=args.max_sessions_per_user,
        max_sessions=args.max_sessions, idle_seconds=max(args.idle_minutes, 0.01) * 60, profile=args.profile,
        unclaimed_seconds=args.unclaimed_seconds, spare=not args.no_spare,
    )


def console_refusal(settings: WebSettings, team: TeamUrl | None) -> bool:
    """Whether a console could not start here (said on stderr as a shell command says it): its profile and
    key, as each console will pick them, and the team record as the server's login reaches it."""
    import os

    from stablepay_console.cli.console import start_profile
    from stablepay_console.storage.record import RecordError

    if settings.profile:
        os.environ[variables.PROFILE] = settings.profile  # each console gets it too
    if start_profile(argparse.Namespace()) is None:  # it says why, as the console would
        return True
    if team is not None:
        from stablepay_console.storage.postgres.signin_roles import check_record, check_someone_granted

        try:
            check_record(team)
            check_someone_granted(team)  # else every signed-in person would be refused
        except RecordError as exc:
            to_stderr(f"stablepay-console: {say(str(exc))}")
            return True
    return False


def run_web(args: argparse.Namespace) -> int:
    import getpass
    import os

    try:
        import textual_serve  # noqa: F401
    except ImportError:
        return fail(f"textual-serve is not installed; {INSTALL}.")
    from stablepay_console.storage.postgres import url as record_url
    from stablepay_console.storage.postgres.connection import ROLE_VARIABLE
    from stablepay_console.web.proxy import unix_socket
    from stablepay_console.web.signin import SignIns, startup_refusal

    try:
        settings = settings_from(args)
    except ValueError as exc:
        return fail(str(exc))
    team = None
    chosen = record_url.chosen()
    if chosen is not None:
        try:
            team = record_url.parse(chosen[0])
        except record_url.RecordUrlError as exc:
            return fail(f"the team record URL ({chosen[1]}) cannot be used: {exc}")
    os.environ.pop(ROLE_VARIABLE, None)  # the server itself logs in as the authenticator; only consoles SET ROLE
    user = getpass.getuser()
    why = startup_refusal(settings, team=team is not None, server_user=user)
    if why is not None:  # no sign-in could get a console: never a server whose every tab is refused
        return fail(why)
    if console_refusal(settings, team):
        return 2
    from stablepay_console.web.server import ConsoleServer

    try:
        listener = unix_socket(settings.socket_path) if settings.socket_path else None
    except ValueError as exc:
        return fail(str(exc))
    ConsoleServer(settings, SignIns(settings, user), team, listener).serve()
    return 0
