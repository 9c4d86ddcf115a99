"""Small state kept between runs, per profile, in the data folder: the inbox's first page as last shown
(storage/first_page.py), what `rfis watch` has seen and the radar's settings (storage/watch_state.py). Each is
used only for the profile and base URL it was made with; a damaged or foreign file is no state, never a crash;
what is kept is made safe to print before it is written."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from stablepay_console.storage import first_page, watch_state
from stablepay_console.storage.writing import NotWritten
from tests.conftest import FIXED_NOW

URL = "https://api.sandbox.stablepay.test"


def page(**changes: object) -> first_page.FirstPage:
    base = first_page.FirstPage("team", URL, {"status": "issued", "kind": None}, FIXED_NOW, 50, 2,
                                [{"id": "a", "status": "issued"}, {"id": "b", "status": "issued"}])
    return replace(base, **changes)  # type: ignore[arg-type]


# --- the inbox's first page -------------------------------------------------------------------------------


def test_the_first_page_comes_back_for_its_profile_and_base_url_only(isolated_config: Path) -> None:
    path = first_page.save(page())
    assert path == isolated_config / "data" / "inbox-team.json"
    assert first_page.load("team", URL) == page()
    assert first_page.load("team", URL + "/other") is None
    assert first_page.load("other", URL) is None
    assert first_page.page_path("../ü x") == isolated_config / "data" / "inbox-..___x.json"
    assert first_page.page_path("Team-1.b_c") == isolated_config / "data" / "inbox-Team-1.b_c.json"


def test_a_disk_that_refuses_says_what_was_not_written(isolated_config: Path) -> None:
    isolated_config.mkdir(parents=True, exist_ok=True)
    (isolated_config / "data").write_text("a file where the data folder should be", encoding="utf-8")
    with pytest.raises(NotWritten) as refused:
        first_page.save(page())
    assert str(refused.value).startswith("Could not write the inbox's first page to ")
    with pytest.raises(NotWritten) as refused:
        watch_state.save("team", URL, {})
    assert str(refused.value).startswith("Could not write the watch's state to ")
    with pytest.raises(NotWritten) as refused:
        watch_state.save_radar_seconds(30)
    assert str(refused.value).startswith("Could not write the radar setting to ")


def test_a_first_page_keeps_a_hundred_rows_at_most_and_rows_that_are_objects() -> None:
    rows = [{"id": str(n)} for n in range(150)]
    first_page.save(page(rows=rows, total=150))
    kept = json.loads(first_page.page_path("team").read_text(encoding="utf-8"))
    assert kept["rows"] == rows[:100] and kept["version"] == 1 and kept["at"] == FIXED_NOW.isoformat()
    loaded = first_page.load("team", URL)
    assert loaded is not None and loaded.rows == rows[:100] and loaded.total == 150 and loaded.limit == 50
    kept["rows"] = [{"id": "a"}, "not a row", 7, {"id": "b"}, *({"id": str(n)} for n in range(200))]
    first_page.page_path("team").write_text(json.dumps(kept), encoding="utf-8")
    loaded = first_page.load("team", URL)
    assert loaded is not None and [r["id"] for r in loaded.rows][:3] == ["a", "b", "0"] and len(loaded.rows) == 98


def test_a_first_page_is_written_safe_to_print() -> None:
    first_page.save(page(rows=[{"id": "a\x1b[31m\u202e", "note": "café"}]))
    text = first_page.page_path("team").read_text(encoding="utf-8")
    assert "\x1b" not in text and "\u202e" not in text and "\\u001b" in text and "café" in text
    loaded = first_page.load("team", URL)
    assert loaded is not None and loaded.rows == [{"id": "a\x1b[31m\u202e", "note": "café"}]


@pytest.mark.parametrize("change", [
    {"version": 2}, {"profile": "other"}, {"at": "yesterday"}, {"at": "2026-11-20T09:30:00"}, {"at": 5},
    {"filters": ["issued"]}, {"rows": {"id": "a"}}, {"limit": "50"}, {"total": True}, {"limit": 2.5},
    {"total": None},
])
def test_a_damaged_first_page_is_no_page(change: dict[str, object]) -> None:
    first_page.save(page())
    kept = json.loads(first_page.page_path("team").read_text(encoding="utf-8"))
    first_page.page_path("team").write_text(json.dumps({**kept, **change}), encoding="utf-8")
    assert first_page.load("team", URL) is None


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", '{"version": 1}', "\"text\""])
def test_an_unreadable_first_page_file_is_no_page(text: str) -> None:
    path = first_page.page_path("team")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert first_page.load("team", URL) is None
    for key in ("filters", "at", "limit", "total", "rows"):
        first_page.save(page())
        kept = json.loads(path.read_text(encoding="utf-8"))
        del kept[key]
        path.write_text(json.dumps(kept), encoding="utf-8")
        assert first_page.load("team", URL) is None, key


# --- what rfis watch has seen ---------------------------------------------------------------------------


def test_the_watchs_memory_comes_back_for_its_profile_and_base_url_only(isolated_config: Path) -> None:
    memory = {"rfis": {"a": "issued"}, "note": "café"}
    path = watch_state.save("team", URL, memory)
    assert path == isolated_config / "data" / "watch-team.json"
    assert watch_state.load("team", URL) == memory
    assert watch_state.load("team", URL + "/other") is None and watch_state.load("other", URL) is None
    assert path.read_text(encoding="utf-8") == (
        '{"version":1,"profile":"team","baseUrl":"' + URL + '","memory":{"rfis":{"a":"issued"},"note":"caf\\u00e9"}}')
    assert watch_state.state_path("../ü x") == isolated_config / "data" / "watch-..___x.json"
    assert watch_state.state_path("Team-1.b_c") == isolated_config / "data" / "watch-Team-1.b_c.json"


@pytest.mark.parametrize("text", ["", "not json", "[1]", f'{{"version": 2, "baseUrl": "{URL}", "memory": {{}}}}',
                                  f'{{"version": 1, "baseUrl": "{URL}", "memory": [1]}}',
                                  f'{{"version": 1, "baseUrl": "{URL}"}}'])
def test_a_damaged_watch_state_is_a_clean_memory(text: str) -> None:
    path = watch_state.state_path("team")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    assert watch_state.load("team", URL) is None


def test_the_radar_settings_are_kept_when_one_of_the_choices_and_else_the_default() -> None:
    assert (watch_state.radar_seconds(), watch_state.sweep_minutes()) == (60, 15)
    watch_state.save_radar_seconds(0)
    watch_state.save_sweep_minutes(60)
    assert (watch_state.radar_seconds(), watch_state.sweep_minutes()) == (0, 60)
    with pytest.raises(ValueError) as refused:
        watch_state.save_radar_seconds(45)
    assert str(refused.value) == "the radar setting is one of 0, 30, 60, 300."
    with pytest.raises(ValueError) as refused:
        watch_state.save_sweep_minutes(30)
    assert str(refused.value) == "the radar's sweep setting is one of 5, 15, 60."
    assert (watch_state.radar_seconds(), watch_state.sweep_minutes()) == (0, 60)
    for text in ('{"seconds": 45}', '{"seconds": true}', "[30]", "nope", '{"minutes": 5}'):
        watch_state.save_radar_seconds(30)
        Path(watch_state.state_path("x")).parent.joinpath("radar.json").write_text(text, encoding="utf-8")
        assert watch_state.radar_seconds() == 60, text
