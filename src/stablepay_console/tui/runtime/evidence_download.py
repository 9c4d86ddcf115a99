"""The evidence pack in a browser: one zip download, never a folder left on the server.

In a terminal `e` writes the pack into the current folder, where the analyst is. In a browser that folder is
the server's, which the analyst cannot reach: the pack is written into a private staging folder (in memory
where there is one, see `tui.runtime.deliveries.staged`), zipped, handed to the browser, and the folder removed
whatever happened.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from stablepay_console import __version__
from stablepay_console.api.sanitize import clean
from stablepay_console.services.export import evidence
from stablepay_console.services.export.evidence_zip import zip_stem, zipped_pack
from stablepay_console.storage.record import RecordError
from stablepay_console.tui.formatters.text import toast_path
from stablepay_console.tui.runtime.deliveries import deliver_bytes, download_name, staged

if TYPE_CHECKING:
    from datetime import datetime

    from textual.widget import Widget

    from stablepay_console.profiles.model import Profile
    from stablepay_console.wiring import Services


def build_zip(found: evidence.Gathered, top: str, now: datetime, writer: str) -> bytes:
    """The pack zipped; its staging folder is gone when this returns or raises."""
    with staged(top) as target:
        return zipped_pack(found, target, now, writer, __version__)


async def download_evidence(widget: Widget, services: Services, profile: Profile, rfi_id: str, now: datetime,
                            writer: str) -> None:
    """Gather the request's record, zip the pack and deliver it to the browser; say so, and audit it."""
    name = download_name(f"{zip_stem(rfi_id, now)}.zip")
    try:
        found = await services.record.run(lambda record: evidence.gather(record, profile.name, rfi_id))
        data = await asyncio.to_thread(build_zip, found, name.removesuffix(".zip"), now, writer)
    except (evidence.EvidenceError, RecordError) as exc:
        widget.notify(clean(str(exc), 300), title="No evidence pack", severity="error", markup=False)
        return
    except OSError as exc:  # no private staging folder could be made (a full or read-only /dev/shm and /tmp)
        said = f"The evidence pack could not be staged on the server: {exc.strerror or type(exc).__name__}."
        widget.notify(clean(said, 300), title="No evidence pack", severity="error", markup=False)
        return
    deliver_bytes(widget.app, data, name)
    services.audit.append("evidence.write", profile, target=rfi_id, outcome="delivered", download=name)
    said = f"Your browser downloads it as\n{toast_path(name)}"  # the name whole, broken only after a `-`
    widget.notify(said, title="Evidence pack", timeout=8, markup=False)
