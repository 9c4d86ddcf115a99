"""A client that records every RFI it receives, below every screen and headless command.

`Services.client_for` hands this out, so the inbox, the needs-action view, exports and `rfis watch`
all feed the round history without knowing it. Recording is a list append on the caller's side;
the writing happens on the record's own thread (see `HistoryRecorder`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from stablepay_console.api.client import StablePayClient
from stablepay_console.api.models import RfiPage
from stablepay_console.services.history import HistoryRecorder


class RecordingClient(StablePayClient):
    """`StablePayClient` whose RFI pages also go to the local record, under one profile."""

    def __init__(
        self,
        base_url: str,
        api_key: Any,
        *,
        recorder: HistoryRecorder,
        profile: str,
        environment: str,
        clock: Callable[[], datetime],
        **kwargs: Any,
    ) -> None:
        super().__init__(base_url, api_key, **kwargs)
        self.recorder = recorder
        self.profile = profile
        self.environment = environment
        self.clock = clock

    async def list_rfis(
        self,
        status: str | None = None,
        kind: str | None = None,
        user_id: str | None = None,
        limit: int = 20,
        offset: int = 0,
    ) -> RfiPage:
        page = await super().list_rfis(status, kind, user_id, limit, offset)
        self.recorder.saw(self.profile, self.environment, page.data, self.clock())
        return page
