"""What each triage command does (see `triage_commands` for the arguments and exit codes)."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from typing import Any

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.guard import record_run
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.record_runs import profile_for, record_services
from stablepay_console.cli.session import FAILED, OK, USAGE
from stablepay_console.services.triage.report import ANALYST_FIELDS, SPANS, WEEK_FIELDS, Report
from stablepay_console.storage.record_triage_types import TriagePolicy
from stablepay_console.storage.triage_steps import STEPS

LOCAL_APPROVE = ("four eyes need the team record: on the local record one person makes an answer ready and "
                 "nobody else can approve it. Set STABLEPAY_RECORD_URL or run `record use URL`.")


HEADINGS = {"issued": "issued", "claimed": "claimed", "approved": "approved", "submittedInTime": "submitted in time",
            "expired": "expired", "madeReady": "made ready", "openNow": "open now"}
"""The report's columns as words (its JSON and CSV keep the field names)."""

DONE = {step.name: step.done for step in STEPS}
"""What a step did, as the sentence after it says it: "bob approved it" (the step table's words)."""


def step_words(rfi_id: str, step: str, now: str, actor: str, at: datetime) -> str:
    """`<id>: approved by bob at 2026-11-20 09:30 UTC; its step is now approved.`"""
    return f"{rfi_id}: {DONE.get(step, step)} by {actor} at {at:%Y-%m-%d %H:%M} UTC; its step is now {now}."


@record_run
def run_step(args: argparse.Namespace) -> int:
    step = args.triage_step
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    if step == "approve" and services.team is None:
        fail(LOCAL_APPROVE)
        return USAGE
    try:
        pending = services.triage.step(profile, args.rfi_id, step, getattr(args, "note", ""))
    except ValueError as exc:
        fail(str(exc))
        return USAGE
    outcome = pending.result(60)
    out = Output(args.format)
    kept = outcome.step
    if out.fmt == "json":
        out.json({"id": args.rfi_id, "action": step, "done": outcome.done, "step": outcome.now,
                  "by": kept.actor if kept else None, "at": kept.at.isoformat() if kept else None,
                  "note": kept.note if kept else None, "refusal": outcome.refusal or None})
    if not outcome.done:
        fail(f"{step} refused: {outcome.refusal}.")
        return FAILED
    if out.is_text and kept is not None:
        note(step_words(args.rfi_id, step, outcome.now, kept.actor, kept.at))
    return OK


@record_run
def run_assign(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    if services.team is None:
        fail("assignment needs the team record: in a record of your own a request is yours to claim "
             "(`rfis claim ID`). Set STABLEPAY_RECORD_URL or run `record use URL`.")
        return USAGE
    held = services.notes.claim_of(profile.name, args.rfi_id).result(60)
    if held is not None and held.claimant != args.analyst and not args.reassign:
        fail(f"{args.rfi_id} is held by {held.claimant}; assigning it to {args.analyst} takes it from them: "
             "add --reassign to do so.")
        return FAILED
    try:
        outcome = services.triage.assign(profile, args.rfi_id, args.analyst).result(60)
    except ValueError as exc:
        fail(str(exc))
        return USAGE
    claim, before = outcome.claim, outcome.previous
    assert claim is not None
    out = Output(args.format)
    if out.fmt == "json":
        out.json({"id": args.rfi_id, "assignedTo": claim.claimant, "assignedBy": claim.assigned_by,
                  "at": claim.at.isoformat(), "previous": before.claimant if before else None})
    else:
        taken = f", taken from {before.claimant}" if before and before.claimant != claim.claimant else ""
        note(f"{args.rfi_id}: assigned to {claim.claimant} by {claim.assigned_by} at {claim.at:%Y-%m-%d %H:%M} UTC"
             f"{taken}; it is in their My requests now.")
    return OK


def policy_json(policy: TriagePolicy) -> dict[str, Any]:
    return {
        "claimWithin": format_duration(policy.claim_within),
        "readyWithin": format_duration(policy.ready_within),
        "approveBefore": format_duration(policy.approve_before),
        "changedBy": policy.changed_by or None,
        "changedAt": policy.changed_at.isoformat() if policy.changed_at else None,
        "set": policy.is_set,
    }


@record_run
def run_policy(args: argparse.Namespace) -> int:
    services = record_services(args)
    change = (args.claim_within, args.ready_within, args.approve_before)
    if any(change):
        policy = services.triage.set_policy(None, *change).result(60)
    else:
        policy = services.triage.policy().result(60)
    out = Output(args.format)
    shown = policy_json(policy)
    if out.fmt == "json":
        out.json(shown)
    else:
        out.fields([("claim within", shown["claimWithin"] + " of issuedAt"),
                    ("ready within", shown["readyWithin"] + " of issuedAt"),
                    ("approve before", shown["approveBefore"] + " before expiresAt"),
                    ("changed by", shown["changedBy"] or "-"), ("changed at", shown["changedAt"] or "-")])
    if not policy.is_set:
        note("No service levels are set, so none applies: nothing is breached or counted. Setting any of "
             "--claim-within, --ready-within, --approve-before sets them (these spans where not given).")
    return OK


def hours(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 3600:.1f}h"


@record_run
def run_report(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    since = datetime.now(timezone.utc) - args.since
    services.record.flush()
    made: Report = services.triage.report(profile, since).result(120)
    out = Output(args.format)
    if out.fmt == "json":
        out.json(made.to_json())
        return OK
    if out.fmt == "csv":
        out.csv(("section", "key", "measure", "value"), made.csv_rows())
        return OK
    week_words = tuple(HEADINGS[f] for f in WEEK_FIELDS)
    out.table(("week", *week_words), [(start.date().isoformat(), *(week[f] for f in WEEK_FIELDS))
                                      for start, week in made.weeks], title="Per week", right=week_words)
    out.blank()
    out.table(("from → to", "count", "median", "p90"),
              [(name, str(made.spans[name].count), hours(made.spans[name].median), hours(made.spans[name].p90))
               for name in SPANS], title="Durations (team time)", right=("count", "median", "p90"))
    out.blank()
    out.table(("level", "breaches"), [(name, str(n)) for name, n in made.breaches.items()], title="Breaches")
    out.blank()
    analyst_words = tuple(HEADINGS[f] for f in ANALYST_FIELDS)
    out.table(("analyst", *analyst_words), [(who, *(str(c[f]) for f in ANALYST_FIELDS))
                                            for who, c in sorted(made.analysts.items())],
              title="Per analyst", right=analyst_words)
    if made.assignments:
        out.blank()
        out.table(("lead", "assigned"), [(lead, str(n)) for lead, n in sorted(made.assignments.items())],
                  title="Assignments per lead", right=("assigned",))
    note(f"Rounds issued since {since:%Y-%m-%d %H:%M} UTC, profile {profile.name}.")
    if made.waits_for:
        note(made.waits_for[0].upper() + made.waits_for[1:] + ".")
    return OK


