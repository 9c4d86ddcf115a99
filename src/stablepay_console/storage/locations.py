"""Every path the console reads or writes. `STABLEPAY_CONFIG_DIR` moves them all (tests, containers)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_path, user_data_path, user_log_path

from stablepay_console.storage import variables

APP_NAME = "stablepay-console"


def _override() -> Path | None:
    value = os.environ.get(variables.CONFIG_DIR)
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    return _override() or user_config_path(APP_NAME, appauthor=False)


def data_dir() -> Path:
    base = _override()
    return base / "data" if base else user_data_path(APP_NAME, appauthor=False)


def log_dir() -> Path:
    base = _override()
    return base / "logs" if base else user_log_path(APP_NAME, appauthor=False)


def profiles_file() -> Path:
    return config_dir() / "profiles.toml"


def witness_file() -> Path:
    """The last audit-chain head this machine saw of each record (`storage.witness`)."""
    return data_dir() / "chain-witness.json"


def keymap_file() -> Path:
    """The user's own keys: binding id -> keys (`stablepay-console keys` lists the ids)."""
    return config_dir() / "keymap.toml"


def state_file(name: str) -> Path:
    """A small JSON file of per-profile state (recent lookups, bookmarks, rotation progress)."""
    return data_dir() / f"{name}.json"


def log_file() -> Path:
    return log_dir() / "console.log"


def ensure(path: Path) -> Path:
    """Create the parent directory of `path` (private to the user) and return `path`."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
