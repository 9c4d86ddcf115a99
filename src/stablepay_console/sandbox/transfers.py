"""Seeded batch transfers and onramps: one per interesting case (see `ids.SAMPLE_IDS`)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from stablepay_console.api.models import BatchTransfer, OnrampTransfer
from stablepay_console.sandbox.ids import (
    BATCH_50_ID,
    BATCH_FAILED_ID,
    BATCH_PENDING_ID,
    BATCH_SMALL_ID,
    BATCH_UNKNOWN_CHAIN_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
    ONRAMP_OPEN_NO_EXPIRY_ID,
)
from stablepay_console.sandbox.rfi_gen import new_uuid

REFRESHED_QUOTE_VALIDITY = timedelta(minutes=15)
"""A refreshed quote outlives the 10 minutes left on the first one, so a refresh always moves the expiry."""


def _hex(rng: random.Random, length: int) -> str:
    return "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(length))


def make_batch(
    rng: random.Random, now: datetime, users: list[str], transfer_id: str, recipients: int, chain: str,
    status: str = "COMPLETED",
) -> BatchTransfer:
    created = now - timedelta(days=rng.randint(1, 30), minutes=rng.randint(0, 600))
    batch = [
        {"amount": f"{rng.randint(1, 5000)}.{rng.randint(0, 99):02d}", "userId": rng.choice(users)}
        for _ in range(recipients)
    ]
    # Drawn in the order the first version of this data drew them, so the seeded world stays the same.
    request_id = new_uuid(rng)
    updated = created + timedelta(seconds=rng.randint(20, 400))
    source = {"userId": rng.choice(users), "walletAddress": _hex(rng, 40), "walletType": "INDIVIDUAL"}
    tx_hash: str | None = _hex(rng, 64)
    op_hash: str | None = _hex(rng, 64)
    if status == "PENDING":
        tx_hash = op_hash = None  # not yet on chain
    elif status == "FAILED":
        tx_hash = None  # the user operation was sent, no transaction came of it
    return BatchTransfer.model_validate(
        {
            "transferType": "WALLET.TRANSFER.BATCH",
            "transferDetails": {
                "id": transfer_id,
                "requestId": request_id,
                "createdAt": created.isoformat(),
                "updatedAt": updated.isoformat(),
                "chain": chain,
                "currency": "usdc",
                "contractAddress": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
                "status": status,
                "source": source,
                "destination": {"batch": batch},
                "receipt": {"transactionHash": tx_hash, "userOpHash": op_hash},
            },
        }
    )


def make_batches(rng: random.Random, now: datetime, users: list[str], seed: int) -> dict[str, BatchTransfer]:
    batches = {}
    cases = ((BATCH_50_ID, 50, "POLYGON"), (BATCH_SMALL_ID, 3, "POLYGON"), (BATCH_UNKNOWN_CHAIN_ID, 2, "NEWCHAIN"))
    for tid, n, chain in cases:
        batches[tid] = make_batch(rng, now, users, tid, n, chain)
    # Their own generator, so the batches above, the onramps and the metrics stay as they were.
    more = random.Random(seed * 7919 + 1)
    batches[BATCH_FAILED_ID] = make_batch(more, now, users, BATCH_FAILED_ID, 4, "POLYGON", status="FAILED")
    batches[BATCH_PENDING_ID] = make_batch(more, now, users, BATCH_PENDING_ID, 6, "POLYGON", status="PENDING")
    return batches


def quote_for(send: Decimal, rate: Decimal, expires: datetime | None) -> dict[str, Any]:
    fee = (send * Decimal("0.005")).quantize(Decimal("0.01"))
    net = send - fee
    receive = (net * rate).quantize(Decimal("0.01"))

    def money(amount: Decimal, currency: str) -> dict[str, str]:
        return {"amount": f"{amount:.2f}", "currency": currency}

    return {
        "sendGross": money(send, "usd"),
        "sendNet": money(net, "usd"),
        "railFee": money(fee, "usd"),
        "receiveGross": money(receive, "usdc"),
        "receiveNet": money(receive, "usdc"),
        "rate": str(rate),
        "expiresAt": expires.isoformat() if expires is not None else "N/A",
    }


def make_onramp(
    rng: random.Random, now: datetime, users: list[str], onramp_id: str, status: str, expiring: bool
) -> OnrampTransfer:
    created = now - timedelta(hours=rng.randint(1, 48))
    person = {"email": "ana.silva@example.com", "firstName": "Ana", "lastName": "Silva", "businessName": None}
    quote = quote_for(Decimal("1000.00"), Decimal("0.9987"), now + timedelta(minutes=10) if expiring else None)
    return OnrampTransfer.model_validate(
        {
            "transferType": "ONRAMP",
            "transferDetails": {
                "id": onramp_id,
                "requestId": new_uuid(rng),
                "createdAt": created.isoformat(),
                "updatedAt": created.isoformat(),
                "status": status,
                "failedReason": None,
                "source": {
                    "userId": users[0], "currency": "usd", "amount": Decimal("1000.00"), "accountId": None,
                    "user": person, "bankInfo": None,
                },
                "destination": {
                    "userId": users[0], "currency": "usdc", "chain": "POLYGON", "walletAddress": _hex(rng, 40),
                    "externalWalletId": None, "amount": None, "user": person,
                },
                "receipt": {"transactionHash": None},
                "developerFee": None,
                "virtualAccountId": None,
                "quoteInformation": quote,
                "depositInfo": None,
            },
        }
    )


def make_onramps(rng: random.Random, now: datetime, users: list[str]) -> dict[str, OnrampTransfer]:
    return {
        ONRAMP_OPEN_ID: make_onramp(rng, now, users, ONRAMP_OPEN_ID, "OPEN_QUOTE", expiring=True),
        ONRAMP_OPEN_NO_EXPIRY_ID: make_onramp(rng, now, users, ONRAMP_OPEN_NO_EXPIRY_ID, "OPEN_QUOTE", expiring=False),
        ONRAMP_COMPLETED_ID: make_onramp(rng, now, users, ONRAMP_COMPLETED_ID, "COMPLETED", expiring=False),
    }


def refreshed(current: OnrampTransfer, rng: random.Random, at: datetime) -> OnrampTransfer:
    """A new rate a little off the last one, and a new expiry (none stays none)."""
    old = current.quote
    old_rate = old.rate if old is not None else Decimal("0.9987")
    drift = Decimal(rng.choice((-1, 1)) * rng.randint(3, 25)) / Decimal(10000)
    rate = max(Decimal("0.9000"), min(Decimal("1.1000"), old_rate + drift)).quantize(Decimal("0.0001"))
    expires = None if old is not None and old.expires_at is None else at + REFRESHED_QUOTE_VALIDITY
    send = old.send_gross.amount if old is not None else Decimal("1000.00")
    wire = current.to_wire()
    wire["transferDetails"]["quoteInformation"] = quote_for(send, rate, expires)
    wire["transferDetails"]["updatedAt"] = at.isoformat()
    return OnrampTransfer.model_validate(wire)
