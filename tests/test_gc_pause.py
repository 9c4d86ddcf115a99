"""The collector's pause around a bulk read: resumed after it, frozen instead only where the process ends next."""

from __future__ import annotations

import gc

import pytest

from stablepay_console.services import gc_pause
from stablepay_console.services.gc_pause import gc_paused


def test_a_pause_resumes_the_collector_and_freezes_only_a_whole_command_of_an_ending_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append("frozen"))
    monkeypatch.setattr(gc_pause, "_process_ends", False)
    assert gc.isenabled()
    with gc_paused(whole_command=True):
        assert not gc.isenabled()
    assert gc.isenabled() and frozen == [], "a command run in this process (a test) keeps its collections"

    gc_pause.process_ends_after_command()
    with gc_paused():  # a part of a command (a watch's sweep, a view's read) is collected as usual
        pass
    assert gc.isenabled() and frozen == []
    with gc_paused(whole_command=True), gc_paused():  # nested: the outer pause decides
        pass
    assert gc.isenabled() and frozen == ["frozen"]


def test_a_pause_leaves_a_disabled_collector_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_pause, "_process_ends", False)
    gc.disable()
    try:
        with gc_paused(whole_command=True):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
