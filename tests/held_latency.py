"""The sandbox's latency held open by the test: a request waits `faults.latency` seconds, or until `end()`.

A test that checks what the screen does while a request is in flight sets a latency no busy machine could
outlast (the fault matrix uses 25 s) and ends it once it has checked, instead of racing a short one.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from stablepay_console.sandbox import app as sandbox_app


class HeldLatency:
    """Patched in for the sandbox's `asyncio.sleep`; `end()` lets every waiting and later request through."""

    def __init__(self) -> None:
        self.over = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self.over.wait(), timeout=seconds)
        except TimeoutError:
            pass

    def end(self) -> None:
        self.over.set()


def hold_latency(monkeypatch: pytest.MonkeyPatch) -> HeldLatency:
    """Every in-process sandbox's latency, from now to the end of the test, held until `end()`."""
    held = HeldLatency()
    monkeypatch.setattr(sandbox_app, "asyncio", SimpleNamespace(sleep=held.sleep))
    return held
