"""Deterministic, seeded sandbox data built from the api models."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from stablepay_console.api.models import (
    DOC_TYPES,
    BatchTransfer,
    MetricResult,
    OnrampTransfer,
    Rfi,
    RfiItem,
    RfiRound,
)
from stablepay_console.sandbox.rfi_store import RfiStore

# Well-known IDs, so the README, the screenshots and the tests can name them.
BATCH_50_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000050"
BATCH_SMALL_ID = "6f1c2a10-5b7e-4c1d-9a33-000000000003"
BATCH_UNKNOWN_CHAIN_ID = "6f1c2a10-5b7e-4c1d-9a33-0000000000aa"
ONRAMP_OPEN_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a001"
ONRAMP_OPEN_NO_EXPIRY_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000a002"
ONRAMP_COMPLETED_ID = "2b7d9e40-8c1a-4f6e-b2d5-00000000c001"
METRIC_DAILY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000d1"
METRIC_TX_COUNT_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000b2"
METRIC_MONTHLY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000a3"
METRIC_HOURLY_VOLUME_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000e4"
METRIC_EMPTY_ID = "9a0e7c55-1d2b-4e3f-8a6b-0000000000f5"

BOOKMARKED_METRICS = (
    ("Daily gross volume", METRIC_DAILY_VOLUME_ID),
    ("Transaction count by type and status", METRIC_TX_COUNT_ID),
    ("Monthly gross volume", METRIC_MONTHLY_VOLUME_ID),
    ("Hourly gross volume", METRIC_HOURLY_VOLUME_ID),
)
"""What a new user of the built-in sandbox finds bookmarked on the metrics screen."""

SAMPLE_IDS = (
    ("batch", "50 recipients", BATCH_50_ID),
    ("batch", "3 recipients", BATCH_SMALL_ID),
    ("batch", "a chain with no known explorer", BATCH_UNKNOWN_CHAIN_ID),
    ("onramp", "open quote", ONRAMP_OPEN_ID),
    ("onramp", "open quote, no expiry", ONRAMP_OPEN_NO_EXPIRY_ID),
    ("onramp", "completed: cannot be refreshed", ONRAMP_COMPLETED_ID),
)
"""(kind, what case it shows, ID): IDs a new user can try on the batch and quote screens."""

SANDBOX_KEY = "sk_sandbox_7f3a9c2e5d1b4a6f8e0c2d4b6a8f0e1c"
"""The key the embedded sandbox accepts out of the box (sandbox only: it moves no money)."""

REFRESHED_QUOTE_VALIDITY = timedelta(minutes=15)
"""A refreshed quote outlives the 10 minutes left on the first one, so a refresh always moves the expiry."""

UNKNOWN_DOC_TYPE = "utility_bill_scan"
"""A docType the spec does not list: clients must show it as an untyped document request."""

_ITEM_CATALOGUE: list[tuple[str, str | None, str, str | None]] = [
    ("document", "proof_of_address", "Proof of address dated within the last 3 months", "Utility bill or bank letter"),
    ("document", "source_of_funds", "Evidence of the source of funds for this transfer", None),
    ("document", "bank_statement", "Bank statements covering the last 3 months", "All pages, PDF preferred"),
    ("document", "government_id", "Government-issued photo ID", "Passport or national ID card, both sides"),
    ("document", "selfie", "Selfie holding the ID document", None),
    ("document", "incorporation_docs", "Certificate of incorporation", None),
    ("document", "ownership_structure", "Ownership structure chart down to 25% owners", None),
    ("document", "invoice", "Invoice for the goods or services paid", "Must show both parties"),
    ("document", "contract", "Signed contract with the counterparty", None),
    ("document", UNKNOWN_DOC_TYPE, "Scanned utility bill (new document kind)", None),
    ("document", None, "Any other document that explains the payment", "Free-form; explain if unavailable"),
    ("question", None, "What is the purpose of this transfer?", None),
    ("question", None, "What is your relationship with the recipient?", "Family, business partner, self..."),
    ("question", None, "Describe the expected monthly volume", None),
]


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


@dataclass
class SandboxData:
    """Everything the sandbox serves, generated from a seed and a notion of now."""

    seed: int = 7
    rfi_count: int = 240
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    frozen: bool = False
    """True when `now` was given (tests): refreshes then happen at `now`, not at the wall clock."""
    rfis: RfiStore = field(default_factory=RfiStore)
    batches: dict[str, BatchTransfer] = field(default_factory=dict)
    onramps: dict[str, OnrampTransfer] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.now = self.now.replace(microsecond=0)
        rng = random.Random(self.seed)
        self.users = [_uuid(rng) for _ in range(40)]
        # Each RFI is built as a model (so the sandbox only ever sends what the client reads),
        # then kept as its wire JSON: a large sandbox stays small in memory.
        self.rfis = RfiStore(self._make_rfi(rng, i) for i in range(self.rfi_count))
        self._make_batches(rng)
        self._make_onramps(rng)
        self._make_metrics(rng)

    # --- RFIs -------------------------------------------------------------------

    def _items(self, rng: random.Random, round_no: int) -> list[RfiItem]:
        count = rng.randint(1, 5)
        picks = rng.sample(_ITEM_CATALOGUE, count)
        items = []
        for n, (kind, doc_type, label, detail) in enumerate(picks):
            if round_no > 1 and n == 0:
                label = f"{label} (asked again: the first reply was incomplete)"
            items.append(
                RfiItem(
                    id=_uuid(rng),
                    kind=kind,
                    label=label,
                    doc_type=doc_type if kind == "document" else None,
                    detail=detail,
                    required=rng.random() < 0.7,
                )
            )
        return items

    def _make_rfi(self, rng: random.Random, index: int) -> Rfi:
        # Newest first: each request a few hours older than the one before.
        created = self.now - timedelta(minutes=30 + index * 173 + rng.randint(0, 120))
        kind = "transaction" if rng.random() < 0.6 else "onboarding"
        status = rng.choices(["issued", "submitted", "resolved", "expired"], weights=[35, 25, 28, 12])[0]
        if index < 3:
            status = "issued"  # the top of the inbox always has something to act on
        round_no = 1 if rng.random() < 0.7 else rng.randint(2, 3)
        issued_at = created + timedelta(minutes=5) + timedelta(days=3 * (round_no - 1))
        issued_at = min(issued_at, self.now - timedelta(minutes=1))
        round_: RfiRound | None
        deadline = self._deadline(rng, status, index)
        submitted = None
        if status in ("submitted", "resolved"):
            submitted = min(issued_at + timedelta(hours=rng.randint(2, 60)), self.now - timedelta(minutes=2))
            submitted = max(submitted, issued_at)  # a round issued a minute ago cannot be answered before it
        link = f"https://sandbox.stablepay.example/rfi/respond/{_uuid(rng)}" if status == "issued" else None
        if status == "resolved" and rng.random() < 0.4:
            round_ = None  # closed with no open round
        else:
            round_ = RfiRound(
                id=_uuid(rng),
                round=round_no,
                issued_at=issued_at,
                expires_at=deadline,
                submitted_at=submitted,
                items=self._items(rng, round_no),
                link=link,
            )
        return Rfi(
            id=_uuid(rng),
            kind=kind,
            status=status,
            subject_type="business" if rng.random() < 0.35 else "individual",
            user_id=rng.choice(self.users),
            transfer_id=_uuid(rng) if kind == "transaction" else None,
            flow_type=rng.choice(["onramp", "offramp"]) if kind == "transaction" else None,
            created_at=created,
            current_round=round_.round if round_ is not None else None,
            round=round_,
        )

    def _deadline(self, rng: random.Random, status: str, index: int) -> datetime | None:
        if status == "issued":
            if index % 11 == 5:
                return None  # a round with no deadline
            if index % 17 == 9:
                return self.now - timedelta(hours=rng.randint(1, 20))  # overdue, not yet swept
            if index % 4 == 0 or index < 3:
                return self.now + timedelta(hours=rng.randint(1, 20), minutes=rng.randint(0, 59))
            return self.now + timedelta(days=rng.randint(2, 14), hours=rng.randint(0, 23))
        if status == "expired":
            return self.now - timedelta(days=rng.randint(1, 90))
        return self.now + timedelta(days=rng.randint(-30, 10))

    # --- Batches ----------------------------------------------------------------

    def _batch(self, rng: random.Random, transfer_id: str, recipients: int, chain: str) -> BatchTransfer:
        created = self.now - timedelta(days=rng.randint(1, 30), minutes=rng.randint(0, 600))
        batch = [
            {"amount": f"{rng.randint(1, 5000)}.{rng.randint(0, 99):02d}", "userId": rng.choice(self.users)}
            for _ in range(recipients)
        ]
        return BatchTransfer.model_validate(
            {
                "transferType": "WALLET.TRANSFER.BATCH",
                "transferDetails": {
                    "id": transfer_id,
                    "requestId": _uuid(rng),
                    "createdAt": created.isoformat(),
                    "updatedAt": (created + timedelta(seconds=rng.randint(20, 400))).isoformat(),
                    "chain": chain,
                    "currency": "usdc",
                    "contractAddress": "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
                    "status": "COMPLETED",
                    "source": {
                        "userId": rng.choice(self.users),
                        "walletAddress": "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40)),
                        "walletType": "INDIVIDUAL",
                    },
                    "destination": {"batch": batch},
                    "receipt": {
                        "transactionHash": "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(64)),
                        "userOpHash": "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(64)),
                    },
                },
            }
        )

    def _make_batches(self, rng: random.Random) -> None:
        for tid, n, chain in (
            (BATCH_50_ID, 50, "POLYGON"),
            (BATCH_SMALL_ID, 3, "POLYGON"),
            (BATCH_UNKNOWN_CHAIN_ID, 2, "NEWCHAIN"),
        ):
            self.batches[tid] = self._batch(rng, tid, n, chain)

    # --- Onramps ----------------------------------------------------------------

    def _onramp(self, rng: random.Random, onramp_id: str, status: str, expiring: bool) -> OnrampTransfer:
        created = self.now - timedelta(hours=rng.randint(1, 48))
        person = {"email": "ana.silva@example.com", "firstName": "Ana", "lastName": "Silva", "businessName": None}
        rate = Decimal("0.9987")
        quote = quote_for(Decimal("1000.00"), rate, self.now + timedelta(minutes=10) if expiring else None)
        return OnrampTransfer.model_validate(
            {
                "transferType": "ONRAMP",
                "transferDetails": {
                    "id": onramp_id,
                    "requestId": _uuid(rng),
                    "createdAt": created.isoformat(),
                    "updatedAt": created.isoformat(),
                    "status": status,
                    "failedReason": None,
                    "source": {
                        "userId": self.users[0],
                        "currency": "usd",
                        "amount": Decimal("1000.00"),
                        "accountId": None,
                        "user": person,
                        "bankInfo": None,
                    },
                    "destination": {
                        "userId": self.users[0],
                        "currency": "usdc",
                        "chain": "POLYGON",
                        "walletAddress": "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40)),
                        "externalWalletId": None,
                        "amount": None,
                        "user": person,
                    },
                    "receipt": {"transactionHash": None},
                    "developerFee": None,
                    "virtualAccountId": None,
                    "quoteInformation": quote,
                    "depositInfo": None,
                },
            }
        )

    def _make_onramps(self, rng: random.Random) -> None:
        self.onramps[ONRAMP_OPEN_ID] = self._onramp(rng, ONRAMP_OPEN_ID, "OPEN_QUOTE", expiring=True)
        self.onramps[ONRAMP_OPEN_NO_EXPIRY_ID] = self._onramp(
            rng, ONRAMP_OPEN_NO_EXPIRY_ID, "OPEN_QUOTE", expiring=False
        )
        self.onramps[ONRAMP_COMPLETED_ID] = self._onramp(rng, ONRAMP_COMPLETED_ID, "COMPLETED", expiring=False)

    def refresh_quote(self, onramp_id: str, rng: random.Random) -> OnrampTransfer:
        """A new rate a little off the last one, and a new expiry."""
        current = self.onramps[onramp_id]
        old = current.quote
        old_rate = old.rate if old is not None else Decimal("0.9987")
        drift = Decimal(rng.choice((-1, 1)) * rng.randint(3, 25)) / Decimal(10000)
        rate = max(Decimal("0.9000"), min(Decimal("1.1000"), old_rate + drift)).quantize(Decimal("0.0001"))
        expires = None if old is not None and old.expires_at is None else self.now_moving() + REFRESHED_QUOTE_VALIDITY
        send = old.send_gross.amount if old is not None else Decimal("1000.00")
        wire = current.to_wire()
        wire["transferDetails"]["quoteInformation"] = quote_for(send, rate, expires)
        wire["transferDetails"]["updatedAt"] = self.now_moving().isoformat()
        refreshed = OnrampTransfer.model_validate(wire)
        self.onramps[onramp_id] = refreshed
        return refreshed

    def now_moving(self) -> datetime:
        if self.frozen:
            return self.now
        return datetime.now(timezone.utc).replace(microsecond=0)

    # --- Metrics ----------------------------------------------------------------

    def _make_metrics(self, rng: random.Random) -> None:
        today = self.now.date()
        days = [today - timedelta(days=n) for n in range(29, -1, -1)]
        daily = [
            {"periodStart": d.isoformat(), "grossVolume": round(rng.uniform(20000, 90000), 2),
             "transactionCount": rng.randint(40, 260)}
            for d in days
            if d.toordinal() % 9 != 4  # a few days the server leaves out
        ]
        rng.shuffle(daily)  # the server's order is not promised; clients sort
        self.metrics[METRIC_DAILY_VOLUME_ID] = _metric("GROSS_VOLUME", "day", days[0], days[-1], daily, None)

        rows = []
        for d in days[-14:]:
            for ttype in ("onramp", "offramp"):
                for tstatus in ("COMPLETED", "FAILED", "PENDING"):
                    rows.append({"periodStart": d.isoformat(), "transactionType": ttype,
                                 "transactionStatus": tstatus, "transactionCount": rng.randint(0, 80)})
        self.metrics[METRIC_TX_COUNT_ID] = _metric(
            "TRANSACTION_COUNT", "day", days[-14], days[-1], rows, ["transactionType", "transactionStatus"]
        )

        months = []
        first = date(today.year, today.month, 1)
        for n in range(8, -1, -1):
            y, m = divmod(first.year * 12 + first.month - 1 - n, 12)
            months.append(date(y, m + 1, 1))
        monthly = [{"periodStart": m.isoformat(), "grossVolume": round(rng.uniform(600000, 2400000), 2)}
                   for m in months]
        self.metrics[METRIC_MONTHLY_VOLUME_ID] = _metric("GROSS_VOLUME", "month", months[0], today, monthly, None)

        start = datetime(today.year, today.month, today.day, tzinfo=timezone.utc) - timedelta(hours=23)
        hourly = [{"periodStart": (start + timedelta(hours=h)).isoformat().replace("+00:00", "Z"),
                   "grossVolume": round(rng.uniform(500, 6000), 2)} for h in range(24)]
        self.metrics[METRIC_HOURLY_VOLUME_ID] = _metric("GROSS_VOLUME", "hour", start.date(), today, hourly, None)
        self.metrics[METRIC_EMPTY_ID] = _metric("GROSS_VOLUME", "day", days[-7], days[-1], [], None)


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


def _metric(
    template: str,
    interval: str,
    start: date,
    end: date,
    rows: list[dict[str, Any]],
    breakdowns: list[str] | None,
) -> dict[str, Any]:
    user_ids = [str(uuid.UUID(int=n + 1, version=4)) for n in range(60)]
    body = {
        "status": "success",
        "data": rows,
        "metadata": {
            "template": template,
            "recordCount": len(rows),
            "projectedRowCount": None,
            "filledCount": len(rows),
            "calculationInterval": interval,
            "dateRange": {"start": start.isoformat(), "end": end.isoformat()},
            "filters": {
                "createdAfter": {"applied": "subset", "specified": True, "values": start.isoformat()},
                "createdBefore": {"applied": "subset", "specified": True, "values": end.isoformat()},
                "calculationInterval": {"applied": "subset", "specified": True, "values": [interval]},
                "transactionTypes": {"applied": "all", "specified": False, "values": ["onramp", "offramp"]},
                "userIds": {"applied": "subset", "specified": True, "count": len(user_ids),
                            "note": f"{len(user_ids)} user IDs; the list is omitted for length"},
            },
            "breakdowns": breakdowns,
        },
    }
    MetricResult.model_validate(body)  # the sandbox only ever sends what the client can read
    return body


DOC_TYPES_SERVED = [*DOC_TYPES, UNKNOWN_DOC_TYPE, None]
