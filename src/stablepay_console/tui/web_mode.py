"""Whether this console runs in a browser (`stablepay-console web` started it), and for whom.

The web server puts the signed-in name in the console's environment, never on its command line. In
a browser the console is one of many on a shared server: keys are the operator's (the profiles screen
is read-only), links go to the browser (https only, or loopback), and an export is a download.
"""

from __future__ import annotations

import os

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
