"""One contract, two stores: every test here runs against the local SQLite file and the team's real PostgreSQL.

What every store does is asserted alike; what a store offers beyond it (`Record.offers`) is asserted where it is
offered, and its absence where it is not. A third store joins by adding itself to `store` below.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from stablepay_console.services.audit import verify
from stablepay_console.services.triage.review import review_queue
from stablepay_console.storage.local import open_record
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record import (
    Offer,
    Record,
    RecordError,
    RecordRefused,
    assignments,
    delivery_ledger,
    team_feed,
)
from stablepay_console.storage.record_types import AuditDraft, RfiSighting, RoundSighting, SeenPage
from tests.conftest import FIXED_NOW

RFI = "616499c9-e25a-4605-aec6-f0245bd86d40"
SERVER = "sandbox https://sandbox.example"
ROUND = RoundSighting(1, '{"id":"r1","round":1,"issuedAt":"2026-11-20T09:00:00Z","expiresAt":"2026-11-27T09:00:00Z",'
                         '"submittedAt":null,"link":"https://x.example/l"}', "rf1")


@dataclass
class Store:
    me: Record
    """An analyst's record (alice)."""
    other: Record
    """Another analyst's (bob)."""
    watcher: Record
    """Whoever records what the API said: the team watcher, or the one person of a local file."""


