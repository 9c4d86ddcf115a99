"""The console shell: opens on the embedded sandbox with a banner and the inbox."""

from __future__ import annotations

from textual.widgets import DataTable

from tests.conftest import wait_for_workers


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
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Open Batch")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for_workers(pilot)
        assert app.current_mode == "batch"
