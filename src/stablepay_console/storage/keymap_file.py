"""The user's keymap file (`keymap.toml` in the config folder): binding id -> keys, read at start.

    # a binding id (stablepay-console keys lists them) = its keys, Textual's names, comma-separated
    "inbox.refresh" = "f5"
    "batch.reload" = "f5,ctrl+r"

A list of keys is taken too (`"inbox.refresh" = ["f5", "r"]`). What the file holds is the user's to type: ids
and keys are cleaned before they are shown anywhere; whether they name bindings and keys that fit together
is checked by the console (tui/keymap.py), not here.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from stablepay_console.api.sanitize import clean
from stablepay_console.storage import locations

MAX_BYTES = 64 * 1024


class KeymapFileError(Exception):
    """The file could not be read as a keymap; the message says where and why (never its raw contents)."""


def read_keymap(path: Path | None = None) -> dict[str, str] | None:
    """The keymap (binding id -> "key,key"), or None when there is no file; KeymapFileError when unreadable."""
    path = path or locations.keymap_file()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeymapFileError(f"{path} could not be read: {exc.strerror or type(exc).__name__}.") from None
    if len(raw) > MAX_BYTES:
        raise KeymapFileError(f"{path} is larger than {MAX_BYTES // 1024} KiB: not a keymap.")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KeymapFileError(f"{path} is not valid TOML: {clean(str(exc), 120)}.") from None
    keymap: dict[str, str] = {}
    for binding_id, keys in data.items():
        if isinstance(keys, str):
            listed = keys.split(",")
        elif isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            listed = list(keys)
        else:
            raise KeymapFileError(f"{path}: {clean(binding_id, 60)} needs a key or a list of keys (strings).")
        listed = [clean(k, 40).strip() for k in listed if k.strip()]
        if not listed:
            raise KeymapFileError(f"{path}: {clean(binding_id, 60)} is given no key.")
        keymap[clean(binding_id, 60)] = ",".join(listed)
    return keymap
