"""A browser's console is started before anyone has signed in for it, and told whom it serves once a tab asks.

The web server keeps one console process started (a spare: the interpreter up, the console's modules
imported, nothing shown, no user), and hands it to the next tab; then it starts the next spare. A process
the web server starts therefore never has a user in its environment or on its command line: it waits on
its standard input (a pipe only the server holds) for one hand-over packet, textual-serve's framing
(`M`, a 4-byte length, JSON), that names the signed-in user, the team record's role (or none) and the
terminal's size. Only then does the console put them in its own environment, where the rest of the
console reads them, and start. A process is handed over once: no spare ever serves a second person.

The process names itself `stablepay-spare` while it waits and `stablepay-web` once it serves someone, so
`ps` on the server tells them apart (the name is fixed: no user's name in it). The wait itself, and what is
imported meanwhile, is the entry's (`cli/spare.py`); this module is the packet, shared with the server.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from dataclasses import dataclass

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import variables

HAND_OVER = "hand_over"
"""The type of the one packet a waiting console reads."""
MAX_PACKET = 4096
SPARE_NAME = "stablepay-spare"
CONSOLE_NAME = "stablepay-web"
PR_SET_NAME = 15


class HandOverError(Exception):
    """The packet was not a hand-over: the console ends without starting."""


@dataclass(frozen=True)
class HandOver:
    user: str
    role: str | None
    """The team record's role its connections `SET ROLE` to; None without a team record."""
    width: int
    height: int


def encode(hand_over: HandOver) -> bytes:
    """The packet the web server writes to a waiting console's standard input."""
    payload = json.dumps({"type": HAND_OVER, "user": hand_over.user, "role": hand_over.role,
                          "width": hand_over.width, "height": hand_over.height}).encode()
    return b"M" + len(payload).to_bytes(4, "big") + payload


def decode(payload: bytes) -> HandOver:
    try:
        found = json.loads(payload)
    except ValueError:
        raise HandOverError("the hand-over is not JSON") from None
    if not isinstance(found, dict) or found.get("type") != HAND_OVER:
        raise HandOverError("the first packet is not a hand-over")
    user, role = found.get("user"), found.get("role")
    width, height = found.get("width"), found.get("height")
    if not isinstance(user, str) or not user or clean(user, 63) != user:
        raise HandOverError("the hand-over names no user")
    if role is not None and role != user:
        raise HandOverError("the hand-over's role is not its user")
    if not isinstance(width, int) or not isinstance(height, int):
        raise HandOverError("the hand-over gives no terminal size")
    return HandOver(user, role, min(max(width, 10), 500), min(max(height, 5), 300))


def read_exactly(fd: int, count: int) -> bytes:
    """`count` bytes of `fd`, read with os.read (textual's input reader reads the same descriptor after us, so
    nothing may sit in a Python buffer); ends the process quietly when the server closed the pipe."""
    data = bytearray()
    while len(data) < count:
        chunk = os.read(fd, count - len(data))
        if not chunk:
            raise SystemExit(0)  # the server went, or stopped this spare: nobody to serve
        data.extend(chunk)
    return bytes(data)


def read_hand_over(fd: int = 0) -> HandOver:
    header = read_exactly(fd, 5)
    size = int.from_bytes(header[1:], "big")
    if header[:1] != b"M" or size > MAX_PACKET:
        raise HandOverError("the first packet is not a hand-over")
    return decode(read_exactly(fd, size))


def take_over(hand_over: HandOver) -> None:
    """The console's own environment from here on: who it serves, and the terminal's size."""
    os.environ.pop(variables.WEB_HAND_OVER, None)
    os.environ[variables.WEB_USER] = hand_over.user
    if hand_over.role is None:
        os.environ.pop(variables.RECORD_ROLE, None)
    else:
        os.environ[variables.RECORD_ROLE] = hand_over.role
    os.environ["COLUMNS"], os.environ["ROWS"] = str(hand_over.width), str(hand_over.height)


def name_process(name: str) -> None:
    """The process's name in `ps` and /proc/PID/comm (Linux), its command line untouched."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0)
    except (OSError, AttributeError):
        return
