"""One contract, two stores: every test here runs against the local SQLite file and the team's real PostgreSQL.

What every store does is asserted alike; what a store offers beyond it (`Record.offers`) is asserted where it is
offered, and its absence where it is not. A third store joins by adding itself to `store` below.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
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
from stablepay_console.storage.record_types import AuditDraft, RfiHistory, RfiSighting, RoundSighting, SeenPage
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


def test_a_requests_timeline_moves_on_for_a_change_and_only_its_last_seen_for_the_same_again(store: Store) -> None:
    """The history a lead reads back: a line per status held and an entry per round, each first and last seen."""
    other, third = RFI.replace("6164", "7164"), RFI.replace("6164", "8164")
    later = ROUND.wire_json.replace('"r1","round":1', '"r2","round":2').replace(
        '"submittedAt":null,"link":"https://x.example/l"', '"submittedAt":"2026-11-21T10:00:00Z","link":null')
    second = RoundSighting(2, later, "rf2")
    at = [FIXED_NOW + timedelta(hours=n) for n in range(8)]

    def page(n: int, *sightings: RfiSighting) -> SeenPage:
        return SeenPage("p", "sandbox", at[n], sightings)

    def wire(status: str, n: int) -> str:
        return f'{{"id": "{RFI}", "status": "{status}", "note": {n}}}'

    changes = [
        store.watcher.observe([page(0, RfiSighting(other, "issued", "o1", "{}"),
                                    RfiSighting(RFI, "issued", "f1", wire("issued", 1), ROUND),
                                    RfiSighting(third, "issued", "t1", "{}", ROUND))]),
        store.watcher.observe([page(1, RfiSighting(RFI, "issued", "f1", wire("issued", 1), ROUND),
                                    RfiSighting(other, "issued", "o1", "{}"),
                                    RfiSighting(third, "issued", "t2", '{"n": 2}'))]),
        # a page fetched earlier but handed over later moves nothing back
        store.watcher.observe([page(3, RfiSighting(RFI, "issued", "f1", wire("issued", 1), ROUND)),
                               page(2, RfiSighting(RFI, "issued", "f1", wire("issued", 1), ROUND),
                                    RfiSighting(third, "issued", "t3", '{"n": 3}', ROUND))]),
        store.watcher.observe([page(4, RfiSighting(RFI, "submitted", "f2", wire("submitted", 2), second),
                                    RfiSighting(other, "issued", "o2", "{}", ROUND))]),
        store.watcher.observe([page(5, RfiSighting(RFI, "submitted", "f3", wire("submitted", 3), second))]),
        store.watcher.observe([page(6, RfiSighting(RFI, "issued", "f4", wire("issued", 4), second))]),
    ]
    assert changes == [3, 1, 1, 2, 1, 1]

    history = store.me.history("p", RFI)
    assert (history.profile, history.rfi_id) == ("p", RFI)
    assert history.record is not None
    record = history.record
    assert (record.profile, record.rfi_id, record.environment, record.status, record.has_round) == \
        ("p", RFI, "sandbox", "issued", True)
    assert (record.wire, record.first_seen, record.last_seen) == \
        ({"id": RFI, "status": "issued", "note": 4}, at[0], at[6])
    assert [(s.status, s.first_seen, s.last_seen) for s in history.statuses] == \
        [("issued", at[0], at[3]), ("submitted", at[4], at[5]), ("issued", at[6], at[6])]
    assert [(r.entry, r.round_no, r.round_id, r.submitted_at, r.link, r.first_seen, r.last_seen)
            for r in history.rounds] == [
        (1, 1, "r1", None, "https://x.example/l", at[0], at[3]),
        (2, 2, "r2", datetime(2026, 11, 21, 10, tzinfo=timezone.utc), None, at[4], at[6])]
    assert [(r.issued_at, r.expires_at, r.wire["id"]) for r in history.rounds] == [
        (datetime(2026, 11, 20, 9, tzinfo=timezone.utc), datetime(2026, 11, 27, 9, tzinfo=timezone.utc), "r1"),
        (datetime(2026, 11, 20, 9, tzinfo=timezone.utc), datetime(2026, 11, 27, 9, tzinfo=timezone.utc), "r2")]
    assert history.last_request() == {"id": RFI, "status": "issued", "note": 4, "round": history.rounds[1].wire}

    gained = store.me.history("p", other)
    assert [(r.round_id, r.first_seen, r.last_seen) for r in gained.rounds] == [("r1", at[4], at[4])]
    assert [(s.status, s.first_seen, s.last_seen) for s in gained.statuses] == [("issued", at[0], at[4])]
    # a round that went away and came back unchanged is the same entry, seen again
    back = store.me.history("p", third)
    assert [(r.round_id, r.first_seen, r.last_seen) for r in back.rounds] == [("r1", at[0], at[2])]
    assert back.record is not None and back.record.has_round and back.record.wire == {"n": 3}
    assert store.me.history("p", "never-seen") == RfiHistory("p", "never-seen", None)


def test_a_request_seen_is_found_by_the_start_of_its_id(store: Store) -> None:
    page = SeenPage("p", "sandbox", FIXED_NOW, (RfiSighting(RFI, "issued", "f1", '{"id": "x"}', ROUND),))
    store.watcher.observe([page])
    assert store.me.ids_starting("p", RFI[:8]) == [RFI]
    assert store.me.ids_starting("p", "00000000") == []
    assert store.me.ids_starting("p", "%") == [] and store.me.ids_starting("p", "_16499c9") == [], "no wildcard"


def test_a_start_many_requests_share_finds_the_first_ten_in_order(store: Store) -> None:
    ids = [f"{RFI[:8]}-0000-4000-8000-{n:012x}" for n in range(12)]
    sightings = tuple(RfiSighting(rfi_id, "issued", "f1", '{"id": "x"}', ROUND) for rfi_id in reversed(ids))
    store.watcher.observe([SeenPage("p", "sandbox", FIXED_NOW, sightings)])
    assert store.me.ids_starting("p", RFI[:8]) == ids[:10]
    assert store.me.ids_starting("p", RFI[:8], limit=12) == ids


def test_notes_are_kept_in_order_by_their_author(store: Store) -> None:
    store.me.add_note("p", RFI, "alice", "first", FIXED_NOW)
    store.other.add_note("p", RFI, "bob", "second", FIXED_NOW + timedelta(minutes=1))
    notes = store.me.notes("p", RFI)
    assert [(n.author, n.text) for n in notes] == [("alice", "first"), ("bob", "second")]
    assert {(n.profile, n.rfi_id) for n in [*notes, store.me.add_note("p", RFI, "alice", "third", FIXED_NOW)]} \
        == {("p", RFI)}


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
