"""The collector's pause around a bulk read: resumed after the last of overlapping reads, only if it ran before."""

from __future__ import annotations

import gc

from stablepay_console.services.gc_pause import gc_paused


def test_a_pause_resumes_the_collector_after_the_outermost_read() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "the inner read's end resumed the collector while the outer one still runs"
    assert gc.isenabled()


def test_a_pause_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