@pytest.fixture(params=["local", pytest.param("team", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "local":
        record = open_record(tmp_path / "record.sqlite3")
        yield Store(record, record, record)
        record.close()
        return
    db = request.getfixturevalue("team_db")
    opened = [PgRecord(parse(db.url(role)), lambda name: SERVER if name else "") for role in ("alice", "bob", "walt")]
    yield Store(*opened)
    for record in opened:
        record.close()


def draft(action: str = "ping", target: str = RFI, outcome: str = "ok") -> AuditDraft:
    return AuditDraft(FIXED_NOW, "alice", "p", "sandbox", action, target, outcome, {"n": 1})


def test_what_was_seen_of_a_request_is_its_history(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    assert store.watcher.observe([page]) == 1
    assert store.watcher.observe([page]) == 0, "an unchanged request is not a change"
    history = store.me.history("p", RFI)
    assert history.seen and [s.status for s in history.statuses] == ["issued"] and len(history.rounds) == 1
    assert not store.me.history("p", "never-seen").seen


def test_a_request_seen_is_found_by_the_start_of_its_id(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    assert store.me.ids_starting("p", RFI[:8]) == [RFI]
    assert store.me.ids_starting("p", "00000000") == []
    assert store.me.ids_starting("p", "%") == [] and store.me.ids_starting("p", "_16499c9") == [], "no wildcard"


def test_notes_are_kept_in_order_by_their_author(store: Store) -> None:
    store.me.add_note("p", RFI, "alice", "first", FIXED_NOW)
    store.other.add_note("p", RFI, "bob", "second", FIXED_NOW + timedelta(minutes=1))
    notes = store.me.notes("p", RFI)
    assert [(n.author, n.text) for n in notes] == [("alice", "first"), ("bob", "second")]


def test_a_request_has_one_holder_and_only_they_release_it(store: Store) -> None:
    assert store.me.claim("p", RFI, "alice", FIXED_NOW).done
    refused = store.other.claim("p", RFI, "bob", FIXED_NOW)
    assert not refused.done and refused.claim is not None and refused.claim.claimant == "alice"
    assert not store.other.release("p", RFI, "bob").done
    assert store.me.claim_of("p", RFI) is not None and set(store.other.claims("p")) == {RFI}
    assert store.me.release("p", RFI, "alice").done
    assert store.me.claim_of("p", RFI) is None and store.other.claims("p") == {}


def test_claims_lapse_only_where_offered(store: Store) -> None:
    if Offer.LAPSING_CLAIMS in store.me.offers:
        held = store.me.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(hours=1)).claim
        assert held is not None and held.until is not None
    else:
        with pytest.raises(RecordError, match="lapse"):
            store.me.claim("p", RFI, "alice", FIXED_NOW, lapse=timedelta(hours=1))


def test_the_audit_log_is_a_chain_that_ends_at_its_head(store: Store) -> None:
    for n in range(3):
        store.me.append_audit(draft(outcome=f"ok {n}"))
    entries = store.other.audit()
    head = store.other.audit_head()
    assert [e.seq for e in entries] == [1, 2, 3]
    assert head is not None and (head.count, head.hash) == (3, entries[-1].hash)
    assert store.other.audit_hash(2) == entries[1].hash and store.other.audit_hash(9) is None
    assert [e.outcome for e in store.me.audit(limit=1)] == ["ok 2"]
    assert verify(store.me).ok and store.me.witness_key


def test_steps_are_kept_in_order_with_their_round(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    assert store.me.claim("p", RFI, "alice", FIXED_NOW).done
    with store.me.transaction():
        store.me.add_triage_step("p", RFI, "ready", "alice", "checked", FIXED_NOW)
        if Offer.ACT_ENTRIES not in store.me.offers:
            store.me.append_audit(draft("triage.ready", outcome="ready"))
    store.other.add_triage_step("p", RFI, "approve", "bob", "", FIXED_NOW + timedelta(minutes=1))
    case = store.me.triage_case("p", RFI)
    assert [(s.step, s.actor, s.round_no) for s in case.steps] == [("ready", "alice", 1), ("approve", "bob", 1)]
    assert list(store.other.triage_steps("p", [RFI])) == [RFI]
    assert [e.action for e in store.me.audit() if e.action.startswith("triage.")][:1] == ["triage.ready"]
    assert [(s.step, s.actor, s.note) for s in store.other.request_steps("p", RFI)] == [
        ("ready", "alice", "checked"), ("approve", "bob", "")]


def test_the_review_queue_holds_what_someone_else_made_ready(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    assert store.me.claim("p", RFI, "alice", FIXED_NOW).done
    store.me.add_triage_step("p", RFI, "ready", "alice", "statement checked", FIXED_NOW)
    queue = review_queue(store.other, "p", "bob")
    assert [(q.rfi_id, q.made_ready_by, q.note) for q in queue] == [(RFI, "alice", "statement checked")]
    assert review_queue(store.me, "p", "alice") == [], "four eyes: who made it ready never reviews it"
    store.other.add_triage_step("p", RFI, "approve", "bob", "", FIXED_NOW + timedelta(minutes=1))
    assert review_queue(store.other, "p", "bob") == [], "approved: reviewed"


def test_assignment_is_there_only_where_offered(store: Store) -> None:
    if Offer.ASSIGNMENT not in store.me.offers:
        with pytest.raises(RecordError) as refused:
            assignments(store.me)
        assert str(refused.value) == ("Assignment needs the team record: in a record of your own, a request is yours "
                                      "to claim (`rfis claim ID`).")
        return
    assert assignments(store.me) is store.me
    with pytest.raises(RecordError, match="only a lead assigns"):
        assignments(store.me).assign("p", RFI, "bob")
    assert "alice" in [m.name for m in assignments(store.me).team_analysts()]


def test_the_store_checks_four_eyes_itself_only_where_offered(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    assert store.me.claim("p", RFI, "alice", FIXED_NOW).done
    store.me.add_triage_step("p", RFI, "ready", "alice", "", FIXED_NOW)
    if Offer.FOUR_EYES in store.me.offers:
        with pytest.raises(RecordError, match="four eyes"):
            store.me.add_triage_step("p", RFI, "approve", "alice", "", FIXED_NOW)
    else:  # the services' rules (services/triage/state.py) are the only check of one person's file
        store.me.add_triage_step("p", RFI, "approve", "alice", "", FIXED_NOW)


def test_the_team_feed_is_there_only_where_sweeps_are_offered(store: Store) -> None:
    if Offer.SWEEPS not in store.watcher.offers:
        with pytest.raises(RecordError) as refused:
            team_feed(store.watcher)
        assert str(refused.value) == "This record keeps no team watcher's sweeps: a team record does."
        return
    assert team_feed(store.watcher) is store.watcher
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    feed = team_feed(store.watcher)
    assert feed.mark_sweep("p", 60, "{}") and feed.last_sweep("p") is not None
    assert [rfi for rfi, _, _ in feed.issued("p")] and feed.open_rounds("p")[0][0] == RFI


def test_webhook_deliveries_are_kept_only_where_offered(store: Store) -> None:
    if Offer.DELIVERIES not in store.watcher.offers:
        with pytest.raises(RecordError) as refused:
            delivery_ledger(store.watcher)
        assert str(refused.value) == ("Webhook deliveries are deduplicated in the team record (STABLEPAY_RECORD_URL): "
                                      "a record of your own keeps none.")
        return
    ledger = delivery_ledger(store.watcher)
    assert ledger is store.watcher
    assert ledger.take_delivery("p", "evt_1", "rfi.issued", "", []) and ledger.delivery_known("p", "evt_1")


def test_a_refusal_keeps_the_stores_own_words_or_else_its_message() -> None:
    assert RecordRefused("The record refused.", "held by bob").why == "held by bob"
    assert RecordRefused("The record refused.").why == "The record refused."
