"""What a broken or hostile server sends, as plain Python: one `Reply` per (case, endpoint, call).

`reply(case, endpoint, query, call)` is the whole behaviour of the hostile server
(tests/hostile_server.py serves it over loopback HTTP; `mock_transport` there
serves it in-process through httpx.MockTransport). Streamed bodies (the gzip
bomb, the 200 MB body, the trickle) are generated lazily, never held whole.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

HOSTILE = (
    "\x1b[2J\x1b[H"  # clear the screen
    "\x1b]0;pwned\x07"  # window title
    "\x1b]52;c;cGFzdGVkIGJ5IGF0dGFja2Vy\x07"  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"  # OSC 8 hyperlink
    "\x9b31m\x9d0;c1-title\x9c\x85"  # C1: CSI, OSC, ST, NEL
    "\u202egnp.exe\u202c\u2066iso\u2069\u200f"  # bidi override, isolate, mark
    "line\u2028sep\u2029para"  # line and paragraph separators
    "zero\u200bwidth\u200c\u200d\u2060\ufeff"  # zero-width characters
    "\x00\x07\x08\x7f"  # NUL, BEL, backspace, DEL
)
"""Every kind of dangerous character, in one string."""

RAW_CHARS = frozenset(
    "\x1b\x9b\x9d\x9c\x85\u202e\u202c\u2066\u2069\u200f\u2028\u2029\u200b\u200c\u200d\u2060\ufeff\x00\x07\x08\x7f"
)
"""The characters of HOSTILE that must never come out raw."""

BIG_TOTAL = 10**13
BASE_TIME = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
LIST_SIZE = 45
BOMB_INFLATED = 1 << 30
HUGE_BODY = 200 * 1000 * 1000
TRICKLE_BYTES = 64


@dataclass
class Reply:
    """One response: a body held whole, or `chunks` produced lazily (with `pause` seconds between them)."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    chunks: Callable[[], Iterator[bytes]] | None = None
    length: int | None = None
    pause: float = 0.0


def raw(number: str) -> str:
    """A marker for a JSON number literal json.dumps cannot write (`1e400`, `1e999999999`)."""
    return f"@@raw:{number}@@"


def to_json(payload: Any) -> bytes:
    text = json.dumps(payload, ensure_ascii=False)
    return re.sub(r'"@@raw:([^@]+)@@"', r"\1", text).encode("utf-8")


def json_reply(payload: Any, status: int = 200) -> Reply:
    return Reply(status=status, body=to_json(payload))


# --- resources ------------------------------------------------------------------


def uid(n: int, kind: int = 0) -> str:
    return f"00000000-0000-4{kind:03x}-8000-{n % 16**12:012x}"


def item(n: int, text: str = "", item_id: str | None = None) -> dict[str, Any]:
    return {
        "id": item_id or uid(n, 1),
        "kind": "document" if n % 2 else "question",
        "label": f"Item {n}{text}",
        "docType": ("bank_statement" + text) if n % 2 else None,
        "detail": f"Detail {n}{text}",
        "required": n % 3 == 0,
    }


def rfi(n: int, text: str = "", items: int = 2, rfi_id: str | None = None) -> dict[str, Any]:
    """The n-th newest RFI of a list (n=0 is the newest; negative n are newer still)."""
    created = BASE_TIME - timedelta(minutes=n)
    return {
        "id": rfi_id or (uid(n) + text if text else uid(n)),
        "kind": "transaction" + text,
        "status": "issued" + text,
        "subjectType": "individual" + text,
        "userId": uid(n, 2) + text,
        "transferId": uid(n, 3) + text,
        "flowType": "onramp" + text,
        "createdAt": created.isoformat(),
        "currentRound": 1,
        "round": {
            "id": uid(n, 4) + text,
            "round": 1,
            "issuedAt": created.isoformat(),
            "expiresAt": (created + timedelta(days=7)).isoformat(),
            "submittedAt": None,
            "items": [item(i, text, uid(i, 1) + text if text else None) for i in range(items)],
            "link": f"https://hosted.example/rfi/{n}{text}",
        },
    }


def page(rows: list[dict[str, Any]], limit: int, offset: int, total: int) -> dict[str, Any]:
    return {"data": rows, "pagination": {"limit": limit, "offset": offset, "total": total}}


def batch(text: str = "", amounts: list[str] | None = None, recipients: int = 3) -> dict[str, Any]:
    amounts = amounts if amounts is not None else [f"{i + 1}.25" for i in range(recipients)]
    return {
        "transferType": "WALLET.TRANSFER.BATCH" + text,
        "transferDetails": {
            "id": uid(1, 5) + text,
            "requestId": uid(2, 5) + text,
            "createdAt": BASE_TIME.isoformat(),
            "updatedAt": BASE_TIME.isoformat(),
            "chain": "POLYGON" + text,
            "currency": "usdc" + text,
            "contractAddress": "0x3c499c542cef5e3811e1192ce70d8cc03d5c3359" + text,
            "status": "COMPLETED" + text,
            "source": {"userId": uid(3, 5) + text, "walletAddress": "0xabc" + text, "walletType": "INDIVIDUAL" + text},
            "destination": {"batch": [{"amount": a, "userId": uid(i, 6) + text} for i, a in enumerate(amounts)]},
            "receipt": {"transactionHash": "0xfeed" + text, "userOpHash": "0xbeef" + text},
        },
    }


