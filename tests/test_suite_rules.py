"""Rules of the test suite itself that keep a whole run on a busy machine as green as a test alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

TESTS = Path(__file__).parent


def test_no_hypothesis_test_fails_for_being_slow() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_no_test_reads_a_toast_that_can_be_gone_before_it_is_read() -> None:
    """Textual drops a toast when it times out (and a newer one can cover it): tests read what the console said
    (`app.said`), kept after its toast is gone."""
    readers = [path.name for path in sorted(TESTS.glob("*.py"))
               if path.name != Path(__file__).name and re.search(r"\._notifications\b", path.read_text("utf-8"))]
    assert readers == []


async def test_what_the_console_said_is_kept_after_its_toast_is_gone(make_app) -> None:  # type: ignore[no-untyped-def]
    from textual.widgets._toast import Toast

    app = make_app(opens_on="batch")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        app.notify("first \x1b[31mthing", title="One", timeout=1.0)
        app.notify("second", title="Two", severity="warning")

        def first_shown() -> bool:
            return any("first" in str(toast.render()) for toast in app.screen.query(Toast))

        for _ in range(200):  # the first toast appears, times out and goes (each pause gives it the loop)
            if first_shown():
                break
            await pilot.pause(0.02)
        assert first_shown(), "the first toast was shown"
        for _ in range(400):
            if not first_shown():
                break
            await pilot.pause(0.02)
        assert not first_shown()
        assert [(s.title, s.message, s.severity) for s in app.said][-2:] == [
            ("One", "first \\x1b[31mthing", "information"), ("Two", "second", "warning")]
        app.clear_notifications()
        assert list(app.said) == []


LANES = {"pg_server": "postgres", "chromium": "browser"}
"""A fixture of a real part, and the marker of its lane (CONTRIBUTING.md: `-m postgres`, `-m "not browser"`)."""


def test_every_test_of_a_real_part_is_in_its_lane(request: pytest.FixtureRequest) -> None:
    """A test that needs PostgreSQL or Chromium carries the marker that runs (or skips) its lane, so `-m` picks
    every one of them. Checked over the tests this run collected."""
    unmarked = sorted(
        f"{item.nodeid} needs {fixture}: mark it {marker}"
        for item in request.session.items
        for fixture, marker in LANES.items()
        if fixture in getattr(item, "fixturenames", ()) and item.get_closest_marker(marker) is None
    )
    assert unmarked == []
