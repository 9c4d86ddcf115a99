"""The team's report: per week what came in and how it went, how long each step took, breaches, who did what.

Worked out from the record's facts only (what the watcher and the consoles saw of each round, the
claims in the audit log, the triage steps), never from typed-in figures. Weeks start on Monday,
00:00 UTC. Every duration is team time: time waiting on the user is left out. Percentiles are
interpolated between the two nearest values (the median of 1, 2, 3, 4 h is 2.5 h; the 90th
percentile of n sorted values sits at position 0.9 x (n - 1), counting from 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from stablepay_console.services.triage.cases import Case, cases
from stablepay_console.services.triage.levels import LEVELS, first, team_time, wait_spans
from stablepay_console.services.triage.state import CLOSED
from stablepay_console.storage.record_triage_types import TriageFacts, TriagePolicy

WEEK_FIELDS = ("issued", "claimed", "approved", "submittedInTime", "expired")
"""Per week: rounds issued, claimed, approved, submitted with every level met, expired without an answer."""
SPANS = ("issueToClaim", "claimToReady", "readyToApprove", "approveToSubmitted")
ANALYST_FIELDS = ("claimed", "madeReady", "approved", "openNow")


def percentile(values: Sequence[float], share: float) -> float | None:
    """Linear interpolation between the closest ranks (numpy's default); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    at = share * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


@dataclass(frozen=True)
class Spread:
    count: int
    median: float | None
    p90: float | None
    """Seconds."""

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "medianSeconds": self.median, "p90Seconds": self.p90}


@dataclass(frozen=True)
class Report:
    since: datetime
    until: datetime
    weeks: list[tuple[datetime, dict[str, int]]]
    spans: dict[str, Spread]
    breaches: dict[str, int]
    analysts: dict[str, dict[str, int]]
    policy: dict[str, int] = field(default_factory=dict)
    assignments: dict[str, int] = field(default_factory=dict)
    """How many requests each lead assigned to an analyst in the period (team record)."""
    in_force: TriagePolicy = field(default_factory=TriagePolicy)
    """The policy the breaches were counted against, read with the facts: its levels, who changed it and when."""
    waits_for: str = ""
    """What the figures wait for, in words ("" when nothing): the team watcher's first sweep."""
    swept_at: datetime | None = None
    """When the team watcher last swept (team record); None when it never did, or without a team."""

    @property
    def totals(self) -> dict[str, int]:
        return {name: sum(week[name] for _, week in self.weeks) for name in WEEK_FIELDS}

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat(),
            "until": self.until.isoformat(),
            "policy": self.policy,
            "weeks": [{"weekStart": start.date().isoformat(), **week} for start, week in self.weeks],
            "totals": self.totals,
            "durations": {name: spread.to_json() for name, spread in self.spans.items()},
            "breaches": self.breaches,
            "analysts": [{"analyst": who, **counts} for who, counts in sorted(self.analysts.items())],
            "assignments": [{"lead": lead, "assigned": n} for lead, n in sorted(self.assignments.items())],
            "lastSweep": self.swept_at.isoformat() if self.swept_at else None,
            "waitsFor": self.waits_for or None,
        }

    def csv_rows(self) -> list[tuple[str, str, str, str]]:
        """One long table (section, key, measure, value), easy to pivot in a spreadsheet."""
        rows = [("week", start.date().isoformat(), name, str(week[name]))
                for start, week in self.weeks for name in WEEK_FIELDS]
        for name, spread in self.spans.items():
            for measure, value in spread.to_json().items():
                rows.append(("duration", name, measure, "" if value is None else f"{value:g}"))
        rows += [("breaches", name, "count", str(count)) for name, count in self.breaches.items()]
        rows += [("analyst", who, name, str(counts[name]))
                 for who, counts in sorted(self.analysts.items()) for name in ANALYST_FIELDS]
        rows += [("assignments", lead, "assigned", str(n)) for lead, n in sorted(self.assignments.items())]
        return rows


