"""The evidence pack as one zip: the folder `evidence.write_pack` wrote, under one top folder of the same name.

In a browser the pack is a download: written into a private staging folder, zipped from there (what the
auditor unzips is byte for byte the folder a terminal would have left), and the folder removed by the caller.
"""

from __future__ import annotations

import io
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from stablepay_console.services.export import evidence

FILE_MODE = 0o644 << 16
"""rw-r--r-- for whoever unzips it (a zip made in memory carries no mode of its own)."""


def zip_stem(rfi_id: str, now: datetime) -> str:
    """`evidence-<id>-20261120T093000Z`: the download's name (with `.zip`) and its top folder, in UTC."""
    return f"evidence-{rfi_id}-{now.astimezone(timezone.utc):%Y%m%dT%H%M%SZ}"


def zip_folder(folder: Path, top: str, at: datetime) -> bytes:
    """Every file of `folder` (by name), as `top/<name>`, dated `at`; sub-folders are not part of a pack."""
    stamp = at.astimezone(timezone.utc).timetuple()[:6]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as packed:
        for path in sorted(p for p in folder.iterdir() if p.is_file()):
            entry = zipfile.ZipInfo(f"{top}/{path.name}", date_time=stamp)
            entry.external_attr = FILE_MODE
            entry.compress_type = zipfile.ZIP_DEFLATED
            packed.writestr(entry, path.read_bytes())
    return out.getvalue()


def zipped_pack(found: evidence.Gathered, target: Path, written_at: datetime, writer: str, version: str) -> bytes:
    """Write the pack as the folder `target` and return it zipped under its name. The caller owns the folder
    `target` is in, and removes it."""
    pack = evidence.write_pack(found, target, written_at, writer, version)
    try:
        return zip_folder(pack.path, target.name, written_at)
    except OSError as exc:
        raise evidence.EvidenceError(f"The evidence pack could not be zipped: {exc.strerror or exc}") from None
