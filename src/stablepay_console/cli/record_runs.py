"""What each record command does (`record_commands` has the arguments and exit codes; `cli.commands` names each)."""

from __future__ import annotations

import argparse
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from stablepay_console import __version__
from stablepay_console.api.sanitize import has_control
from stablepay_console.cli.guard import record_run
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.record_team import refused_team, until_text, where_text
from stablepay_console.cli.session import FAILED, OK, USAGE, pick_profile, services_for
from stablepay_console.services.audit import verify
from stablepay_console.services.export import evidence as packs
from stablepay_console.services.history_view import history_json, history_text

if TYPE_CHECKING:
    from stablepay_console.profiles.model import Profile
    from stablepay_console.storage.record_types import AuditEntry
    from stablepay_console.wiring import Services

AUDIT_COLUMNS = ("seq", "time", "actor", "profile", "environment", "action", "target", "outcome")


@record_run
def run_history(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    history, steps = services.record.call(lambda record: (record.history(profile.name, args.rfi_id),
                                                          record.request_steps(profile.name, args.rfi_id)))
    out = Output(args.format)
    if out.fmt == "json":
        out.json(history_json(history, steps))
    elif history.seen:
        out.write(history_text(history, steps) + "\n")
    if not history.seen:
        fail(history_text(history))
        return FAILED
    return OK


@record_run
def run_note(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    if (refused := refused_team(args, services)) is not None:
        fail(refused)
        return USAGE
    try:
        pending = services.notes.add(profile, args.rfi_id, args.text, args.author)
    except ValueError as exc:
        fail(str(exc))
        return USAGE
    kept = pending.result(60)
    note(f"Note {kept.note_id} kept on {args.rfi_id} by {kept.author} (profile {profile.name}).")
    return OK


@record_run
def run_claim(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    if (refused := refused_team(args, services)) is not None:
        fail(refused)
        return USAGE
    outcome = services.notes.claim(profile, args.rfi_id, args.author, args.lapse).result(60)
    held = outcome.claim
    if not outcome.done and held is not None:
        fail(f"{args.rfi_id} is claimed by {held.claimant} since {held.at:%Y-%m-%d %H:%M} UTC{until_text(held)}; "
             f"they can release it ({'a lead can: ' if services.team else 'or '}`rfis release --force`).")
        return FAILED
    if outcome.previous is not None and held is not None and outcome.previous.claimant == held.claimant:
        note(f"You already hold the claim on {args.rfi_id} (since {outcome.previous.at:%Y-%m-%d %H:%M} UTC)"
             f"{until_text(held)}.")
    elif held is not None:
        note(f"{args.rfi_id} is claimed by {held.claimant}{until_text(held)}.")
    return OK


@record_run
def run_release(args: argparse.Namespace) -> int:
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    if (refused := refused_team(args, services)) is not None:
        fail(refused)
        return USAGE
    outcome = services.notes.release(profile, args.rfi_id, args.author, force=args.force).result(60)
    before = outcome.previous
    if outcome.done and before is not None:
        note(f"Released the claim of {before.claimant} on {args.rfi_id}.")
        return OK
    if outcome.refusal and before is not None:
        fail(f"{args.rfi_id} is claimed by {before.claimant}; {outcome.refusal}.")
        return FAILED
    if before is None:
        fail(f"{args.rfi_id} is not claimed; there is nothing to release.")
    else:
        fail(f"{args.rfi_id} is claimed by {before.claimant}, not you; --force releases it anyway.")
    return FAILED


@record_run
def run_evidence(args: argparse.Namespace) -> int:
    if has_control(args.output) or not args.output.strip():
        fail("The output folder name is empty or holds control characters or escape sequences.")
        return USAGE
    found = profile_for(args)
    if found is None:
        return USAGE
    profile, services = found
    now = datetime.now(timezone.utc)
    try:
        target = packs.resolve_target(args.output, args.rfi_id, now)
    except packs.EvidenceError as exc:
        fail(str(exc))
        return USAGE
    gathered = services.record.call(lambda record: packs.gather(record, profile.name, args.rfi_id))
    if not gathered.history.seen and not gathered.notes and not gathered.entries:
        fail(f"Nothing is recorded about {args.rfi_id} under profile {profile.name}; no pack was written.")
        return FAILED
    writer = services.audit.actor_for(profile.name)
    try:
        pack = packs.write_pack(gathered, target, now, writer, __version__)
    except packs.EvidenceError as exc:
        fail(str(exc))
        return FAILED
    services.audit.append("evidence.write", profile, target=args.rfi_id, outcome="written", folder=str(pack.path))
    services.record.flush()
    print(pack.path)
    note(f"Evidence pack of {args.rfi_id}: {pack.rounds} round entries, {pack.notes} notes, {pack.entries} actions.")
    return OK


WITNESS_HELP = ("If the team has dealt with it (a restore it chose, say), forget this machine's witness by removing "
                "the record's line from {path}.")


@record_run
def run_verify(args: argparse.Namespace) -> int:
    """The chain on its own (each entry follows the one before, and ends at the head), then against what this
    machine saw of it before (the witness, looked at when the record opened)."""
    from stablepay_console.storage.locations import witness_file

    services = services_for(args)
    services.record.on_notice = lambda text, refused: None if refused or services.record.witnessed else note(text)
    report = services.record.call(verify)
    witnessed = services.record.witnessed
    where = where_text(services)
    if args.format == "json":
        Output("json").json({
            "record": where,
            "chain": {"ok": report.ok, "checked": report.checked, "brokenAt": report.broken_at,
                      "reason": report.reason or None},
            "witness": witnessed.to_json() if witnessed is not None else {"ok": None, "seen": None,
                                                                          "problem": "not compared"},
        })
    else:
        (print if report.ok else fail)(report.describe())
        if witnessed is not None:
            (print if witnessed.ok else fail)(witnessed.describe())
            if not witnessed.ok:
                note(WITNESS_HELP.format(path=witness_file()))
        note(f"Record: {where}")
    return OK if report.ok and (witnessed is None or witnessed.ok) else FAILED


@record_run
def run_log(args: argparse.Namespace) -> int:
    services = record_services(args)
    entries = services.record.call(
        lambda record: record.audit(since=args.since, profile=args.profile, limit=args.limit)
    )
    out = Output(args.format)
    if out.fmt == "json":
        out.json([e.to_json() for e in entries])
        return OK
    # An imported entry is the importer's testimony: its actor says so, as the audit screen does. In the team record,
    # an entry a member typed says so too: only an act's own entry is the database's word.
    rows = [(str(e.seq), e.at, _actor_text(e), e.profile, e.environment, e.action, e.target, e.outcome)
            for e in entries]
    if rows:
        out.table(AUDIT_COLUMNS, rows)
    else:
        note("No audit entries match.")
    return OK


def _actor_text(entry: AuditEntry) -> str:
    if entry.imported is not None:
        return f"{entry.actor} (imported: {entry.imported.written_as})"
    return f"{entry.actor} (typed)" if entry.typed else entry.actor


def profile_for(args: argparse.Namespace) -> tuple[Profile, Services] | None:
    """The profile named by --profile, else the one the console starts on (no key needed: nothing is sent)."""
    from stablepay_console.profiles.store import ProfileStoreError

    services = record_services(args)
    try:
        return pick_profile(services, getattr(args, "profile", None)), services
    except (ProfileStoreError, LookupError, ValueError) as exc:
        fail(str(exc))
        return None


def record_services(args: argparse.Namespace) -> Services:
    """The wiring, with the record's notices (a damaged file set aside) said on standard error."""
    services = services_for(args)
    services.record.on_notice = lambda text, refused: None if refused else note(text)  # a refusal ends the run
    return services
