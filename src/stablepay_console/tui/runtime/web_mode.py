"""Whether this console runs in a browser (`stablepay-console web` started it), and for whom.

The web server puts the signed-in name in the console's environment, never on its command line. In
a browser the console is one of many on a shared server: keys are the operator's (the profiles screen
is read-only), links go to the browser (https only, or loopback), and an export is a download.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import variables

WEB_USER_VARIABLE = variables.WEB_USER
READ_ONLY = (
    "In the browser, profiles and keys are read-only: keys live on the server, and its operator adds and "
    "rotates them there with `stablepay-console profile …`. Enter still switches profile."
)


def web_user() -> str:
    """Who signed in to the browser this console serves; "" in a terminal."""
    return clean(os.environ.get(WEB_USER_VARIABLE, "").strip(), 63)


def in_browser() -> bool:
    return bool(web_user())


PR_SET_PDEATHSIG = 1


def end_with_the_server() -> None:
    """In a browser, the console's terminal is the web server: when the server goes, even killed outright, the
    kernel sends this console SIGHUP, as a closed terminal does, and it ends within 2 s (Linux's
    PR_SET_PDEATHSIG). Without it a console whose server died would run on with nobody to see it: textual's
    web driver only stops reading when its input ends. Nothing in a terminal."""
    if in_browser():
        end_with_parent()


def end_with_parent() -> None:
    """SIGHUP from the kernel when the parent process goes (Linux), and at once if it has gone already."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGHUP, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent == 1 or os.getppid() != parent:  # the server went before the request took hold
        os.kill(os.getpid(), signal.SIGHUP)
