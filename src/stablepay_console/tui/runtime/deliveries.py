"""An export in a browser: delivered as a download (textual-serve), never left on the server.

The RFI export writes its file through the export service (a `.part`, renamed once complete); in a
browser it writes into a private folder in memory (`/dev/shm` when there is one, mode 0700), the bytes
are handed to the browser, and the folder is removed at once, whatever happened. The evidence pack is written
into such a folder too, and delivered as one zip of it (`tui.runtime.evidence_download`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from textual.app import App

MEMORY = Path("/dev/shm")
UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
TYPES = {".csv": "text/csv", ".json": "application/json", ".zip": "application/zip"}


def download_name(path: Path | str) -> str:
    """The file name the browser saves under: the name only, letters, digits, `.`, `_` and `-`."""
    name = UNSAFE.sub("_", Path(path).name).strip("._")[:120]
    return name or "export"


@contextlib.contextmanager
def staged(name: str) -> Iterator[Path]:
    """Where an export writes before it is delivered; the folder is gone when the block ends."""
    where = str(MEMORY) if MEMORY.is_dir() and os.access(MEMORY, os.W_OK) else None
    folder = tempfile.mkdtemp(prefix="stablepay-export-", dir=where)
    try:
        yield Path(folder) / download_name(name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def deliver_bytes(app: App[object], data: bytes, name: str) -> None:
    """Hand `data` to the browser as the download `name` (from any thread: textual-serve asks for it later)."""
    safe = download_name(name)
    mime = TYPES.get(Path(safe).suffix.lower(), "application/octet-stream")
    app.deliver_binary(io.BytesIO(data), save_filename=safe, mime_type=mime)
