"""Regenerate screenshots/: one SVG per screen and state, from the seeded sandbox at a fixed instant.

    .venv/bin/python scripts/screenshots.py            # every picture
    .venv/bin/python scripts/screenshots.py inbox      # just the named ones

Every shot runs the real app headless with `run_test(size=...)` and `save_screenshot`, with its own
throwaway config directory, so no user profile, preference or key can appear in a picture, and no
shot inherits another's state (a rotation begun in one picture is not resumed in the next).

Most pictures are 120x40; those named `…-80x24` show the same screen in a default-sized terminal.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

import keyring
from keyring.backend import KeyringBackend
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from stablepay_console.api import ApiKey
from stablepay_console.profiles.model import EMBEDDED_PRODUCTION_PROFILE, EMBEDDED_PROFILE
from stablepay_console.sandbox import SANDBOX_KEY, Sandbox, data
from stablepay_console.tui.app import ConsoleApp
from stablepay_console.wiring import Services

NOW = datetime(2026, 11, 20, 9, 30, tzinfo=timezone.utc)
SIZE = (120, 40)
SMALL = (80, 24)
OUT = Path(__file__).resolve().parent.parent / "screenshots"

# Demo keys of the simulated production dashboard: they open nothing real and only ever show masked.
OLD_PRODUCTION_KEY = "sk_production_demo_old_0000000000000001"
NEW_PRODUCTION_KEY = "sk_production_demo_new_0000000000000002"

Steps = Callable[[Pilot[None]], Awaitable[None]]


async def settle(pilot: Pilot[None]) -> None:
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()


async def keys(pilot: Pilot[None], *pressed: str) -> None:
    for key in pressed:
        await pilot.press(key)
        await settle(pilot)


async def in_input(pilot: Pilot[None], selector: str, value: str) -> None:
    """Type `value` into the input `selector` and press Enter."""
    field = pilot.app.screen.query_one(selector, Input)
    field.value = value
    field.focus()
    await keys(pilot, "enter")


async def click(pilot: Pilot[None], *selectors: str) -> None:
    for selector in selectors:
        await pilot.click(selector)
        await settle(pilot)


async def goto_profile(pilot: Pilot[None], name: str) -> None:
    table = pilot.app.screen.query_one(DataTable)
    names = [str(table.get_row_at(i)[1]) for i in range(table.row_count)]
    table.move_cursor(row=names.index(name))
    await settle(pilot)


async def start_rotation(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, ConsoleApp)
    await app.use_profile(EMBEDDED_PRODUCTION_PROFILE)
    await keys(pilot, "5")
    await goto_profile(pilot, EMBEDDED_PRODUCTION_PROFILE.name)
    await keys(pilot, "r")


async def paste_key(pilot: Pilot[None], key: str) -> None:
    pilot.app.screen.query_one("#new-key", Input).value = key
    await settle(pilot)


async def inbox(pilot: Pilot[None]) -> None:
    pass


async def inbox_issued_page_2(pilot: Pilot[None]) -> None:
    await keys(pilot, "s", "n")


async def inbox_needs_action(pilot: Pilot[None]) -> None:
    await keys(pilot, "a")


async def rfi_detail(pilot: Pilot[None]) -> None:
    # The first issued transaction request: a held transfer, a live link, a ticking deadline.
    table = pilot.app.screen.query_one(DataTable)
    for row in range(table.row_count):
        cells = [str(c) for c in table.get_row_at(row)]
        if "issued" in cells and "transaction" in cells:
            table.move_cursor(row=row)
            break
    await keys(pilot, "enter")


async def team(pilot: Pilot[None]) -> None:
    # Some of the team's work first (claims, an answer made ready and approved by a colleague, one waiting on
    # the user, the claim level tightened), then key 7.
    app = pilot.app
    services = app.services  # type: ignore[attr-defined]
    issued = [row for row in app.screen.query_one(DataTable).rfis.values() if row.status == "issued"]  # type: ignore[attr-defined]
    for rfi in issued[:3]:
        await asyncio.wrap_future(services.notes.claim(EMBEDDED_PROFILE, rfi.id))
    await asyncio.wrap_future(services.triage.step(EMBEDDED_PROFILE, issued[0].id, "ready"))
    await asyncio.wrap_future(services.triage.step(EMBEDDED_PROFILE, issued[0].id, "approve", author="bob"))
    await asyncio.wrap_future(services.triage.step(EMBEDDED_PROFILE, issued[1].id, "wait"))
    await asyncio.wrap_future(services.triage.set_policy(EMBEDDED_PROFILE, claim_within=timedelta(hours=2)))
    await keys(pilot, "7")
    for _ in range(100):
        if getattr(app.screen, "report", None) is not None:
            break
        await settle(pilot)


async def made_ready(pilot: Pilot[None], count: int = 2) -> list[object]:
    """Answers made ready by colleagues (ana, bob) on the first issued requests: what a review queue holds."""
    app = pilot.app
    services = app.services  # type: ignore[attr-defined]
    await asyncio.to_thread(services.record.flush)
    issued = [row for row in app.screen.query_one(DataTable).order if row.status == "issued"]  # type: ignore[attr-defined]
    for rfi, who in zip(issued[:count], ("ana", "bob"), strict=False):
        await asyncio.wrap_future(services.notes.claim(EMBEDDED_PROFILE, rfi.id, author=who))
        await asyncio.wrap_future(services.triage.step(EMBEDDED_PROFILE, rfi.id, "ready", "statement and ID checked",
                                                       author=who))
    return issued


async def triage_detail(pilot: Pilot[None]) -> None:
    await made_ready(pilot, 1)
    await keys(pilot, "enter")


async def triage_step_note(pilot: Pilot[None]) -> None:
    await made_ready(pilot, 1)
    await keys(pilot, "enter", "X")
    for key in "the statement is older than 3 months":
        await pilot.press(key)
    await settle(pilot)


async def triage_review_queue(pilot: Pilot[None]) -> None:
    await made_ready(pilot, 2)
    await keys(pilot, "v")
    for _ in range(100):
        if len(pilot.app.screen.query_one(DataTable).order) == 2:  # type: ignore[attr-defined]
            break
        await settle(pilot)


async def triage_assign_picker(pilot: Pilot[None]) -> None:
    from stablepay_console.storage.record_types import TeamMember
    from stablepay_console.tui.modals.assign_picker import AssignPicker

    issued = await made_ready(pilot, 0)
    team = [TeamMember("alice"), TeamMember("bob"), TeamMember("carol", lead=True)]
    await pilot.app.push_screen(AssignPicker(issued[0].id, team, "alice"))  # type: ignore[attr-defined]


async def batch_lookup(pilot: Pilot[None]) -> None:
    await keys(pilot, "2")
    await in_input(pilot, "#id-input", data.BATCH_50_ID)


async def quote_refresh(pilot: Pilot[None]) -> None:
    await keys(pilot, "3")
    await in_input(pilot, "#id-input", data.ONRAMP_OPEN_ID)
    await keys(pilot, "r")  # a second refresh shows how the quote moved


async def metrics_chart(pilot: Pilot[None]) -> None:
    await keys(pilot, "4")
    await in_input(pilot, "#metric-id", data.METRIC_DAILY_VOLUME_ID)


async def metrics_breakdown(pilot: Pilot[None]) -> None:
    await keys(pilot, "4")
    await in_input(pilot, "#metric-id", data.METRIC_TX_COUNT_ID)


async def metrics_table(pilot: Pilot[None]) -> None:
    await metrics_chart(pilot)
    await keys(pilot, "t")


async def profiles(pilot: Pilot[None]) -> None:
    await keys(pilot, "5")


async def profile_switcher(pilot: Pilot[None]) -> None:
    await keys(pilot, "5", "f2")


async def production_banner(pilot: Pilot[None]) -> None:
    # Switched from the profile switcher (F2): the banner turns red and pings the new environment.
    await keys(pilot, "f2")
    await keys(pilot, "down", "enter")


async def rotation_paste(pilot: Pilot[None]) -> None:
    await start_rotation(pilot)
    await click(pilot, "#generated")
    await paste_key(pilot, NEW_PRODUCTION_KEY)


async def rotation_verify_failed(pilot: Pilot[None]) -> None:
    await start_rotation(pilot)
    await click(pilot, "#generated")
    await paste_key(pilot, SANDBOX_KEY)  # a key of the other environment
    await click(pilot, "#paste")


async def rotation_switch(pilot: Pilot[None]) -> None:
    await rotation_paste(pilot)
    await click(pilot, "#paste")


async def rotation_delete_old(pilot: Pilot[None]) -> None:
    await rotation_switch(pilot)
    await click(pilot, "#switch")


async def rotation_old_still_works(pilot: Pilot[None]) -> None:
    await rotation_delete_old(pilot)
    await click(pilot, "#deleted")  # not deleted yet: the wizard keeps the old key


async def rotation_done(pilot: Pilot[None]) -> None:
    await rotation_delete_old(pilot)
    await click(pilot, "#simulate-delete")


SHOTS: dict[str, Steps] = {
    "inbox": inbox,
    "inbox-80x24": inbox,
    "inbox-issued-page-2": inbox_issued_page_2,
    "inbox-needs-action": inbox_needs_action,
    "rfi-detail": rfi_detail,
    "rfi-detail-80x24": rfi_detail,
    "triage-detail": triage_detail,
    "triage-detail-80x24": triage_detail,
    "triage-step-note": triage_step_note,
    "triage-step-note-80x24": triage_step_note,
    "triage-review-queue": triage_review_queue,
    "triage-review-queue-80x24": triage_review_queue,
    "triage-assign-picker": triage_assign_picker,
    "batch-lookup": batch_lookup,
    "batch-lookup-80x24": batch_lookup,
    "quote-refresh": quote_refresh,
    "metrics-chart": metrics_chart,
    "metrics-breakdown": metrics_breakdown,
    "metrics-table": metrics_table,
    "profiles": profiles,
    "profile-switcher": profile_switcher,
    "production-banner": production_banner,
    "rotation-1-generate": start_rotation,
    "rotation-2-paste": rotation_paste,
    "rotation-3-verify-failed": rotation_verify_failed,
    "rotation-4-switch": rotation_switch,
    "rotation-5-delete-old": rotation_delete_old,
    "rotation-6-old-still-works": rotation_old_still_works,
    "rotation-7-done": rotation_done,
    "team": team,
    "team-80x24": team,
}


class PictureKeyring(KeyringBackend):
    """An in-memory keyring, so the pictures show a working secret store and touch no real one."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)


