"""Seeded RFIs that obey the spec's own rules (section 3.1), however many are made.

- a request's rounds are issued after it was raised, and before now;
- a round's deadline is after its issue time;
- an answered round (submitted, resolved) has `submittedAt` after `issuedAt`, not after its deadline
  (rule 2: a later submission is rejected) and not after now; an unanswered one has none;
- an expired request's deadline is in the past;
- the hosted link is there while an issued round waits for its reply, and null after a submission or
  once the request is closed (rule 3).

The random draws are made in a fixed order, so the same seed gives the same world; a value that
would break a rule is moved inside its bounds without drawing again.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from stablepay_console.api.models import Rfi, RfiItem, RfiRound
from stablepay_console.sandbox.ids import UNKNOWN_DOC_TYPE

MINUTE = timedelta(minutes=1)

ITEM_CATALOGUE: list[tuple[str, str | None, str, str | None]] = [
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

_VERSION_MASK = ~(0xF000 << 64) & ~(0xC000 << 48)
_VERSION_BITS = (0x4000 << 64) | (0x8000 << 48)


def new_uuid(rng: random.Random) -> str:
    """A version-4 UUID from the seeded generator (the same text `uuid.UUID(int=…, version=4)` gives)."""
    h = f"{(rng.getrandbits(128) & _VERSION_MASK) | _VERSION_BITS:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def make_items(rng: random.Random, round_no: int) -> list[RfiItem]:
    count = rng.randint(1, 5)
    picks = rng.sample(ITEM_CATALOGUE, count)
    items = []
    for n, (kind, doc_type, label, detail) in enumerate(picks):
        if round_no > 1 and n == 0:
            label = f"{label} (asked again: the first reply was incomplete)"
        items.append(
            RfiItem(
                id=new_uuid(rng),
                kind=kind,
                label=label,
                doc_type=doc_type if kind == "document" else None,
                detail=detail,
                required=rng.random() < 0.7,
            )
        )
    return items


def _between(start: datetime, end: datetime) -> datetime:
    """Halfway from `start` to `end`, to the minute: strictly inside when they are two minutes apart or more."""
    middle = start + (end - start) / 2
    return middle.replace(second=0, microsecond=0) + (MINUTE if middle.second else timedelta(0))


def issue_time(created: datetime, round_no: int, now: datetime) -> datetime:
    """Round 1 five minutes after the request; each later round three days on, all well before now."""
    wanted = created + timedelta(minutes=5) + timedelta(days=3 * (round_no - 1))
    latest = created + (now - created) * round_no / (round_no + 1)  # leaves room for a reply before now
    return min(wanted, latest).replace(microsecond=0)


def deadline(rng: random.Random, status: str, index: int, now: datetime) -> datetime | None:
    """A deadline as drawn (it may still break a rule; `make_rfi` moves it inside its bounds)."""
    if status == "issued":
        if index % 11 == 5:
            return None  # a round with no deadline
        if index % 17 == 9:
            return now - timedelta(hours=rng.randint(1, 20))  # overdue, not yet swept
        if index % 4 == 0 or index < 3:
            return now + timedelta(hours=rng.randint(1, 20), minutes=rng.randint(0, 59))
        return now + timedelta(days=rng.randint(2, 14), hours=rng.randint(0, 23))
    if status == "expired":
        return now - timedelta(days=rng.randint(1, 90))
    return now + timedelta(days=rng.randint(-30, 10))


def _answered_and_due(
    rng: random.Random, status: str, index: int, now: datetime, issued_at: datetime
) -> tuple[datetime | None, datetime | None]:
    """When the round was answered (if it was) and its deadline, in the order the spec's rules allow."""
    due = deadline(rng, status, index, now)
    submitted = None
    if status in ("submitted", "resolved"):
        submitted = min(issued_at + timedelta(hours=rng.randint(2, 60)), now - 2 * MINUTE)
        if submitted <= issued_at:
            submitted = _between(issued_at, now)
    if due is not None and due <= issued_at:
        due = _between(issued_at, now) if status in ("issued", "expired") and due < now else None
        if due is None:
            due = issued_at + timedelta(days=7)
    if submitted is not None and due is not None and due < submitted:
        due = submitted + (submitted - issued_at)  # answered in time: the deadline was after the reply
    return submitted, due


def _round(
    rng: random.Random, status: str, round_no: int, issued_at: datetime, due: datetime | None,
    submitted: datetime | None,
) -> RfiRound | None:
    link = f"https://sandbox.stablepay.example/rfi/respond/{new_uuid(rng)}" if status == "issued" else None
    if status == "resolved" and rng.random() < 0.4:
        return None  # closed with no open round
    return RfiRound(
        id=new_uuid(rng),
        round=round_no,
        issued_at=issued_at,
        expires_at=due,
        submitted_at=submitted,
        items=make_items(rng, round_no),
        link=link,
    )


def make_rfi(rng: random.Random, index: int, now: datetime, users: list[str]) -> Rfi:
    # Newest first: each request a few hours older than the one before.
    created = now - timedelta(minutes=30 + index * 173 + rng.randint(0, 120))
    kind = "transaction" if rng.random() < 0.6 else "onboarding"
    status = rng.choices(["issued", "submitted", "resolved", "expired"], weights=[35, 25, 28, 12])[0]
    if index < 3:
        status = "issued"  # the top of the inbox always has something to act on
    round_no = 1 if rng.random() < 0.7 else rng.randint(2, 3)
    issued_at = issue_time(created, round_no, now)
    submitted, due = _answered_and_due(rng, status, index, now, issued_at)
    round_ = _round(rng, status, round_no, issued_at, due, submitted)
    return Rfi(
        id=new_uuid(rng),
        kind=kind,
        status=status,
        subject_type="business" if rng.random() < 0.35 else "individual",
        user_id=rng.choice(users),
        transfer_id=new_uuid(rng) if kind == "transaction" else None,
        flow_type=rng.choice(["onramp", "offramp"]) if kind == "transaction" else None,
        created_at=created,
        current_round=round_.round if round_ is not None else None,
        round=round_,
    )
