"""Where the key check answers: `/ping`, as the contract has it, or `/v2/ping`, where the provider's own published
description puts it.

A 404 from one is followed by one try of the other, and the one that answered (anything but a 404) is remembered
for that server while the process runs, so each later check is one request. A 404 from both is the first one's
error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from stablepay_console.api.errors import APIError
from stablepay_console.api.models import Pong

PING_PATHS: dict[str, str] = {}
"""Base URL -> where its key check answered last ("/ping" or "/v2/ping"), for as long as the process runs."""


async def check_key(base_url: str, get: Callable[[str], Awaitable[Pong]]) -> Pong:
    """The key check against `base_url`; `get(path)` asks the server (the client's own GET)."""
    first = PING_PATHS.get(base_url, "/ping")
    try:
        return await _at(base_url, first, get)
    except APIError as exc:
        if exc.status != 404:
            raise
        refused = exc
    other = "/v2/ping" if first == "/ping" else "/ping"
    try:
        return await _at(base_url, other, get)
    except APIError as exc:
        if exc.status == 404:
            raise refused from None
        raise


async def _at(base_url: str, path: str, get: Callable[[str], Awaitable[Pong]]) -> Pong:
    try:
        pong = await get(path)
    except APIError as exc:
        if exc.status is not None and exc.status != 404:
            PING_PATHS[base_url] = path  # the route is there: it refused the key, or failed
        raise
    PING_PATHS[base_url] = path
    return pong
