"""The sandbox's data obeys the spec's own rules (section 3.1), checked over a 50,000-RFI sandbox.

One 50,000-RFI sandbox is built for the module (a few seconds); the rows checked are the wire JSON
the list endpoint sends, read with pydantic-core's JSON parser (under a second).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import httpx
import pydantic_core
import pytest

from stablepay_console.api import BatchTransfer, OnrampTransfer, StablePayClient
from stablepay_console.api.filters import RfiFilters
from stablepay_console.api.models import OPEN_QUOTE
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, Profile
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox
from stablepay_console.sandbox.data import SAMPLE_IDS, SandboxData
from stablepay_console.sandbox.serve import sample_lines
from stablepay_console.wiring import Services
from tests.conftest import FIXED_NOW

BIG = 50_000


@pytest.fixture(scope="module")
def big() -> Sandbox:
    return Sandbox(rfis=BIG, now=FIXED_NOW)


def when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def broken_rules(rows: Iterable[bytes], now: datetime) -> Counter[str]:
    """How many requests break each rule (an empty Counter: none does)."""
    broken: Counter[str] = Counter()
    newer: datetime | None = None
    for wire in rows:
        rfi: dict[str, Any] = pydantic_core.from_json(wire)
        status, round_ = rfi["status"], rfi["round"]
        created = when(rfi["createdAt"])
        assert created is not None
        broken["newest first"] += newer is not None and created > newer
        newer = created
        if round_ is None:
            broken["only a resolved request has no round"] += status != "resolved"
            broken["no round, no current round"] += rfi["currentRound"] is not None
            continue
        issued, deadline, submitted = when(round_["issuedAt"]), when(round_["expiresAt"]), when(round_["submittedAt"])
        assert issued is not None
        broken["currentRound is the round's number"] += rfi["currentRound"] != round_["round"]
        broken["issued after the request was raised, before now"] += not created <= issued <= now
        broken["deadline after the issue time"] += deadline is not None and deadline <= issued
        answered = status in ("submitted", "resolved")
        broken["answered rounds have submittedAt"] += answered != (submitted is not None)
        if submitted is not None:
            broken["submittedAt after issuedAt"] += submitted <= issued
            broken["submitted by the deadline (rule 2)"] += deadline is not None and submitted > deadline
            broken["submitted before now"] += submitted > now
        if status == "expired":
            broken["expired: deadline in the past"] += deadline is None or deadline >= now
        link = round_["link"]
        closed = status in ("resolved", "expired")
        broken["no link after a submission or once closed (rule 3)"] += link is not None and (bool(submitted) or closed)
        broken["an issued round waiting for a reply has its link"] += status == "issued" and not link
    return +broken


def test_fifty_thousand_rfis_obey_the_specs_rules(big: Sandbox) -> None:
    rows = big.data.rfis.rows
    assert len(rows) == BIG
    assert broken_rules((row.wire for row in rows), FIXED_NOW) == Counter()
    statuses = Counter(row.status for row in rows)
    assert all(statuses[s] > 1000 for s in ("issued", "submitted", "resolved", "expired")), statuses


@pytest.mark.parametrize("seed", [1, 7, 8, 42, 2026])
def test_every_seed_obeys_them_too(seed: int) -> None:
    data = SandboxData(seed=seed, rfi_count=600, now=FIXED_NOW, frozen=True)
    assert broken_rules((row.wire for row in data.rfis.rows), FIXED_NOW) == Counter()


def test_the_default_world_still_has_overdue_and_open_ended_rounds_to_show() -> None:
    rfis = SandboxData(now=FIXED_NOW, frozen=True).rfis
    issued = [r for r in rfis if r.status == "issued" and r.round is not None]
    assert any(r.deadline is not None and r.deadline < FIXED_NOW for r in issued), "an overdue issued request"
    assert any(r.deadline is None for r in issued), "a round with no deadline"
    assert sum(r.current_round is not None and r.current_round > 1 for r in rfis) >= 5, "asked again"


async def test_fifty_thousand_rfis_page_to_the_end(big: Sandbox) -> None:
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=big.app)) as c:
        tail = await c.list_rfis(limit=100, offset=49_990)
        assert len(tail.data) == 10 and tail.pagination.total == BIG
        issued = await c.list_rfis(RfiFilters(status="issued"), limit=1)
        assert issued.pagination.total == sum(row.status == "issued" for row in big.data.rfis.rows)
        assert broken_rules([r.model_dump_json(by_alias=True).encode() for r in tail.data], FIXED_NOW) == Counter()


# --- sample IDs ------------------------------------------------------------------------------------------


async def fetch(sandbox: Sandbox, kind: str, value: str) -> BatchTransfer | OnrampTransfer:
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        if kind == "batch":
            return await c.get_batch_transfer(value)
        return sandbox.data.onramps[value]  # a refresh would refuse the non-OPEN_QUOTE one: read it as stored


SHOWS = {
    "50 recipients": lambda t: len(t.details.destination.batch) == 50 and t.details.status == "COMPLETED",
    "3 recipients": lambda t: len(t.details.destination.batch) == 3,
    "failed": lambda t: t.details.status == "FAILED" and t.details.receipt.transaction_hash is None,
    "pending": lambda t: t.details.status == "PENDING" and t.details.receipt.transaction_hash is None,
    "a chain with no known explorer": lambda t: t.details.chain == "NEWCHAIN",
    "open quote,": lambda t: t.details.status == OPEN_QUOTE and t.quote.expires_at is None,
    "open quote": lambda t: t.details.status == OPEN_QUOTE and t.quote.expires_at is not None,
    "completed": lambda t: t.details.status == "COMPLETED",
}


@pytest.mark.parametrize(("kind", "label", "value"), SAMPLE_IDS, ids=[label for _, label, _ in SAMPLE_IDS])
async def test_each_sample_id_exists_and_shows_its_case(sandbox: Sandbox, kind: str, label: str, value: str) -> None:
    shown = await fetch(sandbox, kind, value)
    case = next(words for words in SHOWS if label.startswith(words))
    assert SHOWS[case](shown), label


def test_the_cases_the_issue_names_are_all_there() -> None:
    labels = {kind: [label for k, label, _ in SAMPLE_IDS if k == kind] for kind in ("batch", "onramp")}
    for words in ("recipients", "failed", "pending"):
        assert any(words in label for label in labels["batch"]), words
    assert any(label.startswith("open quote") for label in labels["onramp"])
    assert any(not label.startswith("open quote") for label in labels["onramp"])
    assert len({value for _, _, value in SAMPLE_IDS}) == len(SAMPLE_IDS)


def test_services_offer_the_samples_on_built_in_profiles_only(sandbox: Sandbox) -> None:
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW)
    batches = services.sample_ids(EMBEDDED_PROFILE, "batch")
    assert ("failed (status FAILED, no transaction hash)", "6f1c2a10-5b7e-4c1d-9a33-0000000000f1") in batches
    assert next(label for label, _ in services.sample_ids(EMBEDDED_PRODUCTION_PROFILE, "onramp")) == "open quote"
    assert services.sample_ids(Profile("acme", "sandbox", "https://api.sandbox.example"), "batch") == []


def test_sandbox_serve_prints_every_sample_with_its_case() -> None:
    printed = "\n".join(sample_lines())
    for kind, label, value in SAMPLE_IDS:
        assert any(kind in line and label in line and value in line for line in printed.splitlines()), label


def test_sandbox_serve_prints_them_before_press_ctrl_c() -> None:
    from tests.test_client_http import serve

    with serve("--rfis", "20") as served:
        banner = "\n".join(served.banner)
    assert banner.index("Sample IDs to try") < banner.index("Press Ctrl+C")
    assert all(value in banner for _, _, value in SAMPLE_IDS)


def test_the_readme_names_real_sample_ids() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("**Try it.**") :].split("\n## ", 1)[0]
    named = re.findall(r"(batch|onramp)\s+(.+?)\s{2,}([0-9a-f-]{36})", paragraph)
    assert len(named) >= 4
    samples = {value: (kind, label) for kind, label, value in SAMPLE_IDS}
    for kind, label, value in named:
        assert samples[value][0] == kind and samples[value][1].startswith(label), value
