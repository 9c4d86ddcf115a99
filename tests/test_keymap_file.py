"""The user's keymap file (storage/keymap_file.py): binding id -> keys, read at start; a file that cannot be a
keymap is refused with where and why, never its raw contents; ids and keys are cleaned before they go anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from stablepay_console.storage import locations
from stablepay_console.storage.keymap_file import KeymapFileError, read_keymap


def keymap_with(text: str | bytes) -> Path:
    path = locations.keymap_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path | None = None) -> str:
    with pytest.raises(KeymapFileError) as refused:
        read_keymap(path)
    return str(refused.value)


def test_no_file_is_no_keymap() -> None:
    assert read_keymap() is None


def test_a_key_or_keys_are_taken_as_a_string_or_a_list_and_trimmed() -> None:
    keymap_with('"inbox.refresh" = "f5"\n"batch.reload" = " f5 , ctrl+r ,"\n"inbox.next" = ["j", " down "]\n')
    assert read_keymap() == {"inbox.refresh": "f5", "batch.reload": "f5,ctrl+r", "inbox.next": "j,down"}


def test_the_file_read_is_the_one_given_else_the_config_folders(tmp_path: Path) -> None:
    keymap_with('"inbox.refresh" = "f5"\n')
    given = tmp_path / "other.toml"
    given.write_text('"inbox.refresh" = "r"\n', encoding="utf-8")
    assert read_keymap(given) == {"inbox.refresh": "r"}
    assert read_keymap() == {"inbox.refresh": "f5"}


def test_a_file_that_cannot_be_read_says_where_and_why() -> None:
    path = locations.keymap_file()
    path.mkdir(parents=True)
    assert refusal() == f"{path} could not be read: Is a directory."


def test_a_file_over_64_kib_is_refused_and_one_at_64_kib_is_read() -> None:
    line = '"inbox.refresh" = "f5"\n'
    padded = line + "#" * (64 * 1024 - len(line) - 1) + "\n"
    assert len(padded.encode()) == 64 * 1024
    keymap_with(padded)
    assert read_keymap() == {"inbox.refresh": "f5"}
    path = keymap_with(padded + "\n")
    assert refusal() == f"{path} is larger than 64 KiB: not a keymap."


def test_a_file_that_is_not_toml_is_refused_with_the_parsers_words() -> None:
    path = keymap_with('"inbox.refresh" = \x1b[31m' + "x" * 300 + "\n")
    assert refusal() == f"{path} is not valid TOML: Invalid value (at line 1, column 19)."
    path = keymap_with(b'"inbox.refresh" = "\xff"\n')
    assert refusal() == (f"{path} is not valid TOML: 'utf-8' codec can't decode byte 0xff in position 19: invalid "
                         "start byte.")


def test_a_binding_given_no_key_or_not_strings_is_refused_by_its_cleaned_id() -> None:
    path = keymap_with('"inbox.refresh" = ""\n')
    assert refusal() == f"{path}: inbox.refresh is given no key."
    path = keymap_with('"inbox.refresh" = [" ", ""]\n')
    assert refusal() == f"{path}: inbox.refresh is given no key."
    path = keymap_with('"inbox.refresh" = 5\n')
    assert refusal() == f"{path}: inbox.refresh needs a key or a list of keys (strings)."
    path = keymap_with('"inbox.refresh" = ["f5", 5]\n')
    assert refusal() == f"{path}: inbox.refresh needs a key or a list of keys (strings)."
    path = keymap_with('"in\\u001bbox" = 5\n')
    assert refusal() == f"{path}: in\\x1bbox needs a key or a list of keys (strings)."


def test_a_refused_bindings_id_is_cut_to_60_characters() -> None:
    path = keymap_with(f'"{"i" * 61}" = 5\n')
    assert refusal() == f"{path}: {'i' * 59}… needs a key or a list of keys (strings)."
    path = keymap_with(f'"{"i" * 61}" = ""\n')
    assert refusal() == f"{path}: {'i' * 59}… is given no key."


def test_ids_and_keys_are_cleaned_and_cut_before_they_are_kept() -> None:
    long_id = "i" * 61
    long_key = "k" * 41
    keymap_with(f'"{long_id}" = "{long_key}"\n"in\\u001bbox" = "f\\u001b5"\n')
    assert read_keymap() == {"i" * 59 + "…": "k" * 39 + "…", "in\\x1bbox": "f\\x1b5"}
