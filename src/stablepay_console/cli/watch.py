"""`rfis watch`: poll every request, print one line (or one JSON object) per event, remember across restarts.

Events: a new request, a new round (compliance asked again), a status change, a deadline crossing
72 h, 24 h and 1 h, a deadline passed (see `services.watch_events`). What was seen is saved in the
data folder after each poll, so a restart (or the next `--once` from cron) does not repeat old
events. A failed poll is reported on stderr and retried later, backing off, and never sooner than
the server's `Retry-After`.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from stablepay_console.cli.durations import format_duration
from stablepay_console.cli.output import Output, fail, note
from stablepay_console.cli.session import FAILED, OK, USAGE, Session, open_session, run_async

if TYPE_CHECKING:
    from stablepay_console.api.client import StablePayClient
    from stablepay_console.api.errors import APIError
    from stablepay_console.services.watch_events import Tracker

MAX_BACKOFF = timedelta(hours=1)


def retry_after(exc: APIError, now: datetime) -> timedelta | None:
    """The server's `Retry-After` (seconds or an HTTP date), if the failed response carried one."""
    response = exc.response
    value = response.headers.get("retry-after") if response is not None else None
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return timedelta(seconds=min(int(value), int(MAX_BACKOFF.total_seconds())))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(timedelta(0), min(when - now, MAX_BACKOFF))


def backoff(interval: timedelta, failures: int, server_says: timedelta | None) -> timedelta:
    """After `failures` failed polls in a row: twice the interval, then four times... at most an hour
    (or the interval, when that is longer); never sooner than the server asked."""
    ours = min(interval * (2 ** min(failures, 10)), max(MAX_BACKOFF, interval))
    return max(ours, server_says or timedelta(0))


Sleep = Callable[[float], Awaitable[None]]


class Watcher:
    def __init__(self, session: Session, out: Output, sleep: Sleep = asyncio.sleep) -> None:
        from stablepay_console.services.watch_events import Tracker
        from stablepay_console.storage import watch_state

        self.session = session
        self.out = out
        self.sleep = sleep
        self.tracker: Tracker = Tracker()
        self.tracker.load_json(watch_state.load(session.profile.name, session.profile.base_url))

    def now(self) -> datetime:
        return self.session.services.clock()

    async def poll(self, client: StablePayClient) -> int:
        """One poll: print its events, then remember them. The number of events."""
        from stablepay_console.services.radar import every_rfi
        from stablepay_console.storage import watch_state

        first = not self.tracker.primed
        rfis = await every_rfi(client)
        events = self.tracker.observe(rfis, self.now(), complete=True)
        for event in events:
            if self.out.fmt == "json":
                self.out.json(event.to_json(), one_line=True)
            else:
                self.out.write(event.line() + "\n")
        profile = self.session.profile
        watch_state.save(profile.name, profile.base_url, self.tracker.to_json())
        if first:
            note(f"First poll: {len(rfis)} requests remembered; from now on new requests and rounds are reported.")
        return len(events)

    async def run(self, interval: timedelta, once: bool) -> int:
        from stablepay_console.api.error_text import error_text
        from stablepay_console.api.errors import APIError

        failures = 0
        async with self.session.client() as client:
            while True:
                try:
                    await self.poll(client)
                except APIError as exc:
                    failures += 1
                    fail(f"poll failed: {error_text(exc, 300, status=True)}")
                    if once:
                        return FAILED
                    wait = backoff(interval, failures, retry_after(exc, self.now()))
                    note(f"Trying again in {format_duration(wait)}.")
                    await self.sleep(wait.total_seconds())
                    continue
                except OSError as exc:
                    fail(f"could not keep what was seen in the data folder: {exc}")
                    return FAILED
                failures = 0
                if once:
                    return OK
                await self.sleep(interval.total_seconds())


def run_watch(args: argparse.Namespace) -> int:
    session = open_session(args)
    if session is None:
        return USAGE
    out = Output("json" if args.format == "json" else "plain")
    if not args.once:
        note(f"Watching the requests of {session.where} every {format_duration(args.interval)}; Ctrl+C stops.")
    result = run_async(lambda: Watcher(session, out).run(args.interval, args.once))
    return result if isinstance(result, int) else FAILED
