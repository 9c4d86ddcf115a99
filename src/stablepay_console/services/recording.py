"""Every RFI a client receives goes to the local record, below every screen and headless command.

`Services.client_for` gives each client this hook, so the inbox, the needs-action view, exports and
`rfis watch` all feed the round history without knowing it. Recording is a list append on the
caller's side; the writing happens on the record's own thread (see `HistoryRecorder`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from stablepay_console.services.history import HistoryRecorder

if TYPE_CHECKING:
    from stablepay_console.api.models import Rfi


def recording_rfis(
    recorder: HistoryRecorder, profile: str, environment: str, clock: Callable[[], datetime]
) -> Callable[[list[Rfi]], None]:
    """What a client calls with each page of RFIs it receives (`StablePayClient(on_rfis=...)`)."""

    def saw(rfis: list[Rfi]) -> None:
        recorder.saw(profile, environment, rfis, clock())

    return saw
