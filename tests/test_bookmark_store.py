"""Named metric bookmarks, kept per profile (storage/bookmarks.py): a profile that never saved any starts with the
defaults; a hand-edited entry with a broken ID is skipped; a disk that refuses keeps them for the run and says so;
a name is what a person typed, on one line, without control characters, at most 60 characters."""

from __future__ import annotations

from pathlib import Path

import pytest

from stablepay_console.storage.bookmarks import Bookmark, BookmarkStore, bookmark_name
from stablepay_console.storage.prefs import Prefs

A = "0b7e5a8e-3f1c-4a55-9d8e-2f4b6c8d0e1a"
B = "1c8f6b9f-4a2d-4b66-8e9f-3a5c7d9e1f2b"


def test_a_profile_that_never_saved_bookmarks_starts_with_the_defaults_and_one_that_did_keeps_its_own() -> None:
    assert BookmarkStore("team", defaults=[("Volume", A)]).items == [Bookmark("Volume", A)]
    store = BookmarkStore("team", defaults=[("Volume", A)])
    store.remove(0)
    assert BookmarkStore("team", defaults=[("Volume", A)]).items == []
    assert BookmarkStore("other", defaults=[("Volume", A)]).items == [Bookmark("Volume", A)]


def test_added_renamed_and_removed_bookmarks_are_kept_for_the_next_run() -> None:
    store = BookmarkStore("team")
    assert store.add("Volume", A) == Bookmark("Volume", A)
    store.add("Fees", B)
    assert store.rename(0, "Daily volume") == Bookmark("Daily volume", A)
    assert BookmarkStore("team").items == [Bookmark("Daily volume", A), Bookmark("Fees", B)]
    assert Prefs("team").get("metric_bookmarks") == [{"name": "Daily volume", "id": A}, {"name": "Fees", "id": B}]
    assert store.remove(1) == Bookmark("Fees", B)
    assert BookmarkStore("team").items == [Bookmark("Daily volume", A)]
    assert store.find(A) == Bookmark("Daily volume", A) and store.find(B) is None


def test_a_hand_edited_entry_with_a_broken_id_is_skipped_and_a_nameless_one_is_unnamed() -> None:
    Prefs("team").set("metric_bookmarks", [{"name": "Volume", "id": A}, {"name": "Broken", "id": "not-an-id"},
                                           "not an entry", {"id": B}, {"name": "", "id": B.upper()}])
    items = BookmarkStore("team").items
    assert [b.name for b in items] == ["Volume", "unnamed", "unnamed"]
    assert items[0].id == A and items[1].id == B
    for stored in ({"name": "Volume", "id": A}, 7, "text"):
        Prefs("team").set("metric_bookmarks", stored)
        assert BookmarkStore("team", defaults=[("Fees", B)]).items == [], stored


def test_a_disk_that_refuses_keeps_the_bookmarks_for_this_run_and_says_so(isolated_config: Path) -> None:
    store = BookmarkStore("team")
    data = isolated_config / "data"
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("a file where the data folder should be", encoding="utf-8")
    assert store.not_saved is None
    store.add("Volume", A)
    assert store.items == [Bookmark("Volume", A)]
    assert store.not_saved is not None and store.not_saved.endswith(" The bookmarks are kept for this run only.")
    assert "preferences" in store.not_saved


def test_a_bookmark_name_is_one_line_of_at_most_60_characters_without_control_characters() -> None:
    assert bookmark_name("  Daily \t volume \n") == "Daily volume"
    assert bookmark_name("x" * 60) == "x" * 60
    with pytest.raises(ValueError) as refused:
        bookmark_name("x" * 61)
    assert str(refused.value) == "Keep the name under 60 characters."
    with pytest.raises(ValueError) as refused:
        bookmark_name(" \t\n ")
    assert str(refused.value) == "A bookmark needs a name."
    with pytest.raises(ValueError) as refused:
        bookmark_name("red \x1b[31m" + "y" * 50)
    assert str(refused.value) == ("A bookmark name cannot hold control characters or escape sequences: "
                                  "red \\x1b[31m" + "y" * 27 + "…")
