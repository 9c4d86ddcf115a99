"""The console shell: opens on the embedded sandbox with a banner and the inbox."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from textual.widgets import DataTable

from stablepay_console.sandbox import Sandbox
from stablepay_console.sandbox.control import add_request, open_round
from stablepay_console.services.watch.due import due_report
from tests.conftest import FIXED_NOW, until, wait_for_workers


async def test_opens_on_inbox_with_sandbox_banner(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for_workers(pilot)
        assert app.current_mode == "inbox"
        assert app.screen.query_one(DataTable).row_count == 20
        banner = str(app.screen.query_one("EnvironmentBanner").render())
        assert "SANDBOX" in banner
        assert "pong" in banner


async def test_q_quits(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for_workers(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_escape_leaves_a_text_field_so_number_keys_switch_screens(make_app) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets import Input

    app = make_app(ping_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        for key, mode in (("2", "batch"), ("3", "quote"), ("4", "metrics")):
            await pilot.press(key)
            await wait_for_workers(pilot)
            assert app.current_mode == mode
            assert app.screen.focused is None, "the screen opens with the keys: the digits switch screens"
            await pilot.press("slash")  # start typing the ID
            assert isinstance(app.screen.focused, Input)
            await pilot.press("1")  # typed into the field, not a screen switch
            assert app.current_mode == mode
            await pilot.press("escape", "1")
            await wait_for_workers(pilot)
            assert app.current_mode == "inbox"
            await pilot.press(key)
            await wait_for_workers(pilot)
            assert "1" in [field.value for field in app.screen.query(Input)]  # what was typed is kept
            await pilot.press("escape")


async def test_command_palette_opens_screens_by_name(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app(ping_on_start=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_workers(pilot)
        await choose_in_palette(pilot, "Open Batch")
        await wait_for_workers(pilot)
        assert app.current_mode == "batch"


# --- the deadline radar -----------------------------------------------------------------------


def radar_app(sandbox, clock=None):  # type: ignore[no-untyped-def]
    from stablepay_console.profiles.model import EMBEDDED_PROFILE
    from stablepay_console.tui.app import ConsoleApp
    from stablepay_console.wiring import Services

    return ConsoleApp(EMBEDDED_PROFILE, Services(sandbox=sandbox), clock=clock or (lambda: FIXED_NOW),
                      ping_on_start=False, radar=True)


def banner_text(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("EnvironmentBanner").render())


def notices(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(n.title, n.message) for n in app.said]


async def test_radar_counts_due_and_overdue_in_the_banner(sandbox) -> None:  # type: ignore[no-untyped-def]
    issued = [r for r in sandbox.data.rfis if r.status == "issued"]
    expected = due_report(issued, FIXED_NOW, timedelta(hours=24))
    assert expected.due and expected.overdue
    app = radar_app(sandbox)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        label = f"{len(expected.due)} due < 24h · {len(expected.overdue)} overdue"
        assert label in banner_text(app)
        assert notices(app) == [], "what is already there on start is counted, not announced"
        await pilot.press("2")
        await wait_for_workers(pilot)
        assert label in banner_text(app), "every screen's banner shows it"


async def test_radar_count_is_hidden_when_nothing_is_due() -> None:
    app = radar_app(Sandbox(now=FIXED_NOW, rfis=0))
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        assert app.radar_label == ""
        assert "due <" not in banner_text(app) and "overdue" not in banner_text(app)


async def test_radar_notifies_new_rounds_and_deadlines_crossing_24h_and_1h(sandbox) -> None:  # type: ignore[no-untyped-def]
    now = [FIXED_NOW]
    app = radar_app(sandbox, clock=lambda: now[0])
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        answered = next(r for r in sandbox.data.rfis if r.status == "submitted")
        open_round(sandbox.data, sandbox.state.rng, answered.id, timedelta(hours=30))
        raised = add_request(sandbox.data, sandbox.state.rng, timedelta(hours=25))
        app.radar.poll()
        await wait_for_workers(pilot)
        said = notices(app)
        assert [t for t, m in said if answered.id[:8] in m] == ["Compliance asked again"]
        assert [t for t, m in said if raised.id[:8] in m] == ["New request"]
        assert "Press ! for needs action" in said[0][1]
        app.clear_notifications()

        now[0] = FIXED_NOW + timedelta(hours=2)  # the new request now has 23 hours left; the round 28
        app.radar.poll()
        await wait_for_workers(pilot)
        about = [(title, text) for title, text in notices(app) if raised.id[:8] in text]
        assert [title for title, _ in about] == ["Deadline in under 24 hours"]
        assert "deadline in 23h 00m" in about[0][1]
        assert all(answered.id[:8] not in text for _, text in notices(app)), "28 hours left: nothing to say"
        app.clear_notifications()
        app.radar.poll()
        await wait_for_workers(pilot)
        assert notices(app) == [], "each crossing is told once"

        now[0] = FIXED_NOW + timedelta(hours=24, minutes=30)
        app.radar.poll()
        await wait_for_workers(pilot)
        about = [n for n in app.said if raised.id[:8] in n.message]
        assert [(n.title, n.severity) for n in about] == [("Deadline in under 1 hour", "warning")]


async def test_exclamation_mark_opens_needs_action_from_any_screen(sandbox) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.tui.radar import in_needs_action

    app = radar_app(sandbox)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("2")
        await wait_for_workers(pilot)
        await pilot.press("escape", "exclamation_mark")
        await wait_for_workers(pilot)
        assert app.current_mode == "inbox" and in_needs_action(app.screen)
        await pilot.press("exclamation_mark")
        await wait_for_workers(pilot)
        assert in_needs_action(app.screen), "pressed again, it stays on needs action"


async def test_clicking_the_count_opens_needs_action(sandbox) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.tui.radar import in_needs_action
    from stablepay_console.tui.widgets.banner import EnvironmentBanner

    app = radar_app(sandbox)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        await pilot.press("3")
        await wait_for_workers(pilot)
        x = banner_text(app).index(app.radar_label) + 1  # the banner's left padding is one cell
        await pilot.click(EnvironmentBanner, offset=(x + 2, 0))
        await wait_for_workers(pilot)
        assert app.current_mode == "inbox" and in_needs_action(app.screen)


async def choose_in_palette(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type `text` into the command palette, wait until it is the first hit, run it."""
    import time

    await pilot.press("ctrl+p")
    await pilot.press(*text)
    deadline = time.monotonic() + 10
    while True:
        hits = pilot.app.screen.query("CommandList")
        if hits and hits.first().option_count and text in str(hits.first().get_option_at_index(0).prompt):
            break
        assert time.monotonic() < deadline, f"the palette never offered {text!r}"
        await pilot.pause(0.05)
    await pilot.press("enter")


