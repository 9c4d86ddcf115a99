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
