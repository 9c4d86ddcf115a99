"""Page switch against a real server: the console on a profile pointing at `sandbox serve --latency 0.2`.

Every request to the served sandbox waits `latency` seconds (a 200 ms round trip by default) over
loopback HTTP. The console runs headless in this process on an ordinary configured profile, as a user
with a profile for a remote API would: the same keys, the same clock as the in-process figure.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time

from common import Row, ms, percentile
from in_process import TARGET_MS, page_switch
from served import served_sandbox

from stablepay_console.api import ApiKey
from stablepay_console.profiles.book import ProfileBook
from stablepay_console.profiles.keys import MemoryVault
from stablepay_console.profiles.model import EMBEDDED_PROFILES, Profile
from stablepay_console.wiring import Services

PROFILE = "bench-served"


def served_services(base_url: str, key: str) -> tuple[Profile, Services]:
    """A configured profile for the served sandbox (its key in memory, never the OS keyring) and its wiring."""
    book = ProfileBook(keys=MemoryVault(), embedded=EMBEDDED_PROFILES, embedded_vault=MemoryVault())
    profile = Profile(PROFILE, "sandbox", base_url)
    book.add(profile, ApiKey(key), make_default=True)
    return profile, Services(book=book)


def measure(rfis: int, presses: int, latency: float = 0.2) -> list[Row]:
    started = time.perf_counter()
    with served_sandbox(rfis, latency) as (base_url, key):
        ready = time.perf_counter() - started
        profile, services = served_services(base_url, key)
        first, switch = asyncio.run(page_switch(services, presses, profile))
    p95 = percentile(switch, 95)
    return [
        Row(f"page switch p95, served {latency * 1000:.0f} ms", ms(p95), ms(latency), "-", f"< {TARGET_MS:.0f} ms",
            p95 * 1000 < TARGET_MS,
            f"sandbox serve --rfis {rfis} --latency {latency} over loopback (served in {ready:.1f} s), "
            f"baseline: one round trip's added latency; {len(switch)} presses of n, p50 "
            f"{ms(percentile(switch, 50))}, max {ms(max(switch))}; the first press after start took {ms(first)}"),
    ]


if __name__ == "__main__":
    import os

    from common import render

    with tempfile.TemporaryDirectory(prefix="stablepay-bench-") as config:
        os.environ["STABLEPAY_CONFIG_DIR"] = config
        os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
        print(render(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 50000, 60)))
