"""A profile's small preferences (storage/prefs.py): one JSON file per profile, named safely whatever the profile's
name; a damaged file reads as empty; the recent lookups come newest first, each once, ten at most."""

from __future__ import annotations

import json
from pathlib import Path

from stablepay_console.storage.prefs import Prefs


def test_each_profile_has_a_file_of_its_own_whose_name_is_safe_for_any_profile_name(isolated_config: Path) -> None:
    team = Prefs("Team-1.b_c")
    assert team.path == isolated_config / "data" / "prefs-Team-1.b_c.json"
    odd = Prefs("../ü x/")
    assert odd.path == isolated_config / "data" / "prefs-..___x_.json"
    odd.set("theme", "dark")
    assert Prefs("Team-1.b_c").get("theme") is None and Prefs("../ü x/").get("theme") == "dark"


def test_a_damaged_or_foreign_file_reads_as_no_preferences(isolated_config: Path) -> None:
    prefs = Prefs("team")
    prefs.path.parent.mkdir(parents=True, exist_ok=True)
    for text in ("{not json", '["a", "list"]', '"text"', ""):
        prefs.path.write_text(text, encoding="utf-8")
        assert Prefs("team").get("theme", "light") == "light", text
        assert Prefs("team").recent("lookups") == []
    prefs.path.write_bytes(b"\xff\xfe not utf-8")
    assert Prefs("team").get("theme", "light") == "light"


def test_a_value_set_is_kept_for_the_next_run_and_an_unset_one_is_the_default() -> None:
    Prefs("team").set("theme", "dark")
    again = Prefs("team")
    assert again.get("theme", "light") == "dark" and again.get("missing", "light") == "light"
    assert again.get("missing") is None
    assert json.loads(again.path.read_text(encoding="utf-8")) == {"theme": "dark"}


def test_recent_lookups_come_newest_first_each_once_and_ten_at_most() -> None:
    prefs = Prefs("team")
    assert prefs.recent("lookups") == []
    for n in range(12):
        prefs.remember("lookups", f"id-{n}")
    assert prefs.remember("lookups", "id-5") == ["id-5", "id-11", "id-10", "id-9", "id-8", "id-7", "id-6", "id-4",
                                                 "id-3", "id-2"]
    assert Prefs("team").recent("lookups") == ["id-5", "id-11", "id-10", "id-9", "id-8", "id-7", "id-6", "id-4",
                                               "id-3", "id-2"]
    assert Prefs("team").recent("other") == []


def test_recent_lookups_skip_what_is_not_an_id_in_a_hand_edited_file() -> None:
    prefs = Prefs("team")
    prefs.set("lookups", ["id-1", 7, None, "id-2"])
    assert Prefs("team").recent("lookups") == ["id-1", "id-2"]
    prefs.set("lookups", "id-1")
    assert Prefs("team").recent("lookups") == []


def test_the_file_is_laid_out_for_a_person_to_read_one_key_a_line_in_order() -> None:
    prefs = Prefs("team")
    prefs.set("theme", "dark")
    prefs.set("lookups", ["id-1"])
    assert prefs.path.read_text(encoding="utf-8") == '{\n  "lookups": [\n    "id-1"\n  ],\n  "theme": "dark"\n}'
