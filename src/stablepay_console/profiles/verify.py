"""Check a key with `/ping` against a profile's base URL before it is kept (`profile add`, the form)."""

from __future__ import annotations

from dataclasses import dataclass

from stablepay_console.api import APIError, StablePayClient, Unauthorized
from stablepay_console.api.error_text import error_text
from stablepay_console.api.sanitize import clean


@dataclass(frozen=True)
class KeyCheck:
    """What `/ping` said of a key. `message` is one cleaned sentence that reads once."""

    ok: bool
    refused: bool
    """The server answered that the key is not authorised (not merely unreachable)."""
    message: str


async def check_key(client: StablePayClient, where: str) -> KeyCheck:
    """Ping with the client's key; the client is closed afterwards. `where` is the base URL, for the message."""
    shown = clean(where, 120)
    try:
        await client.ping()
    except Unauthorized as exc:
        return KeyCheck(False, True, f"{shown} refused the key ({error_text(exc)}). Nothing was saved.")
    except APIError as exc:
        return KeyCheck(False, False, f"The key could not be checked against {shown} ({error_text(exc)}).")
    finally:
        await client.aclose()
    return KeyCheck(True, False, f"The key works against {shown} (/ping answered).")
