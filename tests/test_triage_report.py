"""The team report over a fixture month, every figure worked out by hand below (no Textual, no database).

Policy: claim within 4 h and make ready within 24 h of `issuedAt`, approve 12 h before `expiresAt`.
The month (report since Monday 2 November 00:00 UTC, now Monday 30 November 12:00 UTC):

A  issued Mon 2 Nov 09:00, expires 5 Nov 09:00. alice claims 10:00, ready 14:00; bob approves 16:00;
   submitted 17:00. Every level met. Spans 1 h, 4 h, 2 h, 1 h.
B  issued Tue 3 Nov 08:00, expires 4 Nov 08:00. bob claims 14:00 (claim level 12:00: breached), ready
   18:00; alice approves 22:00 (approve level 20:00: breached); submitted 23:00, not in time.
   Spans 6 h, 4 h, 4 h, 1 h.
C  issued Tue 10 Nov 09:00, expires 13 Nov 09:00. alice claims 11:00, waits on the user 12:00, resumes
   Wed 11 Nov 18:00 (30 h paused), ready 20:00; bob approves 21:00; submitted 22:00. Ready level: 09:00
   on the 11th plus 30 h paused = 15:00 on the 12th: met (without the pause it would be breached).
   Spans 2 h, 33 h - 30 h = 3 h, 1 h, 1 h.
D  issued Mon 16 Nov 10:00, expires 17 Nov 10:00; bob claims 11:00, nothing else; seen expired 17 Nov
   10:30. Ready (17 Nov 10:00) and approve (16 Nov 22:00) breached. Span 1 h.
E  issued Mon 23 Nov 09:00, expires 26 Nov 09:00. alice claims 09:30, ready 11:00; bob rejects 12:00;
   alice ready again 13:00; bob approves 15:00; not submitted yet. Spans 0.5 h, 1.5 h (to the first
   ready), 2 h (from the ready that was approved).
F  issued Mon 30 Nov 07:00, nobody claims it: at 12:00 its claim level (11:00) is breached.
G  issued 30 Oct, before the report: left out, but carol still holds its claim (open now).

Per week (from Monday): 2 Nov A B; 9 Nov C; 16 Nov D; 23 Nov E; 30 Nov F.
Medians and 90th percentiles (interpolated, position 0.9 x (n - 1)):
issue to claim [0.5, 1, 1, 2, 6] h: median 1 h, p90 2 + 0.6 x 4 = 4.4 h;
claim to ready [1.5, 3, 4, 4] h: median 3.5 h, p90 4 h;
ready to approve [1, 2, 2, 4] h: median 2 h, p90 2 + 0.7 x 2 = 3.4 h;
approve to submitted [1, 1, 1] h: median 1 h, p90 1 h.
Breaches: claim B F = 2, ready D = 1, approve B D = 2.
alice claimed A C E, made ready A C E E, approved B, holds E (open); bob claimed B D, made ready B,
approved A C E, holds D (expired: not open); carol holds G.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from stablepay_console.services.triage.report import percentile, report
from stablepay_console.storage.record_triage_types import (
    ClaimFact,
    RoundFact,
    StatusFact,
    TriageFacts,
    TriageStep,
)
from stablepay_console.storage.record_types import Claim

H = 3600.0


def t(day: int, hour: int, minute: int = 0, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=timezone.utc)


SINCE, NOW = t(2, 0), t(30, 12)


def month() -> TriageFacts:
    rounds = [
        RoundFact("A", 1, t(2, 9), t(5, 9), t(2, 17)),
        RoundFact("B", 1, t(3, 8), t(4, 8), t(3, 23)),
        RoundFact("C", 1, t(10, 9), t(13, 9), t(11, 22)),
        RoundFact("D", 1, t(16, 10), t(17, 10), None),
        RoundFact("E", 1, t(23, 9), t(26, 9), None),
        RoundFact("F", 1, t(30, 7), t(2, 7, month=12), None),
        RoundFact("G", 1, t(30, 9, month=10), t(3, 9), None),
    ]
    statuses = [
        StatusFact("A", "issued", t(2, 9, 5)), StatusFact("A", "submitted", t(2, 17, 5)),
        StatusFact("B", "issued", t(3, 8, 5)), StatusFact("B", "submitted", t(3, 23, 10)),
        StatusFact("C", "issued", t(10, 9, 5)), StatusFact("C", "submitted", t(11, 22, 5)),
        StatusFact("D", "issued", t(16, 10, 5)), StatusFact("D", "expired", t(17, 10, 30)),
        StatusFact("E", "issued", t(23, 9, 5)), StatusFact("F", "issued", t(30, 7, 5)),
        StatusFact("G", "issued", t(30, 9, 5, month=10)),
    ]
    claims = [
        ClaimFact("A", "alice", t(2, 10)), ClaimFact("B", "bob", t(3, 14)), ClaimFact("C", "alice", t(10, 11)),
        ClaimFact("D", "bob", t(16, 11)), ClaimFact("E", "alice", t(23, 9, 30)),
        ClaimFact("G", "carol", t(30, 10, month=10)),
    ]
    steps = [
        TriageStep("A", "ready", "alice", t(2, 14)), TriageStep("A", "approve", "bob", t(2, 16)),
        TriageStep("B", "ready", "bob", t(3, 18)), TriageStep("B", "approve", "alice", t(3, 22)),
        TriageStep("C", "wait", "alice", t(10, 12)), TriageStep("C", "resume", "alice", t(11, 18)),
        TriageStep("C", "ready", "alice", t(11, 20)), TriageStep("C", "approve", "bob", t(11, 21)),
        TriageStep("E", "ready", "alice", t(23, 11)), TriageStep("E", "reject", "bob", t(23, 12), "typo"),
        TriageStep("E", "ready", "alice", t(23, 13)), TriageStep("E", "approve", "bob", t(23, 15)),
    ]
    now_held = {
        "E": Claim("p", "E", "alice", t(23, 9, 30)),
        "D": Claim("p", "D", "bob", t(16, 11)),
        "G": Claim("p", "G", "carol", t(30, 10, month=10)),
    }
    return TriageFacts(rounds, statuses, claims, steps, now_held, now=NOW)


def test_the_weeks_count_what_came_in_and_how_it_went() -> None:
    made = report(month(), SINCE, NOW)
    weeks = {start.date().isoformat(): week for start, week in made.weeks}
    assert weeks == {
        "2026-11-02": {"issued": 2, "claimed": 2, "approved": 2, "submittedInTime": 1, "expired": 0},
        "2026-11-09": {"issued": 1, "claimed": 1, "approved": 1, "submittedInTime": 1, "expired": 0},
        "2026-11-16": {"issued": 1, "claimed": 1, "approved": 0, "submittedInTime": 0, "expired": 1},
        "2026-11-23": {"issued": 1, "claimed": 1, "approved": 1, "submittedInTime": 0, "expired": 0},
        "2026-11-30": {"issued": 1, "claimed": 0, "approved": 0, "submittedInTime": 0, "expired": 0},
    }
    assert made.totals == {"issued": 6, "claimed": 5, "approved": 4, "submittedInTime": 2, "expired": 1}


def test_medians_and_90th_percentiles_leave_out_the_time_waiting_on_the_user() -> None:
    spans = report(month(), SINCE, NOW).spans
    got = {name: (s.count, s.median, s.p90) for name, s in spans.items()}
    assert got["issueToClaim"] == (5, pytest.approx(1 * H), pytest.approx(4.4 * H))
    assert got["claimToReady"] == (4, pytest.approx(3.5 * H), pytest.approx(4 * H))
    assert got["readyToApprove"] == (4, pytest.approx(2 * H), pytest.approx(3.4 * H))
    assert got["approveToSubmitted"] == (3, pytest.approx(1 * H), pytest.approx(1 * H))


def test_breaches_per_level_count_the_paused_clock() -> None:
    assert report(month(), SINCE, NOW).breaches == {"claim": 2, "ready": 1, "approve": 2}


def test_per_analyst_under_the_role_name() -> None:
    assert report(month(), SINCE, NOW).analysts == {
        "alice": {"claimed": 3, "madeReady": 4, "approved": 1, "openNow": 1},
        "bob": {"claimed": 2, "madeReady": 1, "approved": 3, "openNow": 0},
        "carol": {"claimed": 0, "madeReady": 0, "approved": 0, "openNow": 1},
    }


def test_json_keys_a_script_can_rely_on() -> None:
    made = report(month(), SINCE, NOW).to_json()
    assert set(made) == {"since", "until", "policy", "weeks", "totals", "durations", "breaches", "analysts",
                         "assignments", "lastSweep", "waitsFor"}
    assert made["weeks"][0] == {"weekStart": "2026-11-02", "issued": 2, "claimed": 2, "approved": 2,
                                "submittedInTime": 1, "expired": 0}
    assert made["durations"]["issueToClaim"] == {"count": 5, "medianSeconds": pytest.approx(3600.0),
                                                 "p90Seconds": pytest.approx(4.4 * H)}
    assert made["analysts"][0] == {"analyst": "alice", "claimed": 3, "madeReady": 4, "approved": 1, "openNow": 1}
    assert made["policy"] == {"claimWithinSeconds": 4 * 3600, "readyWithinSeconds": 24 * 3600,
                              "approveBeforeSeconds": 12 * 3600}


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([], 0.5) is None
    assert percentile([4.0], 0.9) == 4.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([10.0, 0.0, 5.0], 0.9) == pytest.approx(9.0)


def test_a_report_since_later_leaves_the_earlier_rounds_out() -> None:
    made = report(month(), t(16, 0), NOW)
    assert made.totals["issued"] == 3 and made.breaches == {"claim": 1, "ready": 1, "approve": 1}
    assert [start.date().isoformat() for start, _ in made.weeks] == ["2026-11-16", "2026-11-23", "2026-11-30"]
    assert timedelta(0) < made.until - made.since
