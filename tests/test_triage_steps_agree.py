"""One step table, three places that follow it: the Python rules, the local record and the team record's database.

Every (state, step, actor, note) is replayed against all three and must get the same answer: taken or refused.
A rule changed on one side only (the trigger's four eyes, the table's `takes_from`, the note a step needs)
fails here. The states are built the way people reach them (a claim, then steps), never by writing rows.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path

import psycopg
import pytest

from stablepay_console.services.triage.state import refusal, step_of
from stablepay_console.storage.local import open_record
from stablepay_console.storage.local import triage as local_triage
from stablepay_console.storage.postgres.store import PgRecord
from stablepay_console.storage.postgres.url import parse
from stablepay_console.storage.record import Record
from stablepay_console.storage.record_types import RfiSighting, SeenPage
from stablepay_console.storage.triage_steps import NAMES, STATES
from tests.postgres import TeamDb

SERVER = "sandbox https://sandbox.example"
T0 = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
ACTORS = ("alice", "bob", "carol")
"""alice holds every claim and makes every answer ready; bob approves; carol is a lead."""
NOTES = ("", "checked")
REACH = {
    "unclaimed": (),
    "claimed": (),
    "ready": (("ready", "alice"),),
    "approved": (("ready", "alice"), ("approve", "bob")),
    "waiting": (("wait", "alice"),),
}
"""The steps that bring a claimed request to each state."""


def rfi_of(state: str) -> str:
    return f"rfi-{state}"


def build(record: Record, profile: str, take: object) -> None:
    """Each state on a request of its own: closed ones seen by the watcher, open ones claimed by alice (bar
    `unclaimed`) and brought there step by step. `take(actor, rfi, step)` takes a step as that person."""
    for state in STATES:
        rfi = rfi_of(state)
        if state in ("submitted", "resolved", "expired"):
            continue
        if state != "unclaimed":
            take("alice", rfi, None)  # type: ignore[operator]
        for step, who in REACH[state]:
            take(who, rfi, step)  # type: ignore[operator]


def cases() -> list[tuple[str, str, str, str]]:
    return list(itertools.product(STATES, NAMES, ACTORS, NOTES))


def python_answers(record: Record, profile: str) -> dict[tuple[str, str, str, str], bool]:
    answers = {}
    for state, step, actor, note in cases():
        case = record.triage_case(profile, rfi_of(state))
        assert step_of(case.status, case.claim, case.steps) == state, (state, case)
        answers[(state, step, actor, note)] = refusal(step, case, actor, note) is None
    return answers


@pytest.mark.postgres
def test_the_python_rules_the_local_record_and_the_database_agree_on_every_step(
    team_db: TeamDb, tmp_path: Path
) -> None:
    closed = [RfiSighting(rfi_of(s), s, f"f-{s}", "{}", None) for s in ("submitted", "resolved", "expired")]
    # --- the team record: each person's own login; a step is one transaction, rolled back after the answer
    walt = PgRecord(parse(team_db.url("walt")), lambda name: SERVER)
    walt.observe([SeenPage("p", "sandbox", T0, tuple(closed))])
    people = {who: PgRecord(parse(team_db.url(who)), lambda name: SERVER) for who in ACTORS}

    def take_team(who: str, rfi: str, step: str | None) -> None:
        if step is None:
            assert people[who].claim("p", rfi, who, T0).done
        else:
            people[who].add_triage_step("p", rfi, step, who, "", T0)

    build(people["alice"], "p", take_team)
    expected = python_answers(people["alice"], "p")
    team: dict[tuple[str, str, str, str], bool] = {}
    logins = {who: team_db.connect(who) for who in ACTORS}
    for state, step, actor, note in cases():
        try:
            with logins[actor].transaction(force_rollback=True):
                logins[actor].execute("INSERT INTO stablepay.triage (server, rfi_id, step, note) "
                                      "VALUES (%s, %s, %s, %s)", (SERVER, rfi_of(state), step, note))
            team[(state, step, actor, note)] = True
        except (psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege):
            team[(state, step, actor, note)] = False
    for conn in logins.values():
        conn.close()
    differ = {k: (v, team[k]) for k, v in expected.items() if team[k] != v}
    assert not differ, f"(state, step, actor, note): (python, database) {differ}"
    # --- the local record: the same states by the same people, answered by its own rules
    local = open_record(tmp_path / "record.sqlite3")
    local.observe([SeenPage("p", "sandbox", T0, tuple(closed))])
    clock = itertools.count()

    def take_local(who: str, rfi: str, step: str | None) -> None:
        at = T0 + timedelta(minutes=next(clock))
        if step is None:
            assert local.claim("p", rfi, who, at).done
        else:
            case = local.triage_case("p", rfi)
            assert refusal(step, case, who) is None, (rfi, step, who)
            local.add_triage_step("p", rfi, step, who, "", at)

    build(local, "p", take_local)
    assert python_answers(local, "p") == expected
    assert sum(expected.values()) > 20, "the replay takes steps, not only refusals"


def check_lists() -> list[set[str]]:
    """The step names each store's table accepts (its CHECK), as shipped."""
    found = [re.search(r"step\s+TEXT NOT NULL CHECK \(step IN \(([^)]*)\)\)", local_triage.V3, re.IGNORECASE)]
    folder = resources.files("stablepay_console.storage.postgres") / "migrations"
    sql = (folder / "0003_triage.sql").read_text(encoding="utf-8")
    found.append(re.search(r"step\s+text NOT NULL CHECK \(step IN \(([^)]*)\)\)", sql))
    return [{name.strip(" '") for name in m.group(1).split(",")} for m in found if m]


def test_both_stores_accept_exactly_the_tables_step_names() -> None:
    lists = check_lists()
    assert len(lists) == 2 and all(names == set(NAMES) for names in lists), lists


@pytest.mark.parametrize("step", NAMES)
def test_every_step_has_help_a_label_and_a_command(step: str) -> None:
    from stablepay_console.cli.triage_commands import STEP_HELP
    from stablepay_console.storage.triage_steps import BY_NAME

    assert STEP_HELP[step] == BY_NAME[step].help and BY_NAME[step].label
