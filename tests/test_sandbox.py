"""The sandbox world has the variety the console needs, and follows the spec's rules."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import httpx
import pytest

from stablepay_console.api import RfiPage, StablePayClient
from stablepay_console.api.models import DOC_TYPES, OPEN_QUOTE, RFI_KINDS, RFI_STATUSES, SUBJECT_TYPES
from stablepay_console.sandbox import SANDBOX_KEY, Faults, Sandbox
from stablepay_console.sandbox.data import (
    BATCH_50_ID,
    DOC_TYPES_SERVED,
    METRIC_DAILY_VOLUME_ID,
    METRIC_MONTHLY_VOLUME_ID,
    METRIC_TX_COUNT_ID,
    ONRAMP_COMPLETED_ID,
    ONRAMP_OPEN_ID,
    UNKNOWN_DOC_TYPE,
    SandboxData,
)
from tests.conftest import FIXED_NOW

DATA = SandboxData(now=FIXED_NOW, frozen=True)
RFIS = DATA.rfis


def test_at_least_two_hundred_rfis_by_default() -> None:
    assert len(RFIS) == 240
    assert len({r.id for r in RFIS}) == 240


def test_every_status_kind_and_subject_type_combination_occurs() -> None:
    combos = Counter((r.status, r.kind, r.subject_type) for r in RFIS)
    assert set(combos) == set(itertools.product(RFI_STATUSES, RFI_KINDS, SUBJECT_TYPES))
    per_status = Counter(r.status for r in RFIS)
    assert all(per_status[s] >= 10 for s in RFI_STATUSES), per_status


def test_transaction_rfis_name_their_transfer_and_flow() -> None:
    flows = Counter(r.flow_type for r in RFIS if r.kind == "transaction")
    assert set(flows) == {"onramp", "offramp"}
    for rfi in RFIS:
        if rfi.kind == "onboarding":
            assert rfi.transfer_id is None and rfi.flow_type is None
        else:
            assert rfi.transfer_id is not None
        assert rfi.user_id in DATA.users


def test_newest_first() -> None:
    created = [r.created_at for r in RFIS]
    assert created == sorted(created, reverse=True)
    assert all(c < FIXED_NOW for c in created)


def test_rounds() -> None:
    with_round = [r for r in RFIS if r.round is not None]
    assert all(r.current_round == r.round.round for r in with_round)  # type: ignore[union-attr]
    assert all(r.current_round is None for r in RFIS if r.round is None)
    assert sum(r.current_round is not None and r.current_round > 1 for r in RFIS) >= 5
    assert any(r.round is None and r.status == "resolved" for r in RFIS)
    assert all(r.round.issued_at >= r.created_at for r in with_round)  # type: ignore[union-attr]


def test_deadlines_within_hours_already_passed_and_absent() -> None:
    issued = [r for r in RFIS if r.status == "issued" and r.round is not None]
    soon = [r for r in issued if r.deadline and FIXED_NOW < r.deadline <= FIXED_NOW + timedelta(hours=24)]
    overdue = [r for r in issued if r.deadline and r.deadline < FIXED_NOW]
    open_ended = [r for r in issued if r.deadline is None]
    assert len(soon) >= 5 and len(overdue) >= 1 and len(open_ended) >= 1
    expired = [r for r in RFIS if r.status == "expired" and r.round is not None]
    assert expired and all(r.deadline is not None and r.deadline < FIXED_NOW for r in expired)
    assert all(r.round.submitted_at is None for r in expired)  # type: ignore[union-attr]


def test_links_follow_the_spec() -> None:
    for rfi in RFIS:
        if rfi.round is None:
            continue
        if rfi.status == "issued":
            assert rfi.round.link and rfi.round.link.startswith("https://")
            assert rfi.round.submitted_at is None
        else:
            assert rfi.round.link is None
        if rfi.status in ("submitted", "resolved"):
            assert rfi.round.submitted_at is not None and rfi.round.submitted_at >= rfi.round.issued_at


def test_items_cover_both_kinds_every_doc_type_and_both_requirements() -> None:
    items = [i for r in RFIS if r.round is not None for i in r.round.items]
    assert {i.kind for i in items} == {"document", "question"}
    doc_types = {i.doc_type for i in items if i.kind == "document"}
    assert doc_types == set(DOC_TYPES) | {UNKNOWN_DOC_TYPE, None} == set(DOC_TYPES_SERVED)
    assert UNKNOWN_DOC_TYPE not in DOC_TYPES
    assert all(i.doc_type is None for i in items if i.kind == "question")
    assert {i.required for i in items} == {True, False}
    assert all(r.round.items for r in RFIS if r.round is not None)  # type: ignore[union-attr]


def test_same_seed_same_world_other_seed_other_world() -> None:
    again = SandboxData(now=FIXED_NOW, frozen=True)
    other = SandboxData(seed=8, now=FIXED_NOW, frozen=True)
    assert [r.to_wire() for r in again.rfis] == [r.to_wire() for r in RFIS]
    assert [r.id for r in other.rfis] != [r.id for r in RFIS]


def test_batches_onramps_and_metrics() -> None:
    assert len(DATA.batches[BATCH_50_ID].details.destination.batch) == 50
    assert all(r.amount > 0 for r in DATA.batches[BATCH_50_ID].details.destination.batch)
    statuses = {o.details.status for o in DATA.onramps.values()}
    assert OPEN_QUOTE in statuses and statuses - {OPEN_QUOTE}
    assert DATA.metrics[METRIC_DAILY_VOLUME_ID]["metadata"]["template"] == "GROSS_VOLUME"
    assert DATA.metrics[METRIC_DAILY_VOLUME_ID]["metadata"]["calculationInterval"] == "day"
    assert DATA.metrics[METRIC_TX_COUNT_ID]["metadata"]["breakdowns"]
    months = {row["periodStart"][:7] for row in DATA.metrics[METRIC_MONTHLY_VOLUME_ID]["data"]}
    assert len(months) >= 3


def test_refresh_changes_the_rate_a_little_and_moves_the_expiry() -> None:
    import random

    data = SandboxData(now=FIXED_NOW, frozen=True)
    before = data.onramps[ONRAMP_OPEN_ID].quote
    after = data.refresh_quote(ONRAMP_OPEN_ID, random.Random(1)).quote
    assert before is not None and after is not None
    assert before.rate != after.rate and abs(before.rate - after.rate) <= Decimal("0.0025")
    assert before.expires_at is not None and after.expires_at is not None
    assert after.expires_at > before.expires_at
    assert data.onramps[ONRAMP_OPEN_ID].quote == after  # the sandbox remembers the refreshed quote


def test_an_unpinned_sandbox_refreshes_at_the_wall_clock() -> None:
    import random

    data = SandboxData()
    after = data.refresh_quote(ONRAMP_OPEN_ID, random.Random(1)).quote
    assert after is not None and after.expires_at is not None
    now = datetime.now(timezone.utc)
    assert now < after.expires_at <= now + timedelta(minutes=16)


async def test_refresh_refused_outside_open_quote_over_the_wire(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        response = await raw.post(
            f"/v2/onramps/{ONRAMP_COMPLETED_ID}/quote/refresh", headers={"Authorization": f"Bearer {SANDBOX_KEY}"}
        )
    assert response.status_code == 409
    body = response.json()
    assert set(body) == {"status", "error"} and body["status"] == "error"
    assert set(body["error"]) == {"code", "message"}


# --- size ---------------------------------------------------------------------------------------


# The 50,000-RFI sandbox (paging to its end, the spec's rules over every request) is in test_sandbox_invariants.py.


# --- faults, latency, keys, environments ------------------------------------------------------------


def test_fault_rates_are_a_share_of_requests() -> None:
    faults = Faults(error_rate=0.2, rate_limit_rate=0.1, malformed_rate=0.1, seed=3)
    picked = Counter(faults.pick() for _ in range(5000))
    assert 800 < picked["500"] < 1200
    assert 350 < picked["429"] < 650
    assert 350 < picked["502_html"] + picked["invalid_json"] + picked["truncated"] < 650
    assert picked["502_html"] and picked["invalid_json"] and picked["truncated"]
    assert faults.requests == 5000


def test_forced_faults_and_clear() -> None:
    faults = Faults(force="500", force_count=2)
    assert [faults.pick() for _ in range(4)] == ["500", "500", None, None]
    faults.force, faults.force_count, faults.error_rate = "429", None, 1.0
    assert {faults.pick() for _ in range(5)} == {"429"}
    faults.clear()
    assert {faults.pick() for _ in range(20)} == {None}
    with pytest.raises(ValueError, match="Unknown fault"):
        Faults(force="418")


async def test_latency_is_added_to_each_request(sandbox: Sandbox) -> None:
    sandbox.faults.latency = 0.3
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        started = time.monotonic()
        await c.ping()
        assert time.monotonic() - started >= 0.3  # a lower bound: it cannot be quicker than the delay


async def test_every_request_is_counted(sandbox: Sandbox) -> None:
    sandbox.faults.force, sandbox.faults.force_count = "401", 1
    async with StablePayClient("http://localhost", SANDBOX_KEY, transport=httpx.ASGITransport(app=sandbox.app)) as c:
        with pytest.raises(Exception):  # noqa: B017 - the refusal itself is tested elsewhere
            await c.ping()
        await c.list_rfis(limit=1)
    assert sandbox.api_calls() == [("GET", "/ping"), ("GET", "/v2/rfis")]
    assert sandbox.faults.requests == 2


async def test_dashboard_keys_and_environments() -> None:
    production = Sandbox(environment="production", now=FIXED_NOW)
    assert production.state.keys == {}
    with pytest.raises(ValueError, match="Unknown environment"):
        Sandbox(environment="staging")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=production.app), base_url="http://localhost") as raw:
        created = await raw.post("/_sandbox/keys", json={"name": "ops 2026"})
        assert created.status_code == 201
        key = created.json()["key"]
        assert key.startswith("sk_production_") and created.json()["name"] == "ops 2026"
        headers = {"Authorization": f"Bearer {key}"}
        assert (await raw.get("/ping", headers=headers)).json() == {"message": "pong"}
        assert (await raw.post("/_sandbox/keys/delete", json={"key": key})).status_code == 204
        assert (await raw.get("/ping", headers=headers)).status_code == 401
        assert (await raw.post("/_sandbox/keys/delete", json={"key": key})).status_code == 404
    assert production.api_calls() == [("GET", "/ping"), ("GET", "/ping")]


async def test_hosted_link_serves_a_page(sandbox: Sandbox) -> None:
    link = next(r.round.link for r in sandbox.data.rfis if r.round is not None and r.round.link)
    path = httpx.URL(link).path
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        page = await raw.get(path)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


async def test_responses_are_what_the_client_reads(sandbox: Sandbox) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox.app), base_url="http://localhost") as raw:
        headers = {"Authorization": f"Bearer {SANDBOX_KEY}"}
        response = await raw.get("/v2/rfis", params={"limit": "100"}, headers=headers)
    body = response.json()
    assert set(body) == {"data", "pagination"}
    assert set(body["pagination"]) == {"limit", "offset", "total"}
    assert RfiPage.model_validate(body).to_wire() == body  # the wire survives a round trip unchanged
    stamps = [r["createdAt"] for r in body["data"]]
    assert all(s.endswith("Z") for s in stamps)