def _money(amount: str, currency: str) -> dict[str, str]:
    return {"amount": amount, "currency": currency}


def onramp(text: str = "", rate: str = "0.9990", amount: str = "100.00") -> dict[str, Any]:
    user = {"email": "a@example.com" + text, "lastName": "Doe" + text, "firstName": "Jo" + text,
            "businessName": "Acme" + text}
    return {
        "transferType": "ONRAMP" + text,
        "transferDetails": {
            "id": uid(1, 7) + text,
            "requestId": uid(2, 7) + text,
            "createdAt": BASE_TIME.isoformat(),
            "updatedAt": BASE_TIME.isoformat(),
            "status": "OPEN_QUOTE" + text,
            "failedReason": text or None,
            "source": {"userId": uid(3, 7) + text, "currency": "usd" + text, "amount": 100, "accountId": None,
                       "user": user, "bankInfo": None},
            "destination": {"userId": uid(4, 7) + text, "currency": "usdc" + text, "chain": "POLYGON" + text,
                            "walletAddress": "0xdef" + text, "externalWalletId": None, "amount": None, "user": user},
            "receipt": {"transactionHash": None},
            "developerFee": None,
            "virtualAccountId": None,
            "quoteInformation": {
                "sendGross": _money(amount, "usd" + text),
                "sendNet": _money(amount, "usd" + text),
                "railFee": _money("0.00", "usd" + text),
                "receiveGross": _money(amount, "usdc" + text),
                "receiveNet": _money(amount, "usdc" + text),
                "rate": rate,
                "expiresAt": (BASE_TIME + timedelta(minutes=10)).isoformat(),
            },
            "depositInfo": None,
        },
    }


def metric(text: str = "", value: Any = 10, period: str = "2026-11-01", field_name: str = "grossVolume") -> dict:
    rows = [
        {"periodStart": period, field_name + text: value, "transactionType": "onramp" + text},
        {"periodStart": "2026-11-02", field_name + text: 12, "transactionType": "offramp" + text},
    ]
    return {
        "status": "success" + text,
        "data": rows,
        "metadata": {
            "template": "GROSS_VOLUME" + text,
            "recordCount": len(rows),
            "projectedRowCount": None,
            "filledCount": 0,
            "calculationInterval": "day" + text,
            "dateRange": {"start": "2026-11-01", "end": "2026-11-02"},
            "filters": {"transactionTypes": {"applied": "subset" + text, "specified": True,
                                             "values": ["onramp" + text], "note": text or None}},
            "breakdowns": ["transactionType" + text],
        },
    }


# --- streamed bodies --------------------------------------------------------------


@cache
def gzip_bomb() -> bytes:
    """About 1 MB of gzip that inflates to 1 GiB (a JSON object start, then spaces).

    Built from one repeated deflate block (each ends with a full flush, so every copy is
    byte-identical), never by compressing 1 GiB.
    """
    chunk = b" " * (1 << 20)
    prefix = b'{"data": ['
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(prefix + chunk[len(prefix):]) + comp.flush(zlib.Z_FULL_FLUSH)
    block = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(chunk) + comp.flush(zlib.Z_FULL_FLUSH)
    assert block == again, "deflate blocks are not repeatable"
    count = BOMB_INFLATED >> 20
    end = comp.flush(zlib.Z_FINISH)
    crc = zlib.crc32(prefix + chunk[len(prefix):])
    for _ in range(count - 1):
        crc = zlib.crc32(chunk, crc)
    header = gzip.compress(b"", mtime=0)[:10]
    trailer = crc.to_bytes(4, "little") + (BOMB_INFLATED % 2**32).to_bytes(4, "little")
    return header + first + block * (count - 1) + end + trailer


def bomb_reply() -> Reply:
    return Reply(body=gzip_bomb(), headers={"content-type": "application/json", "content-encoding": "gzip"})


def huge_reply(size: int = HUGE_BODY) -> Reply:
    piece = b" " * (1 << 16)

    def chunks() -> Iterator[bytes]:
        yield b'{"data": ['
        sent = 10
        while sent < size:  # bounded by `size`
            part = piece[: min(len(piece), size - sent)]
            sent += len(part)
            yield part

    return Reply(chunks=chunks, length=size)


def trickle_reply(interval: float, size: int = TRICKLE_BYTES) -> Reply:
    body = (b'{"message": "pong"' + b" " * size)[:size - 1] + b"}"

    def chunks() -> Iterator[bytes]:
        for i in range(len(body)):
            yield body[i : i + 1]

    return Reply(chunks=chunks, length=len(body), pause=interval)