async def test_radar_off_switch_in_the_palette_is_kept(sandbox) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.storage import watch_state

    app = radar_app(sandbox)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        assert app.radar_label
        await choose_in_palette(pilot, "Deadline radar: off")
        await wait_for_workers(pilot)
        assert app.radar_label == "" and "due <" not in banner_text(app)
        calls = len(sandbox.api_calls())
        app.radar.poll()
        await wait_for_workers(pilot)
        assert len(sandbox.api_calls()) == calls, "off means no polling"
    assert watch_state.radar_seconds() == 0
    again = radar_app(sandbox)
    async with again.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        assert again.radar_label == "", "still off in the next run"


async def test_a_slow_radar_poll_never_holds_a_key_press(sandbox) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    app = radar_app(sandbox)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_for_workers(pilot)
        release = asyncio.Event()
        real_poll = app.radar.poller.poll

        async def slow_poll(client, now):  # type: ignore[no-untyped-def]
            await release.wait()  # a server that has not answered yet
            return await real_poll(client, now)

        app.radar.poller.poll = slow_poll  # type: ignore[method-assign]
        app.radar.poll(restart=True)
        await pilot.pause()
        (radar,) = [w for w in app.workers if w.group == "deadline-radar"]
        await pilot.press("2")
        await pilot.pause()
        assert app.current_mode == "batch"
        assert not radar.is_finished, "the key was handled while the poll was still waiting"
        release.set()
        await wait_for_workers(pilot)
        assert radar.is_finished and app.radar_label


async def test_a_narrow_banner_puts_the_overdue_count_first(sandbox) -> None:  # type: ignore[no-untyped-def]
    from stablepay_console.tui.formatters.radar import compact

    assert compact("21 due < 24h · 4 overdue") == "4 overdue · 21 due"
    assert compact("2 due < 24h") == "2 due"
    assert compact("21 due < 24h · 4 overdue", room=12) == "4 overdue", "only what fits whole"
    app = radar_app(sandbox)
    async with app.run_test(size=(100, 24)) as pilot:
        await asyncio.wrap_future(app.services.triage.set_policy(None))  # service levels apply: breaches count
        app.radar.poll()
        await wait_for_workers(pilot)
        await until(pilot, lambda: "breached" in app.radar_label, "the banner never counted the breaches")
        text = banner_text(app)
        deadlines = " · ".join(part for part in app.radar_label.split(" · ") if "breached" not in part)
        assert "breached" in app.radar_label, "the service levels breached are counted too (last: least urgent)"
        assert compact(deadlines) in text and app.radar_label not in text
        assert text.index("overdue") < text.index(" due"), "on a narrow banner the most urgent comes first"
        await pilot.resize_terminal(80, 24)
        await wait_for_workers(pilot)
        await pilot.pause()
        text = banner_text(app)
        urgent = compact(app.radar_label).split(" · ")[0]
        assert f" · {urgent}" in text[:78], "on 80 columns the most urgent shows whole, after a separator"



async def test_a_screen_does_its_showing_work_each_time_it_is_shown(make_app) -> None:  # type: ignore[no-untyped-def]
    """The inbox reads the claims from the record each time it is shown: the first time, after another screen and
    after the detail. (A screen lets the second of two resumes queued back to back go, as Textual queues two for a
    mode's first screen; a screen that kept ignoring resumes would show claims made elsewhere only on restart.)"""
    from stablepay_console.tui.screens.inbox import InboxScreen
    from stablepay_console.tui.screens.rfi_detail import RfiDetailScreen

    app = make_app(ping_on_start=False)
    notes = app.services.notes
    reads: list[str] = []
    claims = notes.claims

    def counted(profile: str):  # type: ignore[no-untyped-def]
        reads.append(profile)
        return claims(profile)

    notes.claims = counted
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_workers(pilot)
        assert isinstance(app.screen, InboxScreen) and len(reads) == 1, "shown for the first time: read once"
        await app.switch_mode("batch")
        await wait_for_workers(pilot)
        await app.switch_mode("inbox")
        await wait_for_workers(pilot)
        assert len(reads) == 2, "shown again after another screen: read once more"
        await pilot.press("enter")  # the highlighted request's detail
        await wait_for_workers(pilot)
        assert isinstance(app.screen, RfiDetailScreen)
        await pilot.press("escape")
        await wait_for_workers(pilot)
        assert isinstance(app.screen, InboxScreen) and len(reads) == 3, "back from the detail: read once more"