def week_of(moment: datetime) -> datetime:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def report(facts: TriageFacts, since: datetime, now: datetime) -> Report:
    found = cases(facts, since, now)
    weeks: dict[datetime, Counter[str]] = {}
    start = week_of(since)
    while start <= now:
        weeks[start] = Counter()
        start += timedelta(days=7)

    def count(moment: datetime | None, name: str) -> None:
        if moment is not None and since <= moment <= now:
            weeks.setdefault(week_of(moment), Counter())[name] += 1

    for case in found:
        count(case.issued_at, "issued")
        count(case.claim.at if case.claim else None, "claimed")
        count(first(case.steps, "approve"), "approved")
        if not any(lv.breached for lv in case.levels):
            count(case.submitted_at, "submittedInTime")
        count(case.expired_at, "expired")
    return Report(
        since, now,
        [(start, {name: weeks[start][name] for name in WEEK_FIELDS}) for start in sorted(weeks)],
        _spreads(found, now),
        {name: sum(1 for c in found if c.level(name).breached) for name in LEVELS},
        _analysts(found, facts),
        {"claimWithinSeconds": int(facts.policy.claim_within.total_seconds()),
         "readyWithinSeconds": int(facts.policy.ready_within.total_seconds()),
         "approveBeforeSeconds": int(facts.policy.approve_before.total_seconds())},
        dict(Counter(c.assigned_by for c in facts.claims_taken if c.assigned_by and since <= c.at <= now)),
        facts.policy,
        waits_for(facts),
        facts.swept_at,
    )


NO_SWEEP = "no sweep yet: run `rfis watch` as the watcher"


def waits_for(facts: TriageFacts) -> str:
    """Why the figures are all zeros: on the team record nothing is counted before the watcher has recorded what
    the API holds, and it never swept nor saw a round."""
    return NO_SWEEP if facts.watched and facts.swept_at is None and not facts.rounds else ""


def _spreads(found: list[Case], now: datetime) -> dict[str, Spread]:
    measured: dict[str, list[float]] = {name: [] for name in SPANS}
    for case in found:
        spans = wait_spans(case.steps, case.closed_at or now)
        claimed = case.claim.at if case.claim else None
        ready = first(case.steps, "ready")
        approved = first(case.steps, "approve")
        reviewed = max((s.at for s in case.steps if s.step == "ready" and approved and s.at <= approved), default=None)
        for name, start, end in (("issueToClaim", case.issued_at, claimed), ("claimToReady", claimed, ready),
                                 ("readyToApprove", reviewed, approved),
                                 ("approveToSubmitted", approved, case.submitted_at)):
            if start is not None and end is not None and end >= start:
                measured[name].append(team_time(spans, start, end).total_seconds())
    return {name: Spread(len(values), percentile(values, 0.5), percentile(values, 0.9))
            for name, values in measured.items()}


def _analysts(found: list[Case], facts: TriageFacts) -> dict[str, dict[str, int]]:
    """Every analyst of the team (zeros for one who did nothing yet), and anyone else the facts name."""
    counts: dict[str, Counter[str]] = {who: Counter() for who in facts.analysts}

    def add(who: str, name: str) -> None:
        counts.setdefault(who, Counter())[name] += 1

    for case in found:
        if case.claim is not None:
            add(case.claim.actor, "claimed")
        for step in case.steps:
            if step.step in ("ready", "approve"):
                add(step.actor, "madeReady" if step.step == "ready" else "approved")
    status = {s.rfi_id: s.status for s in sorted(facts.statuses, key=lambda s: s.first_seen)}
    for rfi_id, claim in facts.claims_now.items():
        if status.get(rfi_id) not in CLOSED:
            add(claim.claimant, "openNow")
    return {who: {name: c[name] for name in ANALYST_FIELDS} for who, c in counts.items()}
