"""The triage steps' rules and the service-level clock, without a record or a UI."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from stablepay_console.services.triage.levels import RoundClock, levels, time_left
from stablepay_console.services.triage.state import refusal, step_of
from stablepay_console.storage.record_triage_types import TriageCase, TriagePolicy, TriageStep
from stablepay_console.storage.record_types import Claim

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def claim(who: str = "alice") -> Claim:
    return Claim("p", "R", who, at(1))


def steps(*names: tuple[str, str]) -> tuple[TriageStep, ...]:
    return tuple(TriageStep("R", name, who, at(2 + i)) for i, (name, who) in enumerate(names))


def case(*names: tuple[str, str], holder: str | None = "alice", status: str | None = "issued") -> TriageCase:
    return TriageCase("R", status, 1, claim(holder) if holder else None, steps(*names))


def test_where_a_request_is() -> None:
    assert step_of("issued", None, ()) == "unclaimed"
    assert step_of("issued", claim(), ()) == "claimed"
    assert step_of("issued", claim(), steps(("ready", "alice"))) == "ready"
    assert step_of("issued", claim(), steps(("ready", "alice"), ("approve", "bob"))) == "approved"
    assert step_of("issued", claim(), steps(("wait", "alice"))) == "waiting"
    assert step_of("issued", claim(), steps(("ready", "alice"), ("reject", "bob"))) == "claimed"
    assert step_of("submitted", claim(), steps(("ready", "alice"))) == "submitted"


def test_four_eyes_the_maker_never_approves() -> None:
    ready = case(("ready", "alice"))
    assert "four eyes" in (refusal("approve", ready, "alice") or "")
    assert refusal("approve", ready, "bob") is None


def test_the_order_of_steps() -> None:
    assert "needs it ready" in (refusal("approve", case(), "bob") or "")
    assert "only the claimant" in (refusal("ready", case(holder="bob"), "alice") or "")
    assert "unclaimed" in (refusal("ready", case(holder=None), "alice") or "")
    assert refusal("ready", case(), "alice") is None
    assert "note" in (refusal("reject", case(("ready", "alice")), "bob") or "")
    assert refusal("reject", case(("ready", "alice")), "bob", "typo") is None
    assert "needs it waiting" in (refusal("resume", case(), "alice") or "")
    assert refusal("wait", case(), "alice") is None
    assert "waiting" in (refusal("ready", case(("wait", "alice")), "alice") or "")
    assert "closed" in (refusal("ready", case(status="expired"), "alice") or "")


POLICY = TriagePolicy(timedelta(hours=4), timedelta(hours=24), timedelta(hours=12))


def test_the_clock_pauses_while_waiting_on_the_user() -> None:
    waited = (TriageStep("R", "wait", "alice", at(2)), TriageStep("R", "resume", "alice", at(32)))
    clock = RoundClock(T0, at(72), at(1), waited)
    ready = next(lv for lv in levels(clock, POLICY, at(40)) if lv.name == "ready")
    assert ready.deadline == at(24 + 30) and not ready.breached
    left = time_left("claimed", clock, POLICY, at(40))
    assert left is not None and left.level == "ready" and left.left == timedelta(hours=14)


def test_a_request_waiting_shows_paused_and_never_breaches() -> None:
    waiting = (TriageStep("R", "wait", "alice", at(2)),)
    clock = RoundClock(T0, at(30), at(1), waiting)
    assert not any(lv.breached for lv in levels(clock, POLICY, at(100)))
    left = time_left("waiting", clock, POLICY, at(100))
    assert left is not None and left.paused and not left.breached


@pytest.mark.parametrize(("step", "level", "hours_left"), [("unclaimed", "claim", 1.0), ("claimed", "ready", 21.0),
                                                           ("ready", "approve", 9.0)])
def test_time_left_to_the_next_level(step: str, level: str, hours_left: float) -> None:
    clock = RoundClock(T0, at(24), at(1) if step != "unclaimed" else None, ())
    left = time_left(step, clock, POLICY, at(3))
    assert left is not None and (left.level, left.left) == (level, timedelta(hours=hours_left))
    late = time_left(step, clock, POLICY, at(30))
    assert late is not None and late.breached
    assert time_left("approved", clock, POLICY, at(3)) is None
