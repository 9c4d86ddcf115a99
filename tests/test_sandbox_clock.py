"""The built-in sandbox's start time is kept for eight hours (storage/sandbox_clock.py): a console started again
meanwhile sees the same requests at the same times, so the record keeps no new round entry for a restart."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from stablepay_console.storage import locations
from stablepay_console.storage.sandbox_clock import sandbox_anchor

START = datetime(2026, 11, 20, 9, 30, 15, 123456, tzinfo=timezone.utc)
FIRST = START.replace(microsecond=0)


def kept_file() -> Path:
    return locations.state_file("sandbox-clock")


def test_a_start_within_eight_hours_sees_the_first_starts_world() -> None:
    assert sandbox_anchor(START) == FIRST
    assert sandbox_anchor(FIRST) == FIRST
    assert sandbox_anchor(START + timedelta(hours=7, minutes=59, seconds=59)) == FIRST
    assert json.loads(kept_file().read_text(encoding="utf-8")) == {"anchor": FIRST.isoformat()}


def test_a_start_eight_hours_on_makes_the_world_again_and_keeps_that_one() -> None:
    sandbox_anchor(START)
    later = FIRST + timedelta(hours=8)
    assert sandbox_anchor(later) == later
    assert sandbox_anchor(later + timedelta(hours=1)) == later


def test_a_clock_set_back_makes_the_world_again() -> None:
    sandbox_anchor(START)
    earlier = FIRST - timedelta(minutes=5)
    assert sandbox_anchor(earlier) == earlier
    assert sandbox_anchor(earlier + timedelta(minutes=6)) == earlier


def test_an_unreadable_or_zoneless_kept_time_makes_the_world_again() -> None:
    kept_file().parent.mkdir(parents=True, exist_ok=True)
    for text in ("not json", '{"anchor": 7}', '{"when": "2026-11-20T09:30:15+00:00"}', '["2026-11-20T09:30:15"]',
                 json.dumps({"anchor": FIRST.replace(tzinfo=None).isoformat()})):
        kept_file().write_text(text, encoding="utf-8")
        assert sandbox_anchor(START + timedelta(minutes=1)) == FIRST + timedelta(minutes=1), text


def test_a_start_whose_time_cannot_be_kept_still_makes_its_world() -> None:
    data = kept_file().parent
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("a file where the data folder should be", encoding="utf-8")
    assert sandbox_anchor(START) == FIRST
    assert sandbox_anchor(START + timedelta(minutes=1)) == FIRST + timedelta(minutes=1)
