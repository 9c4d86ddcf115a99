"""The web server's access log: one line on standard error per sign-in, console, refusal and download.

Much of what a line holds comes from the request: its decoded path (`/x%0a…` is a line break, `%1b[…` an
escape sequence), an address, a name a proxy sent. Every line is written through the console's sanitiser,
so a control character shows as `\\n` or `\\x1b` and a request can neither forge a line nor act on the
operator's terminal. aiohttp's own loggers (a request it could not parse) write through the same handler,
as one line naming the error's type: never a traceback (it quotes the request, which may hold the token),
never the token or a cookie; and each kind of such trouble at most once a minute, however many connections
meet it.
"""

from __future__ import annotations

import logging
import sys

from stablepay_console.api.sanitize import clean

ACCESS = "stablepay_console.web.access"
QUIETER = {"textual-serve": logging.ERROR, "aiohttp": logging.WARNING, "asyncio": logging.WARNING,
           "stablepay_console.web.connections": logging.WARNING}
"""Other loggers of the server, through the same handler, at these levels (aiohttp's children included). What
they say is trouble with a connection, not a person's act: one line per kind per minute (web/connections.py)."""


class EscapedLines(logging.Formatter):
    """Each record as one line, every unsafe character escaped."""

    def format(self, record: logging.LogRecord) -> str:
        failure = record.exc_info[0] if record.exc_info else None
        record.exc_info = None  # a traceback quotes the request: its type says what went wrong
        record.exc_text = None
        record.stack_info = None
        line = super().format(record)
        if failure is not None:
            line += f" ({failure.__name__})"
        return clean(line)


def start_access_log() -> None:
    from stablepay_console.web.connections import OncePerMinute

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapedLines("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S"))
    handler.addFilter(OncePerMinute(passes=lambda record: record.name == ACCESS))
    for name, level in {ACCESS: logging.INFO, **QUIETER}.items():
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False
