"""Where the console's files live (storage/locations.py): the platform's user folders named `stablepay-console`
(docs/record.md), all of them moved under `STABLEPAY_CONFIG_DIR` when it is set, and made readable by the user only."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from stablepay_console.storage import locations


@pytest.fixture
def platform_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No STABLEPAY_CONFIG_DIR; the XDG folders (which platformdirs reads on Linux) under tmp_path."""
    monkeypatch.delenv("STABLEPAY_CONFIG_DIR", raising=False)
    for name in ("CONFIG", "DATA", "STATE"):
        monkeypatch.setenv(f"XDG_{name}_HOME", str(tmp_path / name.lower()))
    return tmp_path


def test_without_stablepay_config_dir_the_files_live_in_the_users_folders_of_the_platform(
    platform_folders: Path,
) -> None:
    assert locations.config_dir() == platform_folders / "config" / "stablepay-console"
    assert locations.data_dir() == platform_folders / "data" / "stablepay-console"
    assert locations.log_dir() == platform_folders / "state" / "stablepay-console" / "log"


def test_an_empty_stablepay_config_dir_moves_nothing(platform_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STABLEPAY_CONFIG_DIR", "")
    assert locations.config_dir() == platform_folders / "config" / "stablepay-console"
    assert locations.data_dir() == platform_folders / "data" / "stablepay-console"


def test_stablepay_config_dir_moves_every_file_under_it(isolated_config: Path) -> None:
    assert locations.config_dir() == isolated_config
    assert locations.profiles_file() == isolated_config / "profiles.toml"
    assert locations.keymap_file() == isolated_config / "keymap.toml"
    assert locations.data_dir() == isolated_config / "data"
    assert locations.witness_file() == isolated_config / "data" / "chain-witness.json"
    assert locations.state_file("bookmarks-team") == isolated_config / "data" / "bookmarks-team.json"
    assert locations.log_dir() == isolated_config / "logs"
    assert locations.log_file() == isolated_config / "logs" / "console.log"


def test_the_folders_the_console_makes_are_readable_by_the_user_only(isolated_config: Path) -> None:
    path = locations.ensure(locations.state_file("x"))
    assert path == isolated_config / "data" / "x.json"
    assert stat.S_IMODE((isolated_config / "data").stat().st_mode) == 0o700
    assert locations.ensure(locations.state_file("y")) == isolated_config / "data" / "y.json"  # it is there: fine
