"""The in-process halves of the scale benchmark, each run as its own process (`benchmarks/scale.py` starts them).

    python scale_probe.py radar PROXY_URL KEY
    python scale_probe.py needs-action PROXY_URL KEY

`radar`: the console's deadline radar polls once (its first look), then a minute later; prints the
requests each sent, counted by the proxy. `needs-action`: a headless console opens needs action; prints
the seconds from the key to its first rows painted, and to the whole list read. Both use only names the
console has had for a long time, so `scale.py` runs them against the code of a baseline commit too.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from counting_proxy import ProxyCounter
from in_process import PaintProbe, first_row, new_app, settle
from served_paging import served_services


async def radar(base_url: str, key: str, proxy: ProxyCounter) -> dict[str, Any]:
    from stablepay_console.services.watch.radar import RadarPoller

    profile, services = served_services(base_url, key)
    poller = RadarPoller()
    now = datetime.now(timezone.utc)
    async with services.client_for(profile) as client:
        proxy.reset()
        started = time.perf_counter()
        first = await poller.poll(client, now)
        first_seconds = time.perf_counter() - started
        first_cost = proxy.total()
        proxy.reset()
        await poller.poll(client, now + timedelta(minutes=1))
        minute_cost = proxy.total()
    return {"first": first_cost, "first_seconds": first_seconds, "minute": minute_cost, "due": first.due,
            "overdue": first.overdue}


async def needs_action(base_url: str, key: str) -> dict[str, Any]:
    profile, services = served_services(base_url, key)
    app = new_app(services, profile)
    async with app.run_test(size=(120, 40)):
        probe = PaintProbe(app)
        await probe.wait(lambda: first_row(app) is not None)
        await settle(app)
        screen: Any = app.screen
        pager = screen.paging

        def shown() -> bool:
            return pager.view == "needs action" and pager.action.current is not None and first_row(app) is not None

        def complete() -> bool:
            return shown() and pager.action.loading is None

        started = time.perf_counter()
        first_rows = await probe.press("a", shown, timeout=120)
        await probe.wait(complete, timeout=120)
        whole = time.perf_counter() - started
        rows = len(pager.action.current.value)
    return {"first_rows": first_rows, "complete": whole, "rows": rows}


def main(argv: list[str]) -> None:
    what, base_url, key = argv[:3]
    if what == "radar":
        result = asyncio.run(radar(base_url, key, ProxyCounter(base_url)))
    else:
        result = asyncio.run(needs_action(base_url, key))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