def build_app() -> ConsoleApp:
    """The console on fixed data, a fixed clock and fixed demo keys, so pictures change only with the UI."""
    production = Sandbox(
        now=NOW, environment="production", keys={OLD_PRODUCTION_KEY: "demo", NEW_PRODUCTION_KEY: "new"}
    )
    services = Services(sandbox=Sandbox(now=NOW), production_sandbox=production, clock=lambda: NOW)
    services.embedded_vault.set(EMBEDDED_PRODUCTION_PROFILE.name, ApiKey(OLD_PRODUCTION_KEY))
    return ConsoleApp(EMBEDDED_PROFILE, services, clock=lambda: NOW)


def size_of(name: str) -> tuple[int, int]:
    return SMALL if name.endswith("-80x24") else SIZE


async def take(name: str, steps: Steps) -> None:
    with TemporaryDirectory() as config:
        os.environ["STABLEPAY_CONFIG_DIR"] = config
        os.environ["LOGNAME"] = "analyst"  # the local record's author in the pictures, whoever makes them
        keyring.set_keyring(PictureKeyring())
        await shoot(name, steps)


async def shoot(name: str, steps: Steps) -> None:
    app = build_app()
    async with app.run_test(size=size_of(name)) as pilot:
        await settle(pilot)
        await steps(pilot)
        await settle(pilot)
        app.clear_notifications()
        await settle(pilot)
        app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
    print(f"screenshots/{name}.svg")


async def main(only: list[str]) -> None:
    unknown = [name for name in only if name not in SHOTS]
    if unknown:
        raise SystemExit(f"unknown screenshot(s): {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    OUT.mkdir(exist_ok=True)
    for name, steps in SHOTS.items():
        if not only or name in only:
            await take(name, steps)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
