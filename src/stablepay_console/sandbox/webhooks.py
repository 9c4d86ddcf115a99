"""The sandbox's webhook deliveries, as the provider sends them (`sandbox serve --webhook-url --webhook-signing-key`).

For every transaction request raised, asked again, answered or closed through the control routes
(`/_sandbox/...`), the provider's envelope is POSTed to the URL: `eventId`, `eventCategory`, `eventType`
(`ONRAMP.RFI.OPEN`, `ONRAMP.RFI.CLOSED`, `OFFRAMP.RFI.OPEN`, `OFFRAMP.RFI.CLOSED`), `eventAction`, `data`
(the transfer in its retrieve shape, `transferType` / `transferDetails`, not the request), `createdAt`,
`timestamp` and `version` "v2". Raised and asked again are OPEN; answered and closed are CLOSED (the round
no longer takes replies). Onboarding requests have no event, as with the provider.

Each delivery carries `Authorization: Bearer <JWT>` signed RS256 with the key file given, with claims `iat`,
`exp` (`TOKEN_MINUTES` later) and `bodySha256` (hex SHA-256 of the body sent). A failed delivery (no
answer, or a 5xx) is retried after 1, 2, 4 and 8 seconds (`ATTEMPTS` in all, each signed anew); a 2xx
acknowledges it and a 4xx is not retried, as the provider does. Each outcome is printed on one line.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey

    from stablepay_console.api.models import Rfi

TOKEN_MINUTES = 5
ATTEMPTS = 5
BACKOFF = (1.0, 2.0, 4.0, 8.0)
"""Seconds before the 2nd, 3rd, 4th and 5th attempt."""
SEND_SECONDS = 10.0
OPEN, CLOSED = "OPEN", "CLOSED"
ACTIONS = {"raised": OPEN, "asked again": OPEN, "answered": CLOSED, "closed": CLOSED}


def load_signing_key(path: Path) -> RSAPrivateKey:
    """An RSA private key in PEM (unencrypted); ValueError saying what is wrong otherwise."""
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"Cannot read the webhook signing key {path}: {exc.strerror or exc}.") from None
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise ValueError(f"The webhook signing key {path} is not an unencrypted PEM private key.") from None
    if not isinstance(key, RSAPrivateKey):
        raise ValueError(f"The webhook signing key {path} is not an RSA key (deliveries are signed RS256).")
    return key


def _stamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def transfer_of(rfi: Rfi) -> dict[str, Any]:
    """The request's transfer as its retrieve endpoint would return it (the fields the sandbox knows)."""
    flow = (rfi.flow_type or "onramp").upper()
    return {
        "transferType": flow,
        "transferDetails": {
            "id": rfi.transfer_id,
            "status": "HELD" if rfi.status != "resolved" else "RELEASED",
            "source": {"userId": rfi.user_id},
            "destination": {"userId": rfi.user_id},
        },
    }


def envelope(rfi: Rfi, action: str, moment: float) -> dict[str, Any]:
    kind = ACTIONS[action]
    flow = (rfi.flow_type or "onramp").upper()
    return {
        "eventId": str(uuid.uuid4()),
        "eventCategory": flow,
        "eventType": f"{flow}.RFI.{kind}",
        "eventAction": kind,
        "data": transfer_of(rfi),
        "createdAt": _stamp(moment),
        "timestamp": _stamp(moment),
        "version": "v2",
    }


def sign(body: bytes, key: RSAPrivateKey, moment: float) -> str:
    import jwt

    claims = {"iat": int(moment), "exp": int(moment) + TOKEN_MINUTES * 60,
              "bodySha256": hashlib.sha256(body).hexdigest()}
    return jwt.encode(claims, key, algorithm="RS256")


@dataclass
class WebhookSender:
    """Queues the deliveries and sends them one after another, from the server's own event loop."""

    url: str
    key: RSAPrivateKey
    say: Callable[[str], None] = field(default=lambda line: print(line, flush=True, file=sys.stdout))
    backoff: tuple[float, ...] = BACKOFF
    sent: list[tuple[str, int | None]] = field(default_factory=list)
    """(eventId, last status or None) of each delivery finished."""
    _queue: asyncio.Queue[bytes] | None = None
    _task: asyncio.Task[None] | None = None

    def announce(self, rfi: Rfi, action: str) -> None:
        """A transaction request changed (`raised`, `asked again`, `answered`, `closed`): deliver its event."""
        if rfi.kind != "transaction" or rfi.transfer_id is None:
            return
        body = json.dumps(envelope(rfi, action, time.time()), separators=(",", ":")).encode()
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._task = asyncio.get_running_loop().create_task(self._run())
        self._queue.put_nowait(body)

    async def _run(self) -> None:
        import httpx

        assert self._queue is not None
        async with httpx.AsyncClient(timeout=SEND_SECONDS, trust_env=False) as client:
            while True:
                body = await self._queue.get()
                await self._deliver(client, body)

    async def _deliver(self, client: Any, body: bytes) -> None:
        import httpx

        event = json.loads(body)
        what = f"webhook {event['eventId']} {event['eventType']}"
        status: int | None = None
        for attempt in range(1, len(self.backoff) + 2):
            headers = {"authorization": f"Bearer {sign(body, self.key, time.time())}",
                       "content-type": "application/json"}
            try:
                status = (await client.post(self.url, content=body, headers=headers)).status_code
                outcome = str(status)
            except httpx.HTTPError as exc:
                status, outcome = None, f"not delivered ({type(exc).__name__})"
            done = status is not None and status < 500
            left = len(self.backoff) + 1 - attempt
            if done or not left:
                self.say(f"{what}: {outcome} (attempt {attempt})" + ("" if done else ", given up"))
                break
            wait = self.backoff[attempt - 1]
            self.say(f"{what}: {outcome} (attempt {attempt}), again in {wait:g} s")
            await asyncio.sleep(wait)
        self.sent.append((event["eventId"], status))
