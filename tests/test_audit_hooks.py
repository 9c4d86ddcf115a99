"""Every action lands in the audit log: ping, profile switch, quote refresh, key rotation, export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE, Profile
from stablepay_console.profiles.rotation import Rotation
from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.data import ONRAMP_COMPLETED_ID, ONRAMP_OPEN_ID
from stablepay_console.services.audit import verify
from stablepay_console.storage.record_types import AuditEntry
from stablepay_console.wiring import Services
from tests.conftest import CANARY_KEY, FIXED_NOW, open_mode, submit_id, wait_for_workers
from tests.small_disk import SmallDisk

SIZE = (120, 40)


def entries(services: Services, action: str | None = None) -> list[AuditEntry]:
    services.record.flush()
    found = services.record.call(lambda record: record.audit())
    return [e for e in found if action is None or e.action == action]


async def test_the_start_up_ping_and_a_profile_switch_are_audited(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        assert await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
        await wait_for_workers(pilot)
    (ping,) = entries(app.services, "ping")
    assert (ping.profile, ping.environment, ping.outcome) == ("embedded", "sandbox", "✓ pong")
    (switch,) = entries(app.services, "profile.switch")
    assert (switch.profile, switch.environment, switch.target) == ("embedded-production", "production",
                                                                   "embedded-production")
    assert switch.outcome == "✓ pong" and switch.details == {"previous": "embedded"}
    assert switch.at == ping.at == "2026-11-20T09:30:00.000+00:00", "recorded at the console's own now"
    assert switch.actor, "the OS user name"
    assert verify(app.services.record.call(lambda r: r)).ok


async def test_quote_refreshes_are_audited_with_old_and_new_rate(make_app, sandbox: Sandbox) -> None:  # type: ignore[no-untyped-def]
    app = make_app(opens_on="quote")
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "quote")
        await submit_id(pilot, ONRAMP_OPEN_ID)
        await pilot.press("r")
        await wait_for_workers(pilot)
        await submit_id(pilot, ONRAMP_COMPLETED_ID)
    first, second, refused = entries(app.services, "quote.refresh")
    assert first.target == second.target == ONRAMP_OPEN_ID and first.outcome == "refreshed"
    assert (first.profile, first.environment) == ("embedded", "sandbox")
    assert first.details["old_rate"] is None and first.details["new_rate"]
    assert second.details["old_rate"] == first.details["new_rate"]
    assert refused.target == ONRAMP_COMPLETED_ID and refused.outcome.startswith("failed: ")


async def test_an_inbox_export_is_audited_with_filters_file_and_count(make_app, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.test_inbox import start_export

    app = make_app()
    target = tmp_path / "issued.csv"
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("s")
        await wait_for_workers(pilot)
        await start_export(pilot, str(target))
        await wait_for_workers(pilot)
    (export,) = entries(app.services, "export")
    lines = target.read_text(encoding="utf-8").splitlines()
    assert (export.outcome, export.profile) == ("written", "embedded")
    assert export.details == {"filters": "status issued · kind any · user any", "file": str(target),
                              "count": len(lines) - 1}


def rotation_with_audit(services: Services) -> Rotation:
    rotation = services.book.rotation(EMBEDDED_PROFILE, services.client_with, clock=lambda: FIXED_NOW)
    rotation.on_step = services.audit.rotation_hook(EMBEDDED_PROFILE)
    return rotation


async def test_each_rotation_step_is_audited_and_no_key_is_kept(sandbox: Sandbox) -> None:
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW)
    sandbox.add_key(CANARY_KEY, "canary")
    rotation = rotation_with_audit(services)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey(CANARY_KEY))
    assert await rotation.verify_new()
    rotation.switch()
    steps = entries(services, "key.rotation")
    assert [e.outcome for e in steps] == [
        "started at step 1 (Generate the new key in the dashboard)",
        "done: step 1 (Generate the new key in the dashboard); next step 2 (Paste the new key)",
        "done: step 2 (Paste the new key); next step 3 (Verify the new key with /ping)",
        "done: step 3 (Verify the new key with /ping); next step 4 (Switch the profile to the new key)",
        "done: step 4 (Switch the profile to the new key); next step 5 (Delete the old key in the dashboard)",
    ]
    assert [e.details["step"] for e in steps] == [1, 2, 3, 4, 5]
    assert steps[2].details["title"] == "Verify the new key with /ping"
    assert all(e.target == "embedded" for e in steps)
    text = repr(entries(services))
    assert CANARY_KEY not in text and CANARY_KEY[-12:] not in text and CANARY_KEY[-4:] not in text


async def test_an_abandoned_rotation_says_so(sandbox: Sandbox) -> None:
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW)
    rotation = rotation_with_audit(services)
    rotation.start()
    rotation.abandon()
    assert [e.outcome for e in entries(services, "key.rotation")] == [
        "started at step 1 (Generate the new key in the dashboard)",
        "abandoned at step 1 (Generate the new key in the dashboard); the profile keeps its key"]


async def test_a_refused_new_key_and_a_live_old_key_are_logged_as_failed_steps(sandbox: Sandbox) -> None:
    """The step that failed is named with where the wizard went back to; no key, not even masked."""
    services = Services(sandbox=sandbox, clock=lambda: FIXED_NOW)
    sandbox.add_key(CANARY_KEY, "canary")
    rotation = rotation_with_audit(services)
    rotation.start()
    rotation.confirm_generated()
    rotation.paste(ApiKey("sk_sandbox_this_key_was_mistyped_0000"))
    assert not await rotation.verify_new()
    rotation.paste(ApiKey(CANARY_KEY))
    assert await rotation.verify_new()
    rotation.switch()
    rotation.confirm_deleted()  # not deleted in the dashboard: the old key still answers
    assert not await rotation.verify_old()
    outcomes = [e.outcome for e in entries(services, "key.rotation")]
    assert outcomes[3] == "failed: step 3 (Verify the new key with /ping); back to step 2 (Paste the new key)"
    assert outcomes[-1] == ("failed: step 6 (Check the old key is refused; forget it); back to step 5 (Delete the "
                            "old key in the dashboard)")
    assert sum(o.startswith("failed: ") for o in outcomes) == 2
    text = repr(entries(services))
    assert CANARY_KEY[-4:] not in text and "…" not in text  # a masked key reads sk_s…0000


async def test_a_metric_export_is_audited(make_app, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.sandbox.data import METRIC_DAILY_VOLUME_ID

    monkeypatch.chdir(tmp_path)
    app = make_app(opens_on="metrics")
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "metrics")
        await submit_id(pilot, METRIC_DAILY_VOLUME_ID)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("enter")
        await wait_for_workers(pilot)
    (export,) = entries(app.services, "export")
    (written,) = tmp_path.glob("metric-*.csv")
    assert export.target == METRIC_DAILY_VOLUME_ID and export.outcome == "written"
    assert export.details == {"filters": "metric dataset", "file": str(written),
                              "count": len(written.read_text().splitlines()) - 1}


async def test_starting_a_rotation_from_the_profiles_screen_is_audited(make_app) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import DataTable

    app = make_app(opens_on="profiles")
    async with app.run_test(size=SIZE) as pilot:
        screen: Any = await open_mode(pilot, "profiles")
        table = screen.query_one(DataTable)
        table.move_cursor(row=0)
        await pilot.press("r")
        await wait_for_workers(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False
    (started,) = entries(app.services, "key.rotation")
    assert started.details["step"] == 1 and started.profile == "embedded"


async def test_opening_an_explorer_link_is_audited(make_app, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import webbrowser

    from stablepay_console.sandbox.data import BATCH_50_ID

    monkeypatch.setattr(webbrowser, "open", lambda url: True)
    app = make_app(opens_on="batch")
    async with app.run_test(size=SIZE) as pilot:
        await open_mode(pilot, "batch")
        await submit_id(pilot, BATCH_50_ID)
        await pilot.press("o")
        await wait_for_workers(pilot)
    (opened,) = entries(app.services, "link.open")
    assert opened.target == BATCH_50_ID and opened.details == {"what": "explorer link"}
    assert opened.outcome == "opened in a browser"  # webbrowser.open said True: a browser took it


# --- what an entry holds -----------------------------------------------------------------------------------------


def test_every_field_of_an_entry_is_cut_to_its_bound() -> None:
    """A profile file, a server or a typed ID can hold anything: each field of an entry has a length it never
    passes (actor and profile 80, environment 20, action 40, target 120, outcome 200, a detail's name 40 and
    its value 300)."""
    services = Services(clock=lambda: FIXED_NOW)
    long = Profile("p" * 100, "e" * 30, "https://api.stablepay.example")
    draft = services.audit.draft("a" * 50, long, target="t" * 150, outcome="o" * 250, actor="m" * 100,
                                 **{"k" * 50: "v" * 400, "n" * 50: 7, "kept": None})
    assert (draft.actor, draft.profile, draft.environment) == ("m" * 79 + "…", "p" * 79 + "…", "e" * 19 + "…")
    assert (draft.action, draft.target, draft.outcome) == ("a" * 39 + "…", "t" * 119 + "…", "o" * 199 + "…")
    assert draft.detail == {"k" * 39 + "…": "v" * 299 + "…", "n" * 39 + "…": 7, "kept": None}
    assert draft.at == FIXED_NOW


def test_an_entry_is_the_profiles_author_and_names_nothing_it_was_not_given(tmp_path: Path) -> None:
    from stablepay_console.services.notes import AUTHOR_PREF
    from stablepay_console.storage.prefs import Prefs

    Prefs("prod").set(AUTHOR_PREF, "dana")
    services = Services(clock=lambda: FIXED_NOW)
    prod = Profile("prod", "production", "https://api.stablepay.example")
    plain = services.audit.draft("ping", prod)
    assert (plain.actor, plain.profile, plain.environment) == ("dana", "prod", "production")
    assert (plain.target, plain.outcome, plain.detail) == ("", "ok", {})
    nobody = services.audit.draft("evidence.write", None)
    assert (nobody.profile, nobody.environment) == ("", "")
    services.audit.append("ping", prod).result(30)
    services.audit.exported(None, "metric dataset", tmp_path / "m.csv", 3).result(30)
    ping, export = entries(services)
    assert (ping.target, ping.outcome) == ("", "ok")
    assert (export.profile, export.environment, export.target, export.outcome) == ("", "", "", "written")


def test_a_switch_is_audited_as_applied_or_refused_with_what_came_before() -> None:
    from stablepay_console.services.switching import SwitchOutcome

    services = Services(clock=lambda: FIXED_NOW)
    prod = Profile("prod", "production", "https://api.stablepay.example")
    services.audit.switched(SwitchOutcome(prod, FIXED_NOW, problem="no key for prod in the key store"),
                            EMBEDDED_PROFILE).result(30)
    services.audit.switched(SwitchOutcome(EMBEDDED_PRODUCTION_PROFILE, FIXED_NOW, client=object()),  # type: ignore[arg-type]
                            None).result(30)
    refused, applied = entries(services, "profile.switch")
    assert (refused.target, refused.outcome) == ("prod", "not switched: no key for prod in the key store")
    assert refused.details == {"previous": "embedded"}
    assert (applied.target, applied.outcome) == ("embedded-production", "switched")  # no ping yet
    assert applied.details == {"previous": ""}


def test_an_audit_entry_the_full_disk_refused_is_named(small_disk: SmallDisk, monkeypatch: pytest.MonkeyPatch) -> None:
    from stablepay_console.storage.writing import NOT_WRITTEN

    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", str(small_disk.path / "config"))
    services = Services(clock=lambda: FIXED_NOW)
    services.audit.append("ping", EMBEDDED_PROFILE).result(30)  # the record exists, with room for nothing more
    small_disk.fill()
    try:
        services.audit.append("export", EMBEDDED_PROFILE, target="rfis.csv", outcome="written").exception(30)
        services.record.flush()
        lines = [line for line in NOT_WRITTEN.lines if str(small_disk.path) in line]
        assert lines and lines[-1].endswith("Not recorded: the audit entry 'export'."), NOT_WRITTEN.lines
    finally:
        NOT_WRITTEN.reset()  # the board is the process's: a command run later in it would exit 1
